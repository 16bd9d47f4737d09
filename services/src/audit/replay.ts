import { journalEventVersions, journalUpcasters, userStreamPrefix, type JournalEvent, type JournalEventType } from '@oj/contracts/journal-events';
import { upcast } from '@oj/contracts/events';
import type { StoredEvent } from '@oj/infra/eventstore/port';
import { emptyLineage, evolveLineage, type LineageState } from '@oj/contracts/lineage-fold';
import { toListItem, type TradeRecord } from '@oj/contracts/trade-record';
import { listOf, recordToRow, type TradesTable } from '@oj/projections/trades/tables';
import { splitRow, type SplitHistoryTable } from '@oj/projections/split-history/tables';
import { computeDailyRecords, dayKey, type DailyPremiumRecord } from '@oj/projections/daily-premium/compute';
import { FORMULAS_VERSION } from '@oj/contracts/formulas';

/**
 * A user's read models rebuilt in memory from the user's events, through the trades projection's own
 * code: the fold (`evolveLineage`), the row of a record (`recordToRow` over `toListItem`, the formulas),
 * the split record (`splitRow`) and the daily premium computation (`computeDailyRecords`). What
 * `applyTradeEvents` adds around these is loading rows and writing them back in bulk; a replay keeps the
 * lineages in memory instead, so an as-of view of 250,000 events needs no scratch tables.
 *
 * Rows come out in the shape of the live tables (`trades`, `trade_lineages`, `split_history`,
 * `daily_premium`, `trade_counts`), so Verify compares them with the live rows field by field.
 */

/**
 * Formula versions the replay can run. The formulas module holds one implementation, the live one: an
 * older version is registered here when the module keeps its code beside a newer one.
 */
export const formulaVersions: readonly number[] = [FORMULAS_VERSION];

const latest = (type: string) => journalEventVersions[type as JournalEventType] ?? 1;

export interface Replay {
  userId: string;
  /** By stream id. */
  lineages: Map<string, LineageState>;
  events: number;
  last: StoredEvent | null;
}

export const newReplay = (userId: string): Replay => ({ userId, lineages: new Map(), events: 0, last: null });

export function asJournalEvent(e: StoredEvent): JournalEvent & StoredEvent {
  return upcast(journalUpcasters, e, latest) as unknown as JournalEvent & StoredEvent;
}

export function lineageOf(replay: Replay, streamId: string): LineageState {
  let state = replay.lineages.get(streamId);
  if (!state) {
    state = emptyLineage(replay.userId, streamId.slice(userStreamPrefix(replay.userId).length));
    replay.lineages.set(streamId, state);
  }
  return state;
}

/** Folds one event (in log order) exactly as the projection folds it. */
export function applyEvent(replay: Replay, e: StoredEvent): void {
  if (!e.streamId.startsWith(userStreamPrefix(replay.userId))) return;
  evolveLineage(lineageOf(replay, e.streamId), asJournalEvent(e), { revision: e.revision, at: e.metadata.recordedAt });
  replay.events += 1;
  replay.last = e;
}

export function replayEvents(userId: string, events: readonly StoredEvent[]): Replay {
  const r = newReplay(userId);
  for (const e of events) applyEvent(r, e);
  return r;
}

/**
 * A whole log folded once, keeping every lineage's state after each of its events, so the user's
 * journal right after any event is read without folding again: each lineage as of its last event
 * before that point (a lineage holds a few events, so its states are a short list). A state is folded
 * into a copy of the one before it (its trades map and split list copied; trade and split records are
 * replaced by the fold, never changed in place), so a stored state never changes. Every state it hands
 * out is shared: only read, never folded further.
 */
export interface ReplayHistory {
  userId: string;
  /** The events folded, in log order (the user's cached log). */
  events: readonly StoredEvent[];
  /** Stream ids in the order of their first event (the order a replay from scratch meets them). */
  streams: string[];
  /** Per stream: the log index of each of its events, ascending, and the lineage state right after it. */
  steps: Map<string, { at: number[]; states: LineageState[] }>;
}

export function buildHistory(userId: string, events: readonly StoredEvent[]): ReplayHistory {
  const prefix = userStreamPrefix(userId);
  const h: ReplayHistory = { userId, events, streams: [], steps: new Map() };
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (!e.streamId.startsWith(prefix)) continue;
    let steps = h.steps.get(e.streamId);
    if (!steps) {
      steps = { at: [], states: [] };
      h.steps.set(e.streamId, steps);
      h.streams.push(e.streamId);
    }
    const prev = steps.states.at(-1) ?? emptyLineage(userId, e.streamId.slice(prefix.length));
    const next: LineageState = { ...prev, trades: new Map(prev.trades), splits: prev.splits.slice() };
    evolveLineage(next, asJournalEvent(e), { revision: e.revision, at: e.metadata.recordedAt });
    steps.at.push(i);
    steps.states.push(next);
  }
  return h;
}

