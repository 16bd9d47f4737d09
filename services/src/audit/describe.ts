import type { JournalEvent, OpenTerms } from '@oj/contracts/journal-events';
import type { ActorRole } from '@oj/contracts/events';
import type { FieldChange, TradeChange } from '@oj/contracts/audit';
import { strategyByUid } from '@oj/contracts/strategies';
import { positionToString, type StoredEvent } from '@oj/infra/eventstore/port';
import type { TimelineEntry } from '@oj/contracts/audit';
import type { LineageState } from '@oj/contracts/lineage-fold';
import type { TradeRecord } from '@oj/contracts/trade-record';
import { CONTRACT_MULTIPLIER } from '@oj/contracts/formulas';
import { tradeShortId } from '@oj/contracts/trades';

/**
 * The sentence a person reads for each event ("Closed 2 of 3 SPY 400P at 0.30, fee 1.30; 1 contract
 * remains as trade #a1b2c3"), and the trades it touched. Events record totals in USD for all contracts;
 * sentences quote prices per share, as traders do (total / 100 / contracts). Trades are named by the last
 * six characters of their uid (uids are time-ordered: their first characters are alike).
 */

const money = (x: number) => x.toFixed(2);
const perShare = (total: number, contracts: number) => money(contracts ? total / CONTRACT_MULTIPLIER / contracts : 0);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `SPY 400P`, `SPY 150P/145P`: strikes with each leg's put or call letter. */
export function contractLabel(ticker: string, strategyUid: string, strikes: readonly number[]): string {
  const legs = strategyByUid(strategyUid)?.legs_setup.config ?? [];
  const parts = strikes.map((s, i) => `${Number.isInteger(s) ? s : s.toFixed(2)}${legs[i]?.type === 'call' ? 'C' : legs[i]?.type === 'put' ? 'P' : ''}`);
  return `${ticker} ${parts.join('/')}`;
}

const recordLabel = (t: Pick<TradeRecord, 'ticker' | 'strategyUid' | 'strikePrices'>) => contractLabel(t.ticker, t.strategyUid, t.strikePrices);
const termsLabel = (t: OpenTerms) => contractLabel(t.ticker, t.strategyUid, t.strikePrices);
const side = (ot: number) => (ot === 1 ? 'credit' : 'debit');
const strategyName = (uid: string) => strategyByUid(uid)?.name ?? uid;

/** Trades an event names: the one acted on first, then remainders, successors and legs. */
export function tradesTouched(event: JournalEvent): string[] {
  switch (event.type) {
    case 'TradeOpened':
    case 'TradeEdited':
    case 'TradeDeleted':
      return [event.data.tradeId];
    case 'TradeClosed':
      return [event.data.tradeId, ...(event.data.remainder ? [event.data.remainder.tradeId] : [])];
    case 'TradeRolled':
      return [event.data.tradeId, ...(event.data.remainder ? [event.data.remainder.tradeId] : []), event.data.newTrade.tradeId];
    case 'TradeSplit':
      return [event.data.tradeId, event.data.closedLeg.tradeId, event.data.openLeg.tradeId];
  }
}

const fieldNames: Record<string, string> = {
  ticker: 'ticker',
  accountUid: 'account',
  strikePrices: 'strikes',
  openDate: 'open date',
  expirationDate: 'expiration',
  contractSize: 'contracts',
  // Totals for all contracts, where the other sentences give per-share prices ("at 5.00 debit"): said so (QA).
  premiumAtOpen: 'premium at open (total)',
  netFeeToOpen: 'fee to open (total)',
  netDelta: 'delta',
  stockPriceAtOpen: 'stock price at open',
  costBasis: 'cost basis',
  notes: 'notes',
};
const show = (v: unknown) => (v === null || v === undefined ? 'none' : typeof v === 'string' ? `"${v}"` : Array.isArray(v) ? v.join('/') : String(v));

