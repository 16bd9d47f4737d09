import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { migrateToLatest } from '@oj/infra/db/migrate';
import { migrations as storeMigrations } from '@oj/infra/eventstore/migrations';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { START, comparePositions, type LogPosition, type StoredEvent } from '@oj/infra/eventstore/port';
import { migrations as runtimeMigrations } from '../runtime/migrations.ts';
import { physicalTables } from '../runtime/projection.ts';
import { liveRow, liveTables, readRegistry } from '../runtime/registry.ts';
import { diffFigures } from '../runtime/diff-figures.ts';
import { applyLaneBatch } from '../runtime/apply.ts';
import { laneOf } from '../runtime/lanes.ts';
import { diff, rebuild } from '../runtime/rebuild.ts';
import { computeDailyRecords, dayKey, type DayTrade } from '../daily-premium/compute.ts';
import { tradesProjection } from './projection.ts';
import { JournalLog, smallJournal, terms } from './testing.ts';

/**
 * Issue 16, defect 10: a version built live (one-event lane batches) and the same log rebuilt (bulk
 * batches, then the daily records computed once) must be equal row for row, so `diff` says
 * "identical". Two ways they were not: per-list counts that went back to 0 stayed live as rows with
 * n = 0 that a rebuild never writes, and the daily records' float sums followed the order trades came
 * back in when trades tied on the sort key.
 */

/** Three puts opened the same day on the same terms but their deltas: 0.005 + 0.565 + 0.695 rounds to 1.27 or 1.26 by order. */
function tiedJournal(log: JournalLog, user: string): void {
  [0.005, 0.565, 0.695].forEach((netDelta, i) =>
    log.append(user, `T${i}`, { type: 'TradeOpened', data: { tradeId: `T${i}`, lineageId: `T${i}`, terms: terms({ ticker: 'QQQ', openDate: '2026-01-21', expirationDate: '2026-02-20', netDelta }) } }),
  );
}

/** A user whose only trade is opened and then closed (open list back to 0), and one whose only trade is opened and deleted (all lists 0). */
function emptiedJournal(log: JournalLog): void {
  log.append('user-3', 'Z', { type: 'TradeOpened', data: { tradeId: 'Z', lineageId: 'Z', terms: terms({ ticker: 'IWM', openDate: '2026-01-12', expirationDate: '2026-01-30' }) } });
  log.append('user-3', 'Z', {
    type: 'TradeClosed',
    data: { tradeId: 'Z', close: { closeAction: 'close', closeDate: '2026-01-13', contractsClosed: 1, premiumAtClose: 20, netFeeToClose: 1, closeTransaction: 2 }, closedPart: { premiumAtOpen: 200, netFeeToOpen: 1 }, remainder: null },
  });
  log.append('user-4', 'Y', { type: 'TradeOpened', data: { tradeId: 'Y', lineageId: 'Y', terms: terms({ ticker: 'DIA', openDate: '2026-01-12' }) } });
  log.append('user-4', 'Y', { type: 'TradeDeleted', data: { tradeId: 'Y' } });
}

describe('daily premium records do not depend on the order trades come back in', () => {
  it('every order of three trades tied on ticker, strategy, dates and premiums gives the same record', () => {
    const trades: DayTrade[] = [0.005, 0.565, 0.695].map((nd, i) => ({
      uid: `T${i}`, user_id: 'u', ticker: 'QQQ', su: 'cash-secured-put', tod: '2026-01-21', tcd: null, ed: '2026-02-20', status: 1, ot: 1, ct: null,
      pao: 200, pac: null, npc: null, nfto: 1, nftc: null, nd, c: 10000, cg: null, held: null, cs: 1, pf: null, auid: null, split: null,
    }));
    const [a, b, c] = trades as [DayTrade, DayTrade, DayTrade];
    const orders = [[a, b, c], [a, c, b], [b, a, c], [b, c, a], [c, a, b], [c, b, a]];
    const key = dayKey('u', '2026-01-21');
    const records = orders.map((o) => computeDailyRecords([key], o).get(key));
    for (const r of records) expect(r).toEqual(records[0]);
    expect(records[0]!.nd).toBe(1.27);
  });
});

