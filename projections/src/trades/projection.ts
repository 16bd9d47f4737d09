import { sql, type Kysely } from 'kysely';
import { lineageStreamId, userStreamPrefix } from '@oj/contracts/journal-events';
import type { StoredEvent } from '@oj/infra/eventstore/port';
import type { Projection, ProjectionContext } from '../runtime/projection.ts';
import { FORMULAS_VERSION } from '@oj/contracts/formulas';
import { emptyLineage, type LineageState, type SplitRecord } from '@oj/contracts/lineage-fold';
import type { TradeRecord } from '@oj/contracts/trade-record';
import { addTradeCounts, createTradeCountsTable, createTradeListIndexes, createTradeTables, listOf, rowToRecord, tradeColumns, tradeRowOf, type TradeRow, type TradesTable } from './tables.ts';
import { createSplitHistoryTable, deleteUserSplits, insertSplits } from '../split-history/tables.ts';
import { createDailyPremiumTable, dayKey, recomputeAllDays, recomputeDays } from '../daily-premium/tables.ts';
import { diffRows, RowDiffer, type RowChanges } from '../runtime/row-diff.ts';
import { TradesBulkSegment } from './bulk-segment.ts';
import { allTradeRows, foldEvent, foldUser, readUserRows, userKeyColumns, userRowKeys, userRows, type UserRows } from './user-rows.ts';

/**
 * The trade journal's read models: trades (the lists, roll history and trades-by-date read it),
 * split history and daily premium records. They are one projection because the daily records are
 * recomputed from the trade rows of the same version in the same transaction: two projections would
 * each need their own copy of the trades (or could read a table of another version mid-rebuild), and a
 * rebuild of all would read the log once per projection.
 */
export const TRADES_PROJECTION = 'trades';
export const tradeTables = ['trades', 'trade_lineages', 'split_history', 'daily_premium', 'trade_counts'] as const;
export type TradeTables = Record<(typeof tradeTables)[number], string>;

function asTables(t: Record<string, string>): TradeTables {
  for (const name of tradeTables) if (!t[name]) throw new Error(`Missing table ${name} for the trades projection`);
  return t as TradeTables;
}

interface Loaded {
  state: LineageState;
  /** The records as read, by uid: a record whose object is still the same after the fold is unchanged. */
  before: Map<string, TradeRecord>;
  revBefore: number;
  splitsBefore: number;
}

const upsertSet = sql.raw(
  tradeColumns
    .filter((c) => c !== 'uid' && c !== 'user_id')
    .map((c) => `${c} = excluded.${c}`)
    .join(', '),
);

/** Lineages per part of a one-user rewrite's trade rows (about as many trades; tests set it low). */
export const rewriteTuning = { partLineages: 8_000 };

/**
 * Writes a one-user recompute's differences. The trade rows come a part at a time: each part is one
 * upsert (rows the table lacks are inserted, rows that differ replaced whole), queued on the
 * transaction's connection without waiting, so PostgreSQL writes one part while the caller computes
 * the next (`sent` lets it go out first). Parts hold different keys, so their order does not matter.
 * Any other write waits for its statements in order: a row that differs is removed and then written
 * again (a count row of 0 is removed: the log never gives one). `done` waits for the queued parts and
 * throws the first failure (after one fails, PostgreSQL refuses the rest).
 */
class RowRewriter {
  readonly #pending: Promise<unknown>[] = [];
  readonly #trx: Kysely<any>;
  readonly #userId: string;

  constructor(trx: Kysely<any>, userId: string) {
    this.#trx = trx;
    this.#userId = userId;
  }