/** The sentence of one event, given the trade it acts on as it was just before (from the lineage's fold). */
export function describeEvent(event: JournalEvent, before: ReadonlyMap<string, TradeRecord>): string {
  switch (event.type) {
    case 'TradeOpened': {
      const t = event.data.terms;
      return `Opened ${t.contractSize} ${termsLabel(t)} ${strategyName(t.strategyUid)}, expiring ${t.expirationDate}, at ${perShare(t.premiumAtOpen, t.contractSize)} ${side(t.openTransaction)}, fee ${money(t.netFeeToOpen)}, as trade ${tradeShortId(event.data.tradeId)}`;
    }
    case 'TradeClosed':
    case 'TradeRolled': {
      const d = event.data;
      const old = before.get(d.tradeId);
      const label = old ? recordLabel(old) : `trade ${tradeShortId(d.tradeId)}`;
      const n = d.close.contractsClosed;
      const of = old && old.contractSize !== n ? `${n} of ${old.contractSize}` : `${n}`;
      const c = d.close;
      let what: string;
      switch (c.closeAction) {
        case 'close':
          what = `${event.type === 'TradeRolled' ? 'Rolled' : 'Closed'} ${of} ${label} at ${perShare(c.premiumAtClose, n)}, fee ${money(c.netFeeToClose)}`;
          break;
        case 'expireWorthless':
          what = `${of} ${label} expired worthless`;
          break;
        case 'assigned':
          what = `Assigned on ${of} ${label}`;
          break;
        case 'calledAway':
          what = `${of} ${label} called away`;
          break;
        case 'exercised':
          what = `Exercised ${of} ${label}`;
          break;
      }
      what += ` on ${c.closeDate}`;
      if (event.type === 'TradeRolled') {
        const t = event.data.newTrade.terms;
        what += `; rolled to ${t.contractSize} ${termsLabel(t)} expiring ${t.expirationDate} at ${perShare(t.premiumAtOpen, t.contractSize)} ${side(t.openTransaction)}, fee ${money(t.netFeeToOpen)}, as trade ${tradeShortId(event.data.newTrade.tradeId)}`;
      }
      if (d.remainder) what += `; ${plural(d.remainder.contractSize, 'contract')} ${d.remainder.contractSize === 1 ? 'remains' : 'remain'} as trade ${tradeShortId(d.remainder.tradeId)}`;
      return what;
    }
    case 'TradeSplit': {
      const d = event.data;
      const parent = before.get(d.tradeId);
      const label = parent ? `${recordLabel(parent)} ${strategyName(parent.strategyUid)}` : `trade ${tradeShortId(d.tradeId)}`;
      const ticker = parent?.ticker ?? '';
      const c = d.closedLeg.close;
      const contracts = parent?.contractSize ?? 1;
      return `Split ${label}: leg ${d.closedLeg.legIndex + 1} (${contractLabel(ticker, d.closedLeg.strategyUid, [d.closedLeg.strikePrice]).trim()}) closed at ${perShare(c.premiumAtClose, contracts)}, fee ${money(c.netFeeToClose)} on ${c.closeDate}, as trade ${tradeShortId(d.closedLeg.tradeId)}; leg ${d.openLeg.legIndex + 1} (${contractLabel(ticker, d.openLeg.strategyUid, [d.openLeg.strikePrice]).trim()}) stays open as trade ${tradeShortId(d.openLeg.tradeId)}`;
    }
    case 'TradeEdited': {
      const t = before.get(event.data.tradeId);
      const changes = Object.entries(event.data.changes)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${fieldNames[k] ?? k} ${show(t ? (t as unknown as Record<string, unknown>)[k] : undefined)} → ${show(v)}`);
      return `Edited ${t ? recordLabel(t) : 'trade'} ${tradeShortId(event.data.tradeId)}: ${changes.length ? changes.join(', ') : 'no change'}`;
    }
    case 'TradeDeleted': {
      const t = before.get(event.data.tradeId);
      return `Deleted ${t ? `${t.contractSize} ${recordLabel(t)} ` : ''}trade ${tradeShortId(event.data.tradeId)}`;
    }
  }
}

export function actorLabel(role: ActorRole, id: string, userId: string): string {
  if (role === 'trader') return id === userId ? 'the user' : `trader ${id}`;
  if (role === 'support') return `support ${id}`;
  if (role === 'operator') return `operator ${id}`;
  return id.startsWith('webhook') ? `webhook (${id})` : `system (${id})`;
}

export function timelineEntryOf(e: StoredEvent, event: JournalEvent, sentence: string, lineageId: string): TimelineEntry {
  const m = e.metadata;
  return {
    position: positionToString(e.position),
    event_id: e.id,
    stream_id: e.streamId,
    lineage_id: lineageId,
    revision: e.revision,
    recorded_at: m.recordedAt,
    business_date: m.businessDate,
    actor: { id: m.actor.id, role: m.actor.role, label: actorLabel(m.actor.role, m.actor.id, m.userId) },
    command: m.command ?? null,
    request_id: m.correlationId,
    idempotency_key: m.idempotencyKey,
    type: e.type,
    schema_version: e.schemaVersion,
    trades: tradesTouched(event),
    sentence,
  };
}

/** The record fields a person compares (no bookkeeping timestamps). */
const recordFields: ReadonlyArray<keyof TradeRecord> = [
  'ticker', 'strategyUid', 'accountUid', 'strikePrices', 'openDate', 'expirationDate', 'contractSize', 'premiumAtOpen', 'netFeeToOpen',
  'openTransaction', 'netDelta', 'stockPriceAtOpen', 'costBasis', 'leapsValue', 'notes', 'tags', 'status', 'close', 'rolledFrom',
  'ancestorUid', 'partialOf', 'hasRollHistory',
];

export const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Each trade of a lineage whose record the event changed: created, changed (field by field) or removed. */
export function tradeChanges(before: ReadonlyMap<string, TradeRecord>, after: ReadonlyMap<string, TradeRecord>): TradeChange[] {
  const out: TradeChange[] = [];
  for (const [uid, now] of after) {
    const old = before.get(uid);
    if (old === now) continue;
    const fields: FieldChange[] = [];
    for (const f of recordFields) {
      if (!old || !sameValue(old[f], now[f])) fields.push({ field: f, before: old ? (old[f] ?? null) : null, after: now[f] ?? null });
    }
    if (old && !fields.length) continue;
    out.push({ uid, change: old ? 'changed' : 'created', fields });
  }
  for (const [uid, old] of before) {
    if (after.has(uid)) continue;
    out.push({ uid, change: 'removed', fields: recordFields.map((f) => ({ field: f, before: old[f] ?? null, after: null })) });
  }
  return out;
}

/**
 * Describes events given every earlier event of their lineages: each lineage is folded in revision
 * order, and each event of `wanted` is described from the state just before it. `lineageEvents` holds,
 * per stream, its events from revision 0 up to at least the last wanted one.
 */
export function describeWithLineages(
  wanted: readonly StoredEvent[],
  lineageEvents: ReadonlyMap<string, readonly StoredEvent[]>,
  fold: (state: LineageState, e: StoredEvent) => void,
  newState: (streamId: string) => LineageState,
): Map<string, { sentence: string; event: JournalEvent; lineageId: string; changes: TradeChange[] }> {
  const want = new Set(wanted.map((e) => e.id));
  const out = new Map<string, { sentence: string; event: JournalEvent; lineageId: string; changes: TradeChange[] }>();
  for (const [streamId, events] of lineageEvents) {
    const state = newState(streamId);
    for (const e of events) {
      if (!want.has(e.id)) {
        fold(state, e);
        continue;
      }
      const before = new Map(state.trades);
      const event = e as unknown as JournalEvent;
      const sentence = describeEvent(event, before);
      fold(state, e);
      out.set(e.id, { sentence, event, lineageId: state.lineageId, changes: tradeChanges(before, state.trades) });
    }
  }
  return out;
}
