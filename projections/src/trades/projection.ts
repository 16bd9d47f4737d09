import { sql, type Kysely } from 'kysely';
import type { Projection, UserRecomputeContext } from '../runtime/projection.ts';
import { FORMULAS_VERSION } from '@oj/contracts/formulas';
import type { LineageState } from '@oj/contracts/lineage-fold';
import { settleAll } from '@oj/infra/settle';
import { asTables, createTradeCountsTable, createTradeListIndexes, createTradeTables, tradeTables } from './tables.ts';
import { createSplitHistoryTable, deleteUserSplits } from '../split-history/tables.ts';
import { createDailyPremiumTable, recomputeAllDays } from '../daily-premium/tables.ts';
import { diffRows, RowDiffer, type RowChanges } from '../runtime/row-diff.ts';
import { applyTradeEvents } from './apply.ts';
import { TradesBulkRun } from './bulk-run.ts';
import { allTradeRows, foldUser, readUserRows, userColumns, userKeyColumns, userRowKeys, userRows, type UserRows } from './user-rows.ts';

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
 * Writes a one-user recompute's differences, a part at a time: each part removes the rows it replaces
 * or drops (one `delete` by key), then loads the rows it adds or replaces (`load`: COPY on PostgreSQL).
 * A part is queued behind the parts before it without waiting, so PostgreSQL writes one part while the
 * caller computes the next; parts hold different keys, so nothing else orders them. Removing and loading
 * again, not upserting: with every one of a heavy user's 96,027 trade rows wrong, an upsert took 4.4 to
 * 4.9 s in PostgreSQL and the delete and COPY 2.7 to 3.1 s (each replaced row's indexes are written
 * either way; the upsert also probes and locks the old row and updates it in place), and the rows go as
 * COPY's binary format instead of one JSON text of 55 MB parsed by `json_populate_recordset`.
 */
class RowRewriter {
  #chain: Promise<void> = Promise.resolve();
  readonly #ctx: UserRecomputeContext;
  readonly #tables: Record<keyof UserRows, string>;
  readonly #userId: string;

  constructor(ctx: UserRecomputeContext, tables: Record<keyof UserRows, string>, userId: string) {
    this.#ctx = ctx;
    this.#tables = tables;
    this.#userId = userId;
  }

  /**
   * Queues one part of a table's rewrite: the rows keyed `remove` deleted, then `rows` loaded. After a
   * part fails, later parts do not run (PostgreSQL would refuse them) and `done` throws its failure.
   */
  queue(table: keyof UserRows, remove: readonly string[], rows: readonly object[]): void {
    if (!remove.length && !rows.length) return;
    const physical = this.#tables[table];
    this.#chain = this.#chain.then(async () => {
      if (remove.length) {
        const { column, type } = userKeyColumns[table];
        await sql`delete from ${sql.table(physical)} where user_id = ${this.#userId} and ${sql.ref(column)} = any(${remove}::${sql.raw(type)}[])`.execute(this.#ctx.trx);
      }
      if (rows.length) await this.#ctx.load(physical, userColumns[table], rows as never[]);
    });
    this.#chain.catch(() => {}); // the failure is thrown by done() or returned by settled()
  }

  /** Lets the parts queued so far go out on the connection. */
  sent(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve));
  }

  /** Waits for every queued part; throws the first part's failure. */
  done(): Promise<void> {
    return this.#chain;
  }

  /**
   * After the caller failed: waits for the parts under way (none may run after the transaction rolls
   * back) and returns the first part's failure, if one failed: after it, every later statement of the
   * transaction fails with "current transaction is aborted", which says nothing.
   */
  async settled(): Promise<unknown> {
    return this.#chain.then(
      () => undefined,
      (e: unknown) => e,
    );
  }
}

/** The read models' shape version; with the formulas' version it makes the projection's version. */
const SHAPE_VERSION = 3;

export const tradesProjection: Projection = {
  name: TRADES_PROJECTION,
  // Bumped by either a formula change or a table change: both need a rebuild beside the live version.
  version: FORMULAS_VERSION * 100 + SHAPE_VERSION,
  tables: tradeTables,
  streamPrefixes: ['trade-'],
  // Codes of the spec (trade status, list, open and close transaction), not amounts: compared per value.
  categoryColumns: { trades: ['status', 'list', 'ot', 'ct'], trade_counts: ['list'] },
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
  async recomputeUser(ctx, userId, streams) {
    const tables = asTables(ctx.tables);
    // The events' read starts now, beside the read of the live rows.
    const reading = streams[Symbol.asyncIterator]();
    let next = reading.next();
    next.catch(() => {}); // awaited below, unless the rows' read failed first
    const writer = new RowRewriter(ctx, tables, userId);
    const changes: Record<string, RowChanges> = {};
    try {
      const live = await readUserRows(ctx.trx, tables, userId);
      // The trade rows (by far the most) are compared and written a part of the lineages at a time, as
      // their streams arrive: PostgreSQL writes one part while the next is read, folded and compared.
      const trades = new RowDiffer<object>(live.trades, userRowKeys.trades);
      const counted: RowChanges = { inserted: 0, updated: 0, deleted: 0 };
      const lineages: LineageState[] = [];
      let compared = 0;
      const comparePart = async () => {
        const part = trades.add(allTradeRows(lineages.slice(compared)));
        compared = lineages.length;
        writer.queue(
          'trades',
          part.differs.map((x) => x.key),
          [...part.onlyReplayed, ...part.differs.map((x) => x.replayed)],
        );
        counted.inserted += part.onlyReplayed.length;
        counted.updated += part.differs.length;
        await writer.sent();
      };
      for (let r = await next; !r.done; r = await (next = reading.next())) {
        // Whole streams: each one's lineage is final once folded.
        for (const lineage of foldUser(userId, r.value).values()) lineages.push(lineage);
        if (lineages.length - compared >= rewriteTuning.partLineages) await comparePart();
      }
      if (lineages.length > compared) await comparePart();
      const gone = trades.rest();
      writer.queue('trades', gone, []);
      changes.trades = { ...counted, deleted: gone.length };
      // The other tables from the same lineages (their trade rows are computed once, above).
      const replayed = userRows(userId, lineages);
      for (const table of tradeTables) {
        if (table === 'trades') continue;
        const d = diffRows(live[table], replayed[table] as readonly object[], userRowKeys[table]);
        changes[table] = { inserted: d.onlyReplayed.length, updated: d.differs.length, deleted: d.onlyLive.length };
        writer.queue(table, [...d.onlyLive, ...d.differs.map((x) => x.key)], [...d.onlyReplayed, ...d.differs.map((x) => x.replayed)]);
      }
    } catch (error) {
      // The read stopped (its connection closed, not left mid-cursor) before the failure is thrown.
      await reading.return?.().catch(() => {});
      throw (await writer.settled()) ?? error;
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