describe('trades projection: live equals a rebuild (PostgreSQL)', () => {
  const LANES = 2;
  let database: TestDatabase;
  let store: PostgresEventStore;
  const deps = () => ({ database, eventStore: store, projections: [tradesProjection], lanes: LANES });

  beforeAll(async () => {
    database = await createTestDatabase('trades_live_rebuild');
    await migrateToLatest(database.db, [storeMigrations, runtimeMigrations]);
    store = new PostgresEventStore(database);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('rows at 0 left by earlier code go when the version is opened (createTables, at every start)', async () => {
    const tables = physicalTables(tradesProjection, 9_999);
    await tradesProjection.createTables(database.db, tables);
    await sql`insert into ${sql.table(tables.trade_counts!)} (user_id, list, n) values ('u-old', 1, 0), ('u-old', 2, 3)`.execute(database.db);
    await tradesProjection.createTables(database.db, tables);
    const { rows } = await sql<{ user_id: string; list: number; n: number }>`select user_id, list, n from ${sql.table(tables.trade_counts!)}`.execute(database.db);
    expect(rows).toEqual([{ user_id: 'u-old', list: 2, n: 3 }]);
    for (const t of Object.values(tables)) await sql`drop table ${sql.table(t)}`.execute(database.db);
  });

  it('counts that went back to 0 and tied trades: diff reports every table identical', async () => {
    // The live version exists before the first event, as on a new deployment.
    await rebuild(deps(), tradesProjection.name);
    const log = smallJournal();
    tiedJournal(log, 'user-1');
    emptiedJournal(log);
    let last: LogPosition = START;
    for (const e of log.events) last = (await store.append(e.streamId, [{ id: crypto.randomUUID(), type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata }], 'any')).position;
    let stored: StoredEvent[] = [];
    while (comparePositions(stored.at(-1)?.position ?? START, last) < 0) stored = await store.readAll({ limit: 10_000, streamPrefixes: ['trade-'] });
    // Live: every event its own lane batch, as a lane worker applies them under light load.
    const prev = new Map<number, LogPosition>();
    for (const e of stored) {
      const lane = laneOf(e.metadata.userId, LANES);
      await applyLaneBatch(database.db, [tradesProjection], { lane, prev: prev.get(lane) ?? START, events: [e] });
      prev.set(lane, e.position);
    }
    await rebuild(deps(), tradesProjection.name, { switch: false });
    const tables = await diff(deps(), tradesProjection.name);
    expect(tables.map((t) => t.table).sort()).toEqual([...tradesProjection.tables].sort());
    for (const t of tables) {
      expect({ table: t.table, onlyInLive: t.sampleOnlyInLive, onlyInOther: t.sampleOnlyInOther, totals: t.totals, categories: t.categories, rows: t.rowsLive - t.rowsOther }).toEqual({
        table: t.table, onlyInLive: [], onlyInOther: [], totals: [], categories: [], rows: 0,
      });
    }
  });

  it('diff counts the rows per value of a code column instead of summing it', async () => {
    // QA: `diff trades` printed "total status: 4646 -> 66253" (and list, ot, ct): sums of codes.
    const building = (await readRegistry(database.db, tradesProjection.name)).find((r) => r.status === 'building')!;
    const T = sql.table(building.tables.trades!);
    const perStatus = async (t: string) =>
      Object.fromEntries((await sql<{ v: string; n: number }>`select status::text as v, count(*)::int as n from ${sql.table(t)} group by 1`.execute(database.db)).rows.map((r) => [r.v, r.n]));
    const live = await perStatus((await liveTables(database.db, tradesProjection.name)).trades!);
    const uid = (await sql<{ uid: string }>`select min(uid) as uid from ${T} where status = 1`.execute(database.db)).rows[0]!.uid;
    // One open trade reads closed (status 2) in the other version.
    await sql`update ${T} set status = 2 where uid = ${uid}`.execute(database.db);
    try {
      const trades = (await diff(deps(), tradesProjection.name)).find((t) => t.table === 'trades')!;
      expect(trades.totals).toEqual([]);
      expect(trades.categories).toEqual([{ column: 'status', live, other: { ...live, 1: live['1']! - 1, 2: (live['2'] ?? 0) + 1 } }]);
      expect([trades.onlyInLive, trades.onlyInOther]).toEqual([1, 1]);
      const figures = await diffFigures(database.db, await liveTables(database.db, tradesProjection.name), building.tables, { categoryColumns: tradesProjection.categoryColumns! });
      expect(figures.figures.map((f) => [f.table, f.column, f.rowsChanged, f.largestDelta])).toEqual([['trades', 'status', 1, null]]);
    } finally {
      await sql`update ${T} set status = 1 where uid = ${uid}`.execute(database.db);
    }
  });

  it('a one-user recompute puts back every row of the user as the rebuild has them, and leaves the other users alone', async () => {
    const live = await liveTables(database.db, tradesProjection.name);
    const identical = async () => (await diff(deps(), tradesProjection.name)).every((t) => !t.onlyInLive && !t.onlyInOther && !t.totals.length && !t.categories.length && t.rowsLive === t.rowsOther);
    expect(await identical()).toBe(true);
    const T = sql.table(live.trades!);
    // One wrong figure, one trade too many, a lost daily record, a wrong lineage revision, lost counts.
    await sql`update ${T} set pao = pao + 1 where user_id = 'user-1' and uid = (select min(uid) from ${T} where user_id = 'user-1')`.execute(database.db);
    await sql`insert into ${T} select * from json_populate_record(null::${T}, (select (to_jsonb(t) || '{"uid": "ghost"}')::json from ${T} t where user_id = 'user-1' limit 1))`.execute(database.db);
    await sql`delete from ${sql.table(live.daily_premium!)} where user_id = 'user-1' and income_date = (select min(income_date) from ${sql.table(live.daily_premium!)} where user_id = 'user-1')`.execute(database.db);
    await sql`update ${sql.table(live.trade_lineages!)} set rev = 99 where user_id = 'user-1'`.execute(database.db);
    const lists = (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(live.trade_counts!)} where user_id = 'user-1'`.execute(database.db)).rows[0]!.n;
    await sql`delete from ${sql.table(live.trade_counts!)} where user_id = 'user-1'`.execute(database.db);
    // And in the stream guard: one lineage recorded behind, one stream of the user's that has no event.
    const version = (await liveRow(database.db, tradesProjection.name))!.version;
    await sql`update projection_stream_revisions set revision = revision + 1 where projection = ${tradesProjection.name} and version = ${version}
      and stream_id = (select min(stream_id) from projection_stream_revisions where projection = ${tradesProjection.name} and version = ${version} and stream_id like 'trade-user-1.%')`.execute(database.db);
    await sql`insert into projection_stream_revisions (projection, version, stream_id, revision) values (${tradesProjection.name}, ${version}, 'trade-user-1.ghost', 3)`.execute(database.db);
    const userLineages = (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(live.trade_lineages!)} where user_id = 'user-1'`.execute(database.db)).rows[0]!.n;
    expect(await identical()).toBe(false);
    const [result] = await rebuild(deps(), tradesProjection.name, { userId: 'user-1' });
    expect(result!.eventsApplied).toBe((await store.readAll({ limit: 10_000, streamPrefixes: ['trade-user-1.'] })).length);
    expect(await identical()).toBe(true);
    // It wrote exactly what was wrong, and says so.
    expect(result!.changes).toEqual({
      trades: { inserted: 0, updated: 1, deleted: 1 },
      trade_lineages: { inserted: 0, updated: userLineages, deleted: 0 },
      split_history: { inserted: 0, updated: 0, deleted: 0 },
      daily_premium: { inserted: 1, updated: 0, deleted: 0 },
      trade_counts: { inserted: lists, updated: 0, deleted: 0 },
      stream_revisions: { inserted: 0, updated: 1, deleted: 1 },
    });
    // A user whose rows are right: nothing written.
    const [again] = await rebuild(deps(), tradesProjection.name, { userId: 'user-1' });
    for (const c of Object.values(again!.changes!)) expect(c).toEqual({ inserted: 0, updated: 0, deleted: 0 });
    // Its lineages' guard rows say every event is applied: the next lane batch brings none of them again.
    const guard = await sql<{ n: number }>`select count(*)::int as n from projection_stream_revisions p join ${sql.table(live.trade_lineages!)} l
      on p.stream_id = 'trade-' || l.user_id || '.' || l.lid and p.revision = l.rev
      where p.projection = ${tradesProjection.name} and p.version = ${version} and l.user_id = 'user-1'`.execute(database.db);
    const lineages = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(live.trade_lineages!)} where user_id = 'user-1'`.execute(database.db);
    expect(guard.rows[0]!.n).toBe(lineages.rows[0]!.n);
  });

  it('a rebuilt version has every index the live one has (the list indexes are built in its finishing step)', async () => {
    const indexes = async (table: string) =>
      (await sql<{ def: string }>`select regexp_replace(indexdef, ${table}, 'T', 'g') as def from pg_indexes where tablename = ${table} order by 1`.execute(database.db)).rows.map((r) => r.def);
    const versions = (await sql<{ version: number; tables: Record<string, string> }>`select version, tables from projection_registry where name = ${tradesProjection.name} order by version`.execute(database.db)).rows;
    expect(versions.length).toBeGreaterThanOrEqual(2);
    const live = await indexes(versions[0]!.tables.trades!);
    // Primary key, lineage, and the five of the reads (lists, expiring, opened, closed, ticker).
    expect(live).toHaveLength(7);
    expect(await indexes(versions.at(-1)!.tables.trades!)).toEqual(live);
  });

  it('a rebuilt version has planner statistics for its tables and for the stream guard it filled (autovacuum may be off)', async () => {
    const rebuilt = (await sql<{ tables: Record<string, string> }>`select tables from projection_registry where name = ${tradesProjection.name} order by version desc limit 1`.execute(database.db)).rows[0]!.tables;
    const names = [...Object.values(rebuilt), 'projection_stream_revisions'];
    const { rows } = await sql<{ relname: string; analyzed: boolean }>`select relname, (last_analyze is not null or last_autoanalyze is not null) as analyzed
      from pg_stat_user_tables where relname = any(${names})`.execute(database.db);
    expect(rows.map((r) => [r.relname, r.analyzed]).sort()).toEqual(names.map((n) => [n, true]).sort());
  });
});
