import { statusByCloseAction, type JournalEvent, type OpenTerms } from './journal-events.ts';
import type { TradeRecord } from './trade-record.ts';

// The fold of a position lineage's events, shared by the journal's decider (services/src/journal) and
// the trades read model (projections/src/trades): it lives below both so that the write side never
// depends on a read model, and so both see the same trades from the same events.

/** The ancestor record of a split (part 1 §3 "Split history record"), before the legs are joined in. */
export interface SplitRecord {
  /** The broken two-leg trade. */
  auid: string;
  userId: string;
  lineageId: string;
  /** The legs' uids: the closed leg first, then the one that stays open. */
  trades: [string, string];
  su: string;
  gene: { tod: string; ed: string; cs: number; pao: number; cause: string };
  /**
   * Where the broken trade itself came from, and its strikes: it leaves the trades, so the roll history
   * joins its legs to the trade it was rolled from (or left from by a partial close) through this.
   */
  parent: SplitParent;
  createdAt: string;
}

export interface SplitParent {
  /** The trade the broken one was rolled from, else null. */
  rf: string | null;
  /** The trade the broken one is the remainder of (a partial close or roll left it), else null. */
  pf: string | null;
  /** Its strike prices, as they were when it was split. */
  sp: number[];
  /**
   * Its net delta, as it was when split: while both legs are there, the day it was opened counts it as
   * one trade opened with this delta (each leg carries a copy, which a later edit of the leg may change).
   */
  nd: number;
}

/** One lineage as the read models see it: its live trades, the splits in it, the last revision applied. */
export interface LineageState {
  userId: string;
  lineageId: string;
  /** Last stream revision folded in; -1 before the first. */
  revision: number;
  trades: Map<string, TradeRecord>;
  splits: SplitRecord[];
  hasRollHistory: boolean;
}

export const emptyLineage = (userId: string, lineageId: string): LineageState => ({
  userId,
  lineageId,
  revision: -1,
  trades: new Map(),
  splits: [],
  hasRollHistory: false,
});

export interface EventContext {
  revision: number;
  /** Server time of the event (metadata.recordedAt). */
  at: string;
}

function opened(state: LineageState, uid: string, terms: OpenTerms, at: string, links: Pick<TradeRecord, 'rolledFrom' | 'ancestorUid' | 'partialOf'>): TradeRecord {
  return {
    uid,
    lineageId: state.lineageId,
    userId: state.userId,
    ticker: terms.ticker,
    strategyUid: terms.strategyUid,
    accountUid: terms.accountUid,
    strikePrices: [...terms.strikePrices],
    openDate: terms.openDate,
    expirationDate: terms.expirationDate,
    contractSize: terms.contractSize,
    premiumAtOpen: terms.premiumAtOpen,
    netFeeToOpen: terms.netFeeToOpen,
    openTransaction: terms.openTransaction,
    netDelta: terms.netDelta,
    stockPriceAtOpen: terms.stockPriceAtOpen,
    costBasis: terms.costBasis,
    leapsValue: terms.leapsValue,
    notes: terms.notes,
    tags: [...terms.tags],
    status: 1,
    close: null,
    ...links,
    updatedAt: at,
    createdAt: at,
    hasRollHistory: state.hasRollHistory,
  };
}

/**
 * Closes (part of) a trade: the trade keeps its uid and becomes the closed part (its contract size,
 * premium and fee are the recorded allocation's); the remainder, when any, is a new open trade with the
 * same terms that replaces it in the open lists.
 */
function closePart(
  state: LineageState,
  data: Extract<JournalEvent, { type: 'TradeClosed' }>['data'],
  status: TradeRecord['status'],
  at: string,
): void {
  const trade = state.trades.get(data.tradeId);
  if (!trade) return;
  const { contractsClosed: _n, ...close } = data.close;
  state.trades.set(trade.uid, {
    ...trade,
    contractSize: data.remainder ? data.close.contractsClosed : trade.contractSize,
    premiumAtOpen: data.closedPart.premiumAtOpen,
    netFeeToOpen: data.closedPart.netFeeToOpen,
    status,
    close,
    updatedAt: at,
  });
  if (data.remainder) {
    state.trades.set(data.remainder.tradeId, {
      ...trade,
      uid: data.remainder.tradeId,
      contractSize: data.remainder.contractSize,
      premiumAtOpen: data.remainder.premiumAtOpen,
      netFeeToOpen: data.remainder.netFeeToOpen,
      rolledFrom: null,
      partialOf: trade.uid,
      updatedAt: at,
      createdAt: at,
    });
  }
}

