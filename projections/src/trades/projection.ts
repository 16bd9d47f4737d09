import { sql, type Kysely } from 'kysely';
import type { Projection } from '../runtime/projection.ts';
import { FORMULAS_VERSION } from '@oj/contracts/formulas';
import { settleAll } from '@oj/infra/settle';
import { asTables, createTradeCountsTable, createTradeListIndexes, createTradeTables, tradeTables, tradeUpsertSet } from './tables.ts';
import { createSplitHistoryTable, deleteUserSplits } from '../split-history/tables.ts';
import { createDailyPremiumTable, recomputeAllDays } from '../daily-premium/tables.ts';
import { diffRows, RowDiffer, type RowChanges } from '../runtime/row-diff.ts';
import { applyTradeEvents } from './apply.ts';
import { TradesBulkRun } from './bulk-run.ts';
import { allTradeRows, foldUser, readUserRows, userKeyColumns, userRowKeys, userRows, type UserRows } from './user-rows.ts';

/**
 * The trade journal's read models: trades (the lists, roll history and trades-by-date read it),
 * split history and daily premium records. They are one projection because the daily records are
 * recomputed from the trade rows of the same version in the same transaction: two projections would
 * each need their own copy of the trades (or could read a table of another version mid-rebuild), and a
 * rebuild of all would read the log once per projection.
 */
export const TRADES_PROJECTION = 'trades';
export { tradeTables, type TradeTables } from './tables.ts';
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
      on conflict (user_id, uid) do update set ${tradeUpsertSet}`.execute(this.#trx);
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
  async apply(ctx, events) {
    await applyTradeEvents(ctx, events);
  },
  bulkRun: (database) => new TradesBulkRun(database),
  // The day records (in worker threads) while PostgreSQL builds the deferred list indexes on another
  // connection. Both settle before a failure is thrown: the rebuild's lock must outlive the index build.
  async finishBulk(database, t) {
    const tables = asTables(t);
    await settleAll([recomputeAllDays(database, tables), createTradeListIndexes(database.db, tables.trades)]);
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