/** The index in `at` of the last entry below `n`, or -1. */
function lastBelow(at: readonly number[], n: number): number {
  let lo = 0;
  let hi = at.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (at[mid]! < n) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * The replay of the first `n` events of the log, from the history: what `replayEvents(userId,
 * events.slice(0, n))` gives (the same lineages in the same order, each in the same state).
 */
export function replayAt(h: ReplayHistory, n: number): Replay {
  const lineages = new Map<string, LineageState>();
  let events = 0;
  let last = -1;
  for (const streamId of h.streams) {
    const steps = h.steps.get(streamId)!;
    const k = lastBelow(steps.at, n);
    if (k < 0) continue;
    lineages.set(streamId, steps.states[k]!);
    events += k + 1;
    if (steps.at[k]! > last) last = steps.at[k]!;
  }
  return { userId: h.userId, lineages, events, last: last >= 0 ? h.events[last]! : null };
}

/** The lineage state just before and right after the event at log index `i`. */
export function statesAround(h: ReplayHistory, i: number): { before: LineageState; after: LineageState } {
  const e = h.events[i]!;
  const steps = h.steps.get(e.streamId);
  const k = steps ? steps.at.indexOf(i) : -1;
  if (!steps || k < 0) throw new Error(`event ${i} is not in the history`);
  return { before: steps.states[k - 1] ?? emptyLineage(h.userId, e.streamId.slice(userStreamPrefix(h.userId).length)), after: steps.states[k]! };
}

/**
 * A trade record's row is a function of the record alone (a closed trade's figures at its close date,
 * an open one's at its open date), and the fold replaces a record whenever it changes it: so each
 * record's row is computed once and shared by every view that holds the record. Rows are only read.
 */
const rowOfRecord = new WeakMap<TradeRecord, TradesTable>();

/** A trade's row as the projection writes it (closed trades' figures at their close date). */
export const tradeRow = (rec: TradeRecord): TradesTable => {
  let row = rowOfRecord.get(rec);
  if (!row) {
    row = recordToRow(rec, toListItem(rec, rec.close?.closeDate ?? rec.openDate));
    rowOfRecord.set(rec, row);
  }
  return row;
};

export interface ReplayRows {
  trades: TradesTable[];
  trade_lineages: Array<{ lid: string; user_id: string; rev: number; has_roll: boolean }>;
  split_history: SplitHistoryTable[];
  daily_premium: DailyPremiumRecord[];
  trade_counts: Array<{ user_id: string; list: number; n: number }>;
}

export function allTradeRows(replay: Replay): TradesTable[] {
  const out: TradesTable[] = [];
  for (const l of replay.lineages.values()) for (const rec of l.trades.values()) out.push(tradeRow(rec));
  return out;
}

/** Daily premium records of every day a trade was opened or closed on. */
export function dailyRecords(userId: string, trades: readonly TradesTable[], onlyDays?: ReadonlySet<string>): DailyPremiumRecord[] {
  const keys = new Set<string>();
  for (const t of trades) {
    if (!onlyDays || onlyDays.has(t.tod)) keys.add(dayKey(userId, t.tod));
    if (t.tcd !== null && (!onlyDays || onlyDays.has(t.tcd))) keys.add(dayKey(userId, t.tcd));
  }
  return [...computeDailyRecords(keys, trades).values()];
}

/** Every read-model row of the user, as the live tables would hold them after the replayed events. */
export function replayRows(replay: Replay): ReplayRows {
  const trades = allTradeRows(replay);
  const counts = new Map<number, number>();
  for (const t of trades) counts.set(t.list, (counts.get(t.list) ?? 0) + 1);
  const lineages = [...replay.lineages.values()];
  return {
    trades,
    trade_lineages: lineages.map((l) => ({ lid: l.lineageId, user_id: l.userId, rev: l.revision, has_roll: l.hasRollHistory })),
    split_history: lineages.flatMap((l) => l.splits.map(splitRow)),
    daily_premium: dailyRecords(replay.userId, trades),
    trade_counts: [...counts].map(([list, n]) => ({ user_id: replay.userId, list, n })),
  };
}

export { listOf };
