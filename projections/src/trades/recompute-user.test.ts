import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Database } from '@oj/infra/db/database';
import { createPGliteDatabase, createTestDatabase } from '@oj/infra/testing/postgres';
import { migrateToLatest } from '@oj/infra/db/migrate';
import { migrations as storeMigrations } from '@oj/infra/eventstore/migrations';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { START, type LogPosition } from '@oj/infra/eventstore/port';
import { migrations as runtimeMigrations } from '../runtime/migrations.ts';
import { liveTables } from '../runtime/registry.ts';
import { applyLaneBatch } from '../runtime/apply.ts';
import { laneOf } from '../runtime/lanes.ts';
import { rebuild } from '../runtime/rebuild.ts';
import { rewriteTuning, tradesProjection } from './projection.ts';
import { smallJournal } from './testing.ts';

/**
 * The one-user recompute compares before it writes, on PostgreSQL and on PGlite (the embedded mode): the
 * rows it reads back must compare equal to the rows it computes, value for value, or it would rewrite
 * (and report) every row of a user whose rows are right; and the rows it writes (COPY's binary format on
 * PostgreSQL, inserts on PGlite) must read back as the rows it computed, or the next run would rewrite
 * them again. The journal has every kind of action (opens, partial and full closes, rolls, splits,
 * edits, deletes).
 */
