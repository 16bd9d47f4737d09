import { sql, type Kysely } from 'kysely';
import { upcast } from '@oj/contracts/events';
import { journalEventVersions, journalUpcasters, userStreamPrefix, type JournalEvent, type JournalEventType } from '@oj/contracts/journal-events';
import { emptyLineage, evolveLineage, type LineageState } from '@oj/contracts/lineage-fold';
import type { TradeRecord } from '@oj/contracts/trade-record';
import type { ProjectedEvent } from '@oj/infra/eventstore/port';
import { listOf, tradeColumns, tradeRowOf, type TradesTable } from './tables.ts';
import { splitRow, type SplitHistoryTable } from '../split-history/tables.ts';
import { dailyPremiumColumns } from '../daily-premium/tables.ts';
import { computeAllDailyRecords, computeDailyRecords, dayKey, dayTradeOf, splitPositionOf, type DailyPremiumRecord, type DayTrade, type DayTradeRow, type SplitPosition } from '../daily-premium/compute.ts';

/**
 * All of one user's rows of the trades projection, computed in memory from the user's lineages with the
 * projection's own code: the fold (`evolveLineage`), a record's row (`tradeRowOf`),
 * the split record (`splitRow`) and the day records (`computeDailyRecords`). The one-user recompute
 * compares them with the live rows and rewrites what differs; the audit's as-of view and Verify read
 * them for any point of a user's history.
 */

const latest = (type: string) => journalEventVersions[type as JournalEventType] ?? 1;

/** What the fold reads of an event. */
export type FoldedEvent = Pick<ProjectedEvent, 'type' | 'schemaVersion' | 'data' | 'revision' | 'metadata'>;

export const asJournalEvent = <E extends FoldedEvent>(e: E): JournalEvent & E => upcast(journalUpcasters, e, latest) as unknown as JournalEvent & E;

/** Folds one event into its lineage's state, as every path of the projection folds it. */
export const foldEvent = (state: LineageState, e: FoldedEvent): void => {
  evolveLineage(state, asJournalEvent(e), { revision: e.revision, at: e.metadata.recordedAt });
};

/** A new lineage state for a stream of the user's (`trade-<userId>.<lineageId>`). */
export const lineageOfStream = (userId: string, streamId: string): LineageState => emptyLineage(userId, streamId.slice(userStreamPrefix(userId).length));

/** The user's events (in log order) folded, by stream id in the order of each stream's first event. Other users' events are skipped. */
export function foldUser(userId: string, events: readonly ProjectedEvent[]): Map<string, LineageState> {
  const prefix = userStreamPrefix(userId);
  const lineages = new Map<string, LineageState>();
  for (const e of events) {
    if (!e.streamId.startsWith(prefix)) continue;
    let state = lineages.get(e.streamId);
    if (!state) lineages.set(e.streamId, (state = lineageOfStream(userId, e.streamId)));
    foldEvent(state, e);
  }
  return lineages;
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
    row = tradeRowOf(rec);
    rowOfRecord.set(rec, row);
  }
  return row;
};

export function allTradeRows(lineages: Iterable<LineageState>): TradesTable[] {
  const out: TradesTable[] = [];
  for (const l of lineages) for (const rec of l.trades.values()) out.push(tradeRow(rec));
  return out;
}

/** The split positions of the lineages, by the broken trade's uid (a split and its legs are in one lineage). */
export function splitPositions(lineages: Iterable<LineageState>): Map<string, SplitPosition> {
  const out = new Map<string, SplitPosition>();
  for (const l of lineages) for (const s of l.splits) out.set(s.auid, splitPositionOf(s));
  return out;
}

/**
 * The day facts of trade rows, each split leg with its position as entered (`splits`: `splitPositions` of
 * the user's lineages, the in-memory counterpart of the split_history join the tables' reads make).
 */
export const dayTradesOf = (rows: Iterable<DayTradeRow>, splits: ReadonlyMap<string, SplitPosition>): DayTrade[] => Array.from(rows, (r) => dayTradeOf(r, splits));

/** Daily premium records of every day a trade was opened or closed on (or only of `onlyDays`). */
export function dailyRecords(userId: string, trades: readonly DayTrade[], onlyDays?: ReadonlySet<string>): DailyPremiumRecord[] {
  if (!onlyDays) return computeAllDailyRecords(trades);
  const keys = new Set<string>();
  for (const t of trades) {
    if (onlyDays.has(t.tod)) keys.add(dayKey(userId, t.tod));
    if (t.tcd !== null && onlyDays.has(t.tcd)) keys.add(dayKey(userId, t.tcd));
  }
  return [...computeDailyRecords(keys, trades).values()];
}

