import type { CloseAction, CloseTerms, TradeStatusCode } from './journal-events.ts';
import type { TradeListItem } from './trade-list-item.ts';
import {
  annualisedReturn,
  capitalGain,
  collateral,
  daysHeld,
  daysOpen,
  disposition,
  netFee,
  netPremiumCaptured,
  returnOnRisk,
} from './formulas.ts';

/** How a trade was closed: the close terms as entered, without the partial-close count (the record's contractSize is what was closed). */
export type TradeClose = Omit<CloseTerms, 'contractsClosed'>;

/**
 * The facts of one trade as folded from its lineage's events (lineage-fold.ts): what the trader entered
 * and the structure, no derived figure. The write side folds the same record to decide and to answer
 * commands; the trades read model stores it column by column.
 */
export interface TradeRecord {
  uid: string;
  lineageId: string;
  userId: string;
  ticker: string;
  strategyUid: string;
  accountUid: string;
  strikePrices: number[];
  openDate: string;
  expirationDate: string;
  contractSize: number;
  premiumAtOpen: number;
  netFeeToOpen: number;
  /** 1 credit (STO), 2 debit (BTO). */
  openTransaction: 1 | 2;
  netDelta: number;
  stockPriceAtOpen: number | null;
  costBasis: number | null;
  leapsValue: number | null;
  notes: string;
  tags: string[];
  status: TradeStatusCode;
  /** Set once the trade is closed (any status but 1). */
  close: TradeClose | null;
  /** The trade this one was rolled from (the roll's successor points at its predecessor). */
  rolledFrom: string | null;
  /** The two-leg trade this one was split from. */
  ancestorUid: string | null;
  /** The trade a partial close or partial roll left this one as the remainder of. */
  partialOf: string | null;
  /** Server time (ISO-8601) of the last event that changed this trade. */
  updatedAt: string;
  /** Server time of the event that created it. */
  createdAt: string;
  /** The lineage has a roll in it. */
  hasRollHistory: boolean;
}

export const closeActionOf = (r: TradeRecord): CloseAction | null => r.close?.closeAction ?? null;

/** The derived figures of a trade; open trades have none but collateral and days open. */
export interface TradeFigures {
  c: number;
  npc: number | null;
  nftc: number | null;
  ror: number | null;
  aroc: number | null;
  cg: number | null;
  do: number;
}

export function tradeFigures(r: TradeRecord, asOf: string): TradeFigures {
  const c = collateral(r);
  if (!r.close || r.status === 1) return { c, npc: null, nftc: null, ror: null, aroc: null, cg: null, do: daysOpen(r.openDate, asOf) };
  const npc = netPremiumCaptured(r.openTransaction, r.premiumAtOpen, r.close.closeTransaction, r.close.premiumAtClose);
  const fees = netFee(r.netFeeToOpen, r.close.netFeeToClose);
  const held = daysHeld(r.openDate, r.close.closeDate);
  const ror = returnOnRisk(npc, fees, c);
  return { c, npc, nftc: r.close.netFeeToClose, ror, aroc: annualisedReturn(npc, fees, c, held), cg: capitalGain(r.close.closeAction, r), do: held };
}

/**
 * The list item of part 1 §3. `asOf` (a New York date) only matters for open trades' days open; a
 * closed trade's item is the same whenever it is computed.
 */
export function toListItem(r: TradeRecord, asOf: string): TradeListItem {
  const f = tradeFigures(r, asOf);
  return {
    uid: r.uid,
    lid: r.lineageId,
    ticker: r.ticker,
    sp: [...r.strikePrices],
    c: f.c,
    tod: r.openDate,
    tcd: r.close?.closeDate ?? null,
    ed: r.expirationDate,
    status: r.status,
    pao: r.premiumAtOpen,
    pac: r.close?.premiumAtClose ?? null,
    npc: f.npc,
    nd: r.netDelta,
    cs: r.contractSize,
    notes: r.notes,
    tags: [...r.tags],
    ot: r.openTransaction,
    ct: r.close?.closeTransaction ?? null,
    su: r.strategyUid,
    au: r.accountUid,
    auid: r.ancestorUid,
    spo: r.stockPriceAtOpen,
    cb: r.costBasis,
    lv: r.leapsValue,
    rf: r.rolledFrom,
    pf: r.partialOf,
    up: r.updatedAt,
    nfto: r.netFeeToOpen,
    nftc: f.nftc,
    ror: f.ror,
    aroc: f.aroc,
    cg: f.cg,
    do: f.do,
    dis: disposition(r.status, r.close?.closeDate ?? null, r.expirationDate),
    rh: r.hasRollHistory,
    created_at: r.createdAt,
  };
}
