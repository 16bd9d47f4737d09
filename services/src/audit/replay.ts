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

/** A trade's row as the projection writes it (closed trades' figures at their close date). */
export const tradeRow = (rec: TradeRecord): TradesTable => recordToRow(rec, toListItem(rec, rec.close?.closeDate ?? rec.openDate));

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
