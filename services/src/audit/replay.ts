import { userStreamPrefix } from '@oj/contracts/journal-events';
import type { StoredEvent } from '@oj/infra/eventstore/port';
import type { LineageState } from '@oj/contracts/lineage-fold';
import { FORMULAS_VERSION } from '@oj/contracts/formulas';
import { allTradeRows as tradeRowsOf, asJournalEvent, dailyRecords, dayTradesOf, foldEvent, foldUser, lineageOfStream, listOf, splitPositions, tradeRow, userRows, type UserRows } from '@oj/projections/trades/user-rows';
import type { DayTrade } from '@oj/projections/daily-premium/compute';
import type { TradesTable } from '@oj/projections/trades/tables';

/**
 * A user's read models rebuilt in memory from the user's events, through the trades projection's own
 * code (projections/src/trades/user-rows.ts: the fold, the rows of the lineages, the day records), the
 * code the one-user recompute writes from. A replay keeps the lineages in memory, so an as-of view of
 * 250,000 events needs no scratch tables.
 *
 * Rows come out in the shape of the live tables (`trades`, `trade_lineages`, `split_history`,
 * `daily_premium`, `trade_counts`), so Verify compares them with the live rows field by field.
 */

/**
 * Formula versions the replay can run. The formulas module holds one implementation, the live one: an
 * older version is registered here when the module keeps its code beside a newer one.
 */
export const formulaVersions: readonly number[] = [FORMULAS_VERSION];

export interface Replay {
  userId: string;
  /** By stream id, in the order of each stream's first event. Only read: states are shared. */
  lineages: ReadonlyMap<string, LineageState>;
  events: number;
  last: StoredEvent | null;
}

/** A replay folded event by event in place (the CSV export's walk through the log). */
export interface FoldingReplay extends Replay {
  lineages: Map<string, LineageState>;
}

export const newReplay = (userId: string): FoldingReplay => ({ userId, lineages: new Map(), events: 0, last: null });

export function lineageOf(replay: FoldingReplay, streamId: string): LineageState {
  let state = replay.lineages.get(streamId);
  if (!state) {
    state = lineageOfStream(replay.userId, streamId);
    replay.lineages.set(streamId, state);
  }
  return state;
}

/** Folds one event (in log order) exactly as the projection folds it. */
export function applyEvent(replay: FoldingReplay, e: StoredEvent): void {
  if (!e.streamId.startsWith(userStreamPrefix(replay.userId))) return;
  foldEvent(lineageOf(replay, e.streamId), e);
  replay.events += 1;
  replay.last = e;
}

/** The user's whole log folded (the projection's `foldUser`). */
export function replayEvents(userId: string, events: readonly StoredEvent[]): Replay {
  const lineages = foldUser(userId, events);
  const prefix = userStreamPrefix(userId);
  let count = 0;
  let last: StoredEvent | null = null;
  for (const e of events) {
    if (!e.streamId.startsWith(prefix)) continue;
    count++;
    last = e;
  }
  return { userId, lineages, events: count, last };
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
    const prev = steps.states.at(-1) ?? lineageOfStream(userId, e.streamId);
    const next: LineageState = { ...prev, trades: new Map(prev.trades), splits: prev.splits.slice() };
    foldEvent(next, e);
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
  return { before: steps.states[k - 1] ?? lineageOfStream(h.userId, e.streamId), after: steps.states[k]! };
}

export type ReplayRows = UserRows;

export const allTradeRows = (replay: Replay): TradesTable[] => tradeRowsOf(replay.lineages.values());
/** Every trade's day facts, each split leg with its position as entered (what `dailyRecords` reads). */
export const allDayTrades = (replay: Replay): DayTrade[] => dayTradesOf(allTradeRows(replay), splitPositions(replay.lineages.values()));

/** Every read-model row of the user, as the live tables would hold them after the replayed events. */
export const replayRows = (replay: Replay): ReplayRows => userRows(replay.userId, replay.lineages.values());

export { asJournalEvent, dailyRecords, dayTradesOf, listOf, splitPositions, tradeRow };
