import { userStreamPrefix } from '@oj/contracts/journal-events';
import type { LineageState } from '@oj/contracts/lineage-fold';
import type { TradeRecord } from '@oj/contracts/trade-record';
import type { LogPosition, StoredEvent } from '@oj/infra/eventstore/port';
import { dayTradeOf, type DailyPremiumRecord, type DayTrade } from '@oj/projections/daily-premium/compute';
import { dailyRecords, foldEvent, lineageOfStream, splitPositions, tradeRow } from '@oj/projections/trades/user-rows';

/**
 * A user's journal after some prefix of the user's log, kept so that it can be carried forward by the
 * events after it instead of folding the log again from the first event: every lineage's state (the
 * projection's fold, `foldEvent`) and every day record (the projection's `dailyRecords`). The stored
 * replay states (stored-states.ts) are these, written a chunk of the log at a time; an as-of view or
 * Verify reads the last one before its point and folds the rest (`advance`).
 *
 * `advance` gives exactly what folding the whole prefix from the first event gives (tests compare the
 * two after every event of seeded journals):
 * - the lineages: the same fold applied to the same events in the same order, each lineage in the map
 *   position its first event gave it;
 * - the day records: a day's record is a function of the trades opened or closed on it (the projection
 *   recomputes a day from its trades, in uid order, whatever came before). A trade's record is replaced,
 *   never changed in place, whenever an event changes it, so the days whose record can differ are the
 *   open and close dates of the records an event replaced, added or removed, before and after; those
 *   are recomputed from every trade of the user on them, the others are the same.
 *
 * A state is shared by every view that reads it and never changed: `advance` copies what it folds into.
 */
export interface JournalState {
  userId: string;
  /** Every lineage's state by stream id, in the order of each lineage's first event (a fold from scratch's order). */
  lineages: ReadonlyMap<string, LineageState>;
  /** Every day record by income date. */
  days: ReadonlyMap<string, DailyPremiumRecord>;
  /** The user's events folded. */
  events: number;
  /** The position of the last of them, or null before the first. */
  position: LogPosition | null;
}

export const emptyJournal = (userId: string): JournalState => ({ userId, lineages: new Map(), days: new Map(), events: 0, position: null });

/** A lineage state to fold into without changing `s`: its trades map and split list copied (records are replaced by the fold, never changed). */
export const copyLineage = (s: LineageState): LineageState => ({ ...s, trades: new Map(s.trades), splits: s.splits.slice() });

export interface FoldedTail {
  lineages: Map<string, LineageState>;
  /** Per stream the fold touched: its state before the first of the events (null: the lineage is new). */
  before: Map<string, LineageState | null>;
  events: number;
  position: LogPosition | null;
}

/**
 * Folds `events` (the user's, in log order, all after `from`'s; other users' events are skipped as the
 * projection's `foldUser` skips them) into copies of the lineages they touch.
 */
export function foldTail(userId: string, from: Pick<JournalState, 'lineages' | 'events' | 'position'>, events: readonly StoredEvent[]): FoldedTail {
  const prefix = userStreamPrefix(userId);
  const lineages = new Map(from.lineages);
  const before = new Map<string, LineageState | null>();
  let count = from.events;
  let position = from.position;
  for (const e of events) {
    if (!e.streamId.startsWith(prefix)) continue;
    let state = lineages.get(e.streamId);
    if (!before.has(e.streamId)) {
      before.set(e.streamId, state ?? null);
      state = state ? copyLineage(state) : lineageOfStream(userId, e.streamId);
      lineages.set(e.streamId, state);
    }
    foldEvent(state!, e);
    count++;
    position = e.position;
  }
  return { lineages, before, events: count, position };
}

const addDays = (days: Set<string>, r: TradeRecord) => {
  days.add(r.openDate);
  if (r.close) days.add(r.close.closeDate);
};

/** The days whose record can have changed: open and close dates of every record the fold replaced, added or removed (both versions). */
export function touchedDays(tail: Pick<FoldedTail, 'lineages' | 'before'>): Set<string> {
  const days = new Set<string>();
  for (const [streamId, was] of tail.before) {
    const now = tail.lineages.get(streamId)!;
    for (const [uid, r] of now.trades) {
      const old = was?.trades.get(uid);
      if (old === r) continue;
      addDays(days, r);
      if (old) addDays(days, old);
    }
    if (was) for (const [uid, old] of was.trades) if (!now.trades.has(uid)) addDays(days, old);
  }
  return days;
}

/**
 * The day facts of every trade opened or closed on one of `days` (the trades a day record of those days
 * is computed from, and maybe a few more), each split leg with its position as entered (its split record
 * is in its own lineage).
 */
export function rowsOnDays(lineageStates: Iterable<LineageState>, days: ReadonlySet<string>): DayTrade[] {
  const out: DayTrade[] = [];
  if (!days.size) return out;
  const lineages = [...lineageStates];
  const splits = splitPositions(lineages);
  for (const l of lineages) for (const r of l.trades.values()) if (days.has(r.openDate) || (r.close && days.has(r.close.closeDate))) out.push(dayTradeOf(tradeRow(r), splits));
  return out;
}

/** `days` with the records of `changed` recomputed from `rows` (every trade on them, or their day facts): a day no trade is on any more is gone. */
export function withDays(userId: string, days: ReadonlyMap<string, DailyPremiumRecord>, changed: ReadonlySet<string>, rows: readonly DayTrade[]): Map<string, DailyPremiumRecord> {
  const out = new Map(days);
  if (!changed.size) return out;
  const fresh = new Map(dailyRecords(userId, rows, changed).map((d) => [d.income_date, d]));
  for (const day of changed) {
    const d = fresh.get(day);
    if (d) out.set(day, d);
    else out.delete(day);
  }
  return out;
}

/** The journal after `state` and then `events` (the user's events after `state.position`, in log order), and the streams they touched. */
export function advanceTracked(state: JournalState, events: readonly StoredEvent[]): { state: JournalState; touched: ReadonlySet<string> } {
  const tail = foldTail(state.userId, state, events);
  const changed = touchedDays(tail);
  return {
    state: {
      userId: state.userId,
      lineages: tail.lineages,
      days: withDays(state.userId, state.days, changed, rowsOnDays(tail.lineages.values(), changed)),
      events: tail.events,
      position: tail.position,
    },
    touched: new Set(tail.before.keys()),
  };
}

export const advance = (state: JournalState, events: readonly StoredEvent[]): JournalState => advanceTracked(state, events).state;