  queueTrades(physical: string, rows: readonly object[]): void {
    if (!rows.length) return;
    const T = sql.table(physical);
    const p = sql`insert into ${T} select * from json_populate_recordset(null::${T}, ${JSON.stringify(rows)}::json)
      on conflict (user_id, uid) do update set ${upsertSet}`.execute(this.#trx);
    p.catch(() => {}); // awaited in done()
    this.#pending.push(p);
  }

  /** Lets the parts queued so far go out on the connection. */
  sent(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve));
  }

  async delete(physical: string, table: keyof UserRows, keys: readonly string[]): Promise<void> {
    if (!keys.length) return;
    const { column, type } = userKeyColumns[table];
    await sql`delete from ${sql.table(physical)} where user_id = ${this.#userId} and ${sql.ref(column)} = any(${keys}::${sql.raw(type)}[])`.execute(this.#trx);
  }

  async replace(physical: string, table: keyof UserRows, differs: ReadonlyArray<{ key: string; replayed: object }>, only: readonly object[]): Promise<void> {
    await this.delete(
      physical,
      table,
      differs.map((x) => x.key),
    );
    const write = [...only, ...differs.map((x) => x.replayed)];
    if (!write.length) return;
    const T = sql.table(physical);
    await sql`insert into ${T} select * from json_populate_recordset(null::${T}, ${JSON.stringify(write)}::json)`.execute(this.#trx);
  }

  async done(): Promise<void> {
    await Promise.all(this.#pending);
  }

  /**
   * Waits for every queued part, failed or not, and returns the first part's failure: after it, every
   * later statement of the transaction fails with "current transaction is aborted", which says nothing.
   */
  async firstFailure(): Promise<unknown> {
    const settled = await Promise.allSettled(this.#pending);
    return settled.find((r): r is PromiseRejectedResult => r.status === 'rejected')?.reason;
  }
}

/** Applies journal events: loads the touched lineages in two reads, folds in memory, writes back in bulk. */
export async function applyTradeEvents(ctx: ProjectionContext, events: readonly StoredEvent[]): Promise<void> {
  const tables = asTables(ctx.tables);
  const trx = ctx.trx;
  const byLineage = new Map<string, StoredEvent[]>();
  for (const e of events) {
    const prefix = userStreamPrefix(e.metadata.userId);
    if (!e.streamId.startsWith(prefix)) continue;
    let list = byLineage.get(e.streamId);
    if (!list) byLineage.set(e.streamId, (list = []));
    list.push(e);
  }
  if (!byLineage.size) return;
  // A bulk batch of a version that is not live yet: if a crash loses its commit, the rebuild resumes
  // before it. So it need not wait for the WAL flush. (Live batches keep the default: BullMQ's
  // bookkeeping in Redis must not run ahead of what is durable; so do a switch's catch-up and a one-user
  // recompute, which write the live version.)
  if (ctx.mode === 'bulk') await sql`set local synchronous_commit = off`.execute(trx);
  // Lineages are keyed by (user, lineage id): the stream names both.
  const keyJson = JSON.stringify(
    [...byLineage].map(([streamId, evs]) => {
      const u = evs[0]!.metadata.userId;
      return { u, l: streamId.slice(userStreamPrefix(u).length) };
    }),
  );
  // A one-user recompute does not come here (`recomputeUser` below): every batch loads what it touches.
  const guards = (
    await sql<{ lid: string; user_id: string; rev: number; has_roll: boolean }>`
    select g.lid, g.user_id, g.rev, g.has_roll from json_to_recordset(${keyJson}::json) as k(u text, l text)
    join ${sql.table(tables.trade_lineages)} g on g.user_id = k.u and g.lid = k.l`.execute(trx)
  ).rows;
  const rows = (
    await sql<TradeRow>`
    select t.* from json_to_recordset(${keyJson}::json) as k(u text, l text)
    join ${sql.table(tables.trades)} t on t.user_id = k.u and t.lid = k.l`.execute(trx)
  ).rows;

  const loaded = new Map<string, Loaded>();
  for (const [streamId, evs] of byLineage) {
    const userId = evs[0]!.metadata.userId;
    const state = emptyLineage(userId, streamId.slice(userStreamPrefix(userId).length));
    loaded.set(lineageStreamId(userId, state.lineageId), { state, before: new Map(), revBefore: -1, splitsBefore: 0 });
  }
  for (const g of guards) {
    const l = loaded.get(lineageStreamId(g.user_id, g.lid))!;
    l.state.revision = l.revBefore = Number(g.rev);
    l.state.hasRollHistory = g.has_roll;
  }
  for (const row of rows) {
    const l = loaded.get(lineageStreamId(row.user_id, row.lid))!;
    const rec = rowToRecord(row);
    l.state.trades.set(rec.uid, rec);
    l.before.set(rec.uid, rec);
  }

  for (const [streamId, evs] of byLineage) {
    const { state } = loaded.get(streamId)!;
    for (const e of evs) foldEvent(state, e);
  }

  const upserts: TradesTable[] = [];
  const deleted: Array<{ u: string; id: string }> = [];
  const lineageRows: Array<{ lid: string; user_id: string; rev: number; has_roll: boolean }> = [];
  const splits: SplitRecord[] = [];
  const days = new Set<string>();
  const counts = new Map<string, { u: string; list: number; d: number }>();
  const count = (r: TradeRecord, d: number) => {
    const list = listOf(r.status);
    const k = `${r.userId}\u0000${list}`;
    const c = counts.get(k) ?? { u: r.userId, list, d: 0 };
    c.d += d;
    counts.set(k, c);
  };
  const touch = (r: TradeRecord) => {
    days.add(dayKey(r.userId, r.openDate));
    if (r.close) days.add(dayKey(r.userId, r.close.closeDate));
  };
  for (const { state, before, revBefore } of loaded.values()) {
    if (state.revision === revBefore) continue;
    lineageRows.push({ lid: state.lineageId, user_id: state.userId, rev: state.revision, has_roll: state.hasRollHistory });
    splits.push(...state.splits);
    for (const [uid, old] of before) {
      const now = state.trades.get(uid);
      if (now === old) continue;
      touch(old);
      count(old, -1);
      if (!now) deleted.push({ u: state.userId, id: uid });
    }
    for (const [uid, rec] of state.trades) {
      if (before.get(uid) === rec) continue;
      touch(rec);
      count(rec, 1);
      // Closed trades' figures do not depend on the date; open trades' days open are counted when read.
      upserts.push(tradeRowOf(rec));
    }
  }

  if (deleted.length) {
    await sql`delete from ${sql.table(tables.trades)} where (user_id, uid) in (select u, id from json_to_recordset(${JSON.stringify(deleted)}::json) as d(u text, id text))`.execute(trx);
  }
  if (upserts.length) {
    const T = sql.table(tables.trades);
    await sql`insert into ${T} select * from json_populate_recordset(null::${T}, ${JSON.stringify(upserts)}::json) on conflict (user_id, uid) do update set ${upsertSet}`.execute(trx);
  }
  if (lineageRows.length) {
    const L = sql.table(tables.trade_lineages);
    await sql`insert into ${L} select * from json_populate_recordset(null::${L}, ${JSON.stringify(lineageRows)}::json)
      on conflict (user_id, lid) do update set rev = excluded.rev, has_roll = excluded.has_roll`.execute(trx);
  }
  await addTradeCounts(trx, tables.trade_counts, [...counts.values()]);
  await insertSplits(trx, tables.split_history, splits);
  // In bulk, a day is touched by many batches (opens, then closes and rolls weeks later): finishBulk
  // computes every day once from the finished trade rows instead.
  if (ctx.mode !== 'bulk') await recomputeDays(trx, tables, days);
}

/** The read models' shape version; with the formulas' version it makes the projection's version. */
const SHAPE_VERSION = 2;

export const tradesProjection: Projection = {
  name: TRADES_PROJECTION,
  // Bumped by either a formula change or a table change: both need a rebuild beside the live version.
  version: FORMULAS_VERSION * 100 + SHAPE_VERSION,
  tables: tradeTables,
  streamPrefixes: ['trade-'],
  async createTables(db, t, options) {
    const tables = asTables(t);
    await createTradeTables(db, tables.trades, tables.trade_lineages, { deferListIndexes: options?.bulk === true });
    await createSplitHistoryTable(db, tables.split_history);
    await createDailyPremiumTable(db, tables.daily_premium);
    await createTradeCountsTable(db, tables.trade_counts);
    // Versions projected before lists at 0 lost their rows still hold some: removed when the version is
    // opened (at every start), so live and a rebuild compare equal. A concurrent batch that raises one
    // first is safe: the delete re-checks n on the row it waited for.
    await sql`delete from ${sql.table(tables.trade_counts)} where n = 0`.execute(db);
  },
  apply: applyTradeEvents,
  bulkSegment: () => new TradesBulkSegment(),
  // The days are computed (Node) while PostgreSQL builds the deferred list indexes (another connection).
  async finishBulk(database, t) {
    const tables = asTables(t);
    // Both settle before a failure is thrown: the rebuild's lock must outlive the index build.
    const settled = await Promise.allSettled([recomputeAllDays(database, tables), createTradeListIndexes(database.db, tables.trades)]);
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  },
  async recomputeUser(ctx, userId, events) {
    const tables = asTables(ctx.tables);
    const [all, live] = await Promise.all([events(), readUserRows(ctx.trx, tables, userId)]);
    const lineages = [...foldUser(userId, all).values()];
    const writer = new RowRewriter(ctx.trx, userId);
    const changes: Record<string, RowChanges> = {};
    try {
      // The trade rows (by far the most) are compared and written a part at a time: PostgreSQL writes
      // one part while the next is computed, compared and serialised.
      const trades = new RowDiffer<object>(live.trades, userRowKeys.trades);
      const counted: RowChanges = { inserted: 0, updated: 0, deleted: 0 };
      for (let i = 0, n = rewriteTuning.partLineages; i < lineages.length; i += n) {
        const part = trades.add(allTradeRows(lineages.slice(i, i + n)));
        writer.queueTrades(tables.trades, [...part.onlyReplayed, ...part.differs.map((x) => x.replayed)]);
        counted.inserted += part.onlyReplayed.length;
        counted.updated += part.differs.length;
        await writer.sent();
      }
      const gone = trades.rest();
      await writer.delete(tables.trades, 'trades', gone);
      changes.trades = { ...counted, deleted: gone.length };
      // The other tables from the same lineages (their trade rows are computed once, above).
      const replayed = userRows(userId, lineages);
      for (const table of tradeTables) {
        if (table === 'trades') continue;
        const d = diffRows(live[table], replayed[table] as readonly object[], userRowKeys[table]);
        changes[table] = { inserted: d.onlyReplayed.length, updated: d.differs.length, deleted: d.onlyLive.length };
        await writer.delete(tables[table], table, d.onlyLive);
        await writer.replace(tables[table], table, d.differs, d.onlyReplayed);
      }
    } catch (error) {
      throw (await writer.firstFailure()) ?? error;
    }
    await writer.done();
    return changes;
  },
  async deleteUser(ctx, userId) {
    const tables = asTables(ctx.tables);
    await sql`delete from ${sql.table(tables.trades)} where user_id = ${userId}`.execute(ctx.trx);
    await sql`delete from ${sql.table(tables.trade_lineages)} where user_id = ${userId}`.execute(ctx.trx);
    await deleteUserSplits(ctx.trx, tables.split_history, userId);
    await sql`delete from ${sql.table(tables.daily_premium)} where user_id = ${userId}`.execute(ctx.trx);
    await sql`delete from ${sql.table(tables.trade_counts)} where user_id = ${userId}`.execute(ctx.trx);
  },
  async countRows(db: Kysely<any>, t) {
    const out: Record<string, number> = {};
    for (const name of tradeTables) {
      const r = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(t[name]!)}`.execute(db);
      out[name] = Number(r.rows[0]?.n ?? 0);
    }
    return out;
  },
};