/**
 * Folds one event of the lineage into its state (in place). Events at or below the state's revision
 * are ignored, so replaying a delivered batch changes nothing. Returns whether it applied.
 */
export function evolveLineage(state: LineageState, event: JournalEvent, ctx: EventContext): boolean {
  if (ctx.revision <= state.revision) return false;
  state.revision = ctx.revision;
  const { at } = ctx;
  switch (event.type) {
    case 'TradeOpened': {
      const d = event.data;
      state.trades.set(d.tradeId, opened(state, d.tradeId, d.terms, at, { rolledFrom: null, ancestorUid: null, partialOf: null }));
      break;
    }
    case 'TradeClosed':
      closePart(state, event.data, statusByCloseAction[event.data.close.closeAction], at);
      break;
    case 'TradeRolled': {
      const d = event.data;
      const old = state.trades.get(d.tradeId);
      if (!old) break;
      closePart(state, { tradeId: d.tradeId, close: d.close, closedPart: d.closedPart, remainder: d.remainder }, 3, at);
      state.trades.set(d.newTrade.tradeId, opened(state, d.newTrade.tradeId, d.newTrade.terms, at, { rolledFrom: d.tradeId, ancestorUid: null, partialOf: null }));
      // Every trade of a lineage with a roll in it offers Roll History.
      state.hasRollHistory = true;
      for (const [uid, t] of state.trades) if (!t.hasRollHistory) state.trades.set(uid, { ...t, hasRollHistory: true });
      break;
    }
    case 'TradeSplit': {
      const d = event.data;
      const parent = state.trades.get(d.tradeId);
      if (!parent) break;
      const leg = (l: typeof d.openLeg): TradeRecord => ({
        ...parent,
        uid: l.tradeId,
        strategyUid: l.strategyUid,
        strikePrices: [l.strikePrice],
        premiumAtOpen: l.premiumAtOpen,
        netFeeToOpen: l.netFeeToOpen,
        openTransaction: l.openTransaction,
        status: 1,
        close: null,
        rolledFrom: null,
        ancestorUid: parent.uid,
        partialOf: null,
        updatedAt: at,
        createdAt: at,
      });
      const { contractsClosed: _n, ...close } = d.closedLeg.close;
      state.trades.set(d.closedLeg.tradeId, { ...leg(d.closedLeg), status: statusByCloseAction[close.closeAction], close });
      state.trades.set(d.openLeg.tradeId, leg(d.openLeg));
      // The broken trade leaves the lists: its legs replace it, and it lives on as their ancestor record.
      state.trades.delete(parent.uid);
      state.splits.push({
        auid: parent.uid,
        userId: state.userId,
        lineageId: state.lineageId,
        trades: [d.closedLeg.tradeId, d.openLeg.tradeId],
        su: parent.strategyUid,
        gene: {
          tod: parent.openDate,
          ed: parent.expirationDate,
          cs: parent.contractSize,
          pao: parent.premiumAtOpen,
          cause: `Leg ${d.closedLeg.legIndex + 1} closed, Leg ${d.openLeg.legIndex + 1} remains open.`,
        },
        parent: { rf: parent.rolledFrom, pf: parent.partialOf, sp: [...parent.strikePrices], nd: parent.netDelta },
        createdAt: at,
      });
      break;
    }
    case 'TradeEdited': {
      const t = state.trades.get(event.data.tradeId);
      if (!t) break;
      const c = event.data.changes;
      state.trades.set(t.uid, {
        ...t,
        ticker: c.ticker ?? t.ticker,
        accountUid: c.accountUid ?? t.accountUid,
        strikePrices: c.strikePrices ? [...c.strikePrices] : t.strikePrices,
        openDate: c.openDate ?? t.openDate,
        expirationDate: c.expirationDate ?? t.expirationDate,
        contractSize: c.contractSize ?? t.contractSize,
        premiumAtOpen: c.premiumAtOpen ?? t.premiumAtOpen,
        netFeeToOpen: c.netFeeToOpen ?? t.netFeeToOpen,
        netDelta: c.netDelta ?? t.netDelta,
        stockPriceAtOpen: c.stockPriceAtOpen !== undefined ? c.stockPriceAtOpen : t.stockPriceAtOpen,
        costBasis: c.costBasis !== undefined ? c.costBasis : t.costBasis,
        notes: c.notes ?? t.notes,
        updatedAt: at,
      });
      break;
    }
    case 'TradeDeleted':
      state.trades.delete(event.data.tradeId);
      break;
    default: {
      const never: never = event;
      throw new Error(`Unknown journal event ${(never as { type: string }).type}`);
    }
  }
  return true;
}