describe.each(['postgres', 'pglite'] as const)('one-user recompute on %s', (kind) => {
  const LANES = 2;
  let database: Database & { drop?: () => Promise<void> };
  let store: PostgresEventStore;
  const deps = () => ({ database, eventStore: store, projections: [tradesProjection], lanes: LANES });

  beforeAll(async () => {
    database = kind === 'postgres' ? await createTestDatabase('recompute_user') : await createPGliteDatabase();
    await migrateToLatest(database.db, [storeMigrations, runtimeMigrations]);
    store = new PostgresEventStore(database);
    await rebuild(deps(), tradesProjection.name);
    const log = smallJournal('user-1', 'user-2');
    for (const e of log.events) await store.append(e.streamId, [{ id: crypto.randomUUID(), type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata }], 'any');
    const prev = new Map<number, LogPosition>();
    for (const e of await store.readAll({ limit: 10_000, streamPrefixes: ['trade-'] })) {
      const lane = laneOf(e.metadata.userId, LANES);
      await applyLaneBatch(database.db, [tradesProjection], { lane, prev: prev.get(lane) ?? START, events: [e] });
      prev.set(lane, e.position);
    }
  });
  afterAll(async () => {
    await store?.close();
    if (database?.drop) await database.drop();
    else await database?.close();
  });

  it('writes nothing for a user whose rows are right, and exactly the wrong row otherwise', async () => {
    for (const user of ['user-1', 'user-2']) {
      const [r] = await rebuild(deps(), tradesProjection.name, { userId: user });
      expect(r!.eventsApplied).toBeGreaterThan(0);
      for (const [table, c] of Object.entries(r!.changes!)) expect({ table, ...c }).toEqual({ table, inserted: 0, updated: 0, deleted: 0 });
    }
    const live = await liveTables(database.db, tradesProjection.name);
    await sql`update ${sql.table(live.daily_premium!)} set np = np + 5 where user_id = 'user-1' and income_date = (select max(income_date) from ${sql.table(live.daily_premium!)} where user_id = 'user-1')`.execute(database.db);
    const [fixed] = await rebuild(deps(), tradesProjection.name, { userId: 'user-1' });
    expect(fixed!.changes!.daily_premium).toEqual({ inserted: 0, updated: 1, deleted: 0 });
    expect(fixed!.changes!.trades).toEqual({ inserted: 0, updated: 0, deleted: 0 });
  });

  it('rewrites trade rows a part at a time: what each part changes, then the rows no part gave, and a second run writes nothing', async () => {
    const live = await liveTables(database.db, tradesProjection.name);
    const T = sql.table(live.trades!);
    const uids = (await sql<{ uid: string }>`select uid from ${T} where user_id = 'user-1' order by uid`.execute(database.db)).rows.map((r) => r.uid);
    expect(uids.length).toBeGreaterThanOrEqual(5);
    const lineages = (await sql<{ n: number }>`select count(distinct lid)::int as n from ${T} where user_id = 'user-1'`.execute(database.db)).rows[0]!.n;
    expect(lineages).toBeGreaterThanOrEqual(3);
    const before = (await sql`select * from ${T} where user_id = 'user-1' order by uid`.execute(database.db)).rows;
    await sql`update ${T} set notes = 'wrong' where user_id = 'user-1' and uid = ${uids[0]!}`.execute(database.db);
    await sql`delete from ${T} where user_id = 'user-1' and uid = ${uids[1]!}`.execute(database.db);
    await sql`insert into ${T} (select (json_populate_record(t, json_build_object('uid', 'stray'))).* from ${T} t where user_id = 'user-1' and uid = ${uids[2]!})`.execute(database.db);
    const saved = rewriteTuning.partLineages;
    rewriteTuning.partLineages = 1;
    try {
      // Reads of 2 events: on PostgreSQL the streams come a few at a time, cut mid-stream, and each part
      // is compared and written as it comes.
      const [r] = await rebuild(deps(), tradesProjection.name, { userId: 'user-1', batchSize: 2 });
      expect(r!.changes!.trades).toEqual({ inserted: 1, updated: 1, deleted: 1 });
      expect((await sql`select * from ${T} where user_id = 'user-1' order by uid`.execute(database.db)).rows).toEqual(before);
      const [again] = await rebuild(deps(), tradesProjection.name, { userId: 'user-1' });
      for (const [table, c] of Object.entries(again!.changes!)) expect({ table, ...c }).toEqual({ table, inserted: 0, updated: 0, deleted: 0 });
    } finally {
      rewriteTuning.partLineages = saved;
    }
  });

  it('writes nothing when a part fails: the transaction rolls back whole and no later part runs outside it', async () => {
    const live = await liveTables(database.db, tradesProjection.name);
    const T = sql.table(live.trades!);
    const rows = async () => (await sql<Record<string, unknown>>`select * from ${T} where user_id = 'user-1' order by uid`.execute(database.db)).rows;
    const right = await rows();
    const lineages = [...new Set(right.map((r) => r.lid as string))];
    expect(lineages.length).toBeGreaterThanOrEqual(3);
    // Every trade row of the user wrong, and a check that the right rows of one lineage (not the first
    // part's) break when they are written again (not validated against the rows there now).
    await sql`update ${T} set notes = notes || ' (changed)' where user_id = 'user-1'`.execute(database.db);
    const wrong = await rows();
    const refused = lineages.sort().at(-1)!;
    await sql`alter table ${T} add constraint refuse_one_lineage check (lid <> ${sql.lit(refused)}) not valid`.execute(database.db);
    const saved = rewriteTuning.partLineages;
    rewriteTuning.partLineages = 1;
    try {
      await expect(rebuild(deps(), tradesProjection.name, { userId: 'user-1', batchSize: 2 })).rejects.toThrow(/refuse_one_lineage/);
      expect(await rows()).toEqual(wrong);
      await sql`alter table ${T} drop constraint refuse_one_lineage`.execute(database.db);
      const [r] = await rebuild(deps(), tradesProjection.name, { userId: 'user-1' });
      expect(r!.changes!.trades).toEqual({ inserted: 0, updated: right.length, deleted: 0 });
      expect(await rows()).toEqual(right);
      const [again] = await rebuild(deps(), tradesProjection.name, { userId: 'user-1' });
      for (const [table, c] of Object.entries(again!.changes!)) expect({ table, ...c }).toEqual({ table, inserted: 0, updated: 0, deleted: 0 });
    } finally {
      rewriteTuning.partLineages = saved;
      await sql`alter table ${T} drop constraint if exists refuse_one_lineage`.execute(database.db);
    }
  });

  it('rewrites a row of every table that is wrong, missing or stray, and reads back equal to a clean rebuild', async () => {
    const live = await liveTables(database.db, tradesProjection.name);
    const t = (name: string) => sql.table(live[name]!);
    const snapshot = async () => {
      const out: Record<string, unknown[]> = {};
      for (const name of ['trades', 'trade_lineages', 'split_history', 'daily_premium', 'trade_counts']) {
        out[name] = (await sql`select * from ${t(name)} where user_id = 'user-1' order by 1, 2, 3`.execute(database.db)).rows;
      }
      return out;
    };
    const right = await snapshot();
    expect(right.split_history!.length).toBeGreaterThan(0);
    await sql`update ${t('trade_lineages')} set rev = rev + 7 where user_id = 'user-1' and lid = (select min(lid) from ${t('trade_lineages')} where user_id = 'user-1')`.execute(database.db);
    await sql`delete from ${t('split_history')} where user_id = 'user-1'`.execute(database.db);
    await sql`delete from ${t('daily_premium')} where user_id = 'user-1' and income_date = (select min(income_date) from ${t('daily_premium')} where user_id = 'user-1')`.execute(database.db);
    await sql`update ${t('trade_counts')} set n = n + 1 where user_id = 'user-1'`.execute(database.db);
    await sql`insert into ${t('trade_counts')} (user_id, list, n) values ('user-1', 99, 3)`.execute(database.db);
    const [r] = await rebuild(deps(), tradesProjection.name, { userId: 'user-1' });
    expect(r!.changes!.trade_lineages).toEqual({ inserted: 0, updated: 1, deleted: 0 });
    expect(r!.changes!.split_history).toEqual({ inserted: right.split_history!.length, updated: 0, deleted: 0 });
    expect(r!.changes!.daily_premium).toEqual({ inserted: 1, updated: 0, deleted: 0 });
    expect(r!.changes!.trade_counts).toEqual({ inserted: 0, updated: right.trade_counts!.length, deleted: 1 });
    expect(await snapshot()).toEqual(right);
  });
});