/** A lineage's row (`trade_lineages`). */
export interface LineageRow {
  lid: string;
  user_id: string;
  rev: number;
  has_roll: boolean;
}

export const lineageRow = (l: LineageState): LineageRow => ({ lid: l.lineageId, user_id: l.userId, rev: l.revision, has_roll: l.hasRollHistory });

/** The split records of the lineages (`split_history`). */
export const splitRows = (lineages: readonly LineageState[]): SplitHistoryTable[] => lineages.flatMap((l) => l.splits.map(splitRow));

export interface UserRows {
  trades: TradesTable[];
  trade_lineages: LineageRow[];
  split_history: SplitHistoryTable[];
  daily_premium: DailyPremiumRecord[];
  trade_counts: Array<{ user_id: string; list: number; n: number }>;
}

/**
 * Every row of the user, as the live tables hold them after the folded events. `days`: the day records
 * when the caller has them already (the audit keeps them day by day as it folds; the same records this
 * computes from every trade).
 */
export function userRows(userId: string, lineageStates: Iterable<LineageState>, days?: readonly DailyPremiumRecord[]): UserRows {
  const lineages = [...lineageStates];
  const trades = allTradeRows(lineages);
  const counts = new Map<number, number>();
  for (const t of trades) counts.set(t.list, (counts.get(t.list) ?? 0) + 1);
  return {
    trades,
    trade_lineages: lineages.map(lineageRow),
    split_history: splitRows(lineages),
    daily_premium: days ? [...days] : dailyRecords(userId, dayTradesOf(trades, splitPositions(lineages))),
    trade_counts: [...counts].map(([list, n]) => ({ user_id: userId, list, n })),
  };
}

/** A lineage row's columns and a split row's, in their tables' order. */
export const lineageColumns = ['lid', 'user_id', 'rev', 'has_roll'] as const satisfies readonly (keyof LineageRow)[];
export const splitColumns = ['auid', 'user_id', 'lid', 'trades', 'su', 'gene', 'parent', 'created_at'] as const satisfies readonly (keyof SplitHistoryTable)[];

/** Each table's columns, as its rows are written (COPY takes them in this order). */
export const userColumns: Record<keyof UserRows, readonly string[]> = {
  trades: tradeColumns,
  trade_lineages: lineageColumns,
  split_history: splitColumns,
  daily_premium: dailyPremiumColumns,
  trade_counts: ['user_id', 'list', 'n'],
};

/** Each table's key column within one user, and its SQL type. */
export const userKeyColumns: Record<keyof UserRows, { column: string; type: 'text' | 'date' | 'smallint' }> = {
  trades: { column: 'uid', type: 'text' },
  trade_lineages: { column: 'lid', type: 'text' },
  split_history: { column: 'auid', type: 'text' },
  daily_premium: { column: 'income_date', type: 'date' },
  trade_counts: { column: 'list', type: 'smallint' },
};

/** Each table's key of a row within one user, as text (a row from the table or one computed here). */
export const userRowKeys = Object.fromEntries(
  Object.entries(userKeyColumns).map(([table, { column }]) => [table, (row: Record<string, unknown>) => String(row[column])]),
) as Record<keyof UserRows, (row: any) => string>;

/**
 * The rows one user has in each table of a version (`tables`: physical names by logical name). `only`:
 * just these tables, and `lineagePart`: just the rows whose lineage (`lid`) falls in one part of
 * `parts` by its last character's code point (the audit's Verify reads a user's rows in parts, one per
 * core, with the same rule as its `partOf`); tables without a lineage column ignore it.
 */
export async function readUserRows<T extends keyof UserRows = keyof UserRows>(
  db: Kysely<any>,
  tables: Record<keyof UserRows, string>,
  userId: string,
  options: { only?: readonly T[]; lineagePart?: { part: number; parts: number } } = {},
): Promise<Record<T, Record<string, unknown>[]>> {
  const names = (options.only ?? Object.keys(userKeyColumns)) as T[];
  const part = (t: T) =>
    options.lineagePart && lineageColumnTables.has(t) ? sql`and ascii(right(lid, 1)) % ${options.lineagePart.parts} = ${options.lineagePart.part}` : sql``;
  const rows = await Promise.all(names.map(async (t) => (await sql<Record<string, unknown>>`select * from ${sql.table(tables[t])} where user_id = ${userId} ${part(t)}`.execute(db)).rows));
  return Object.fromEntries(names.map((t, i) => [t, rows[i]!])) as Record<T, Record<string, unknown>[]>;
}

/** Tables whose rows name their lineage (`lid`). */
const lineageColumnTables = new Set<keyof UserRows>(['trades', 'trade_lineages', 'split_history']);

export { listOf };
