import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Database } from '@oj/infra/db/database';
import { createPGliteDatabase } from '@oj/infra/testing/postgres';
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
 * The one-user recompute compares before it writes, on PGlite too (the embedded mode): the rows it
 * reads back must compare equal to the rows it computes, value for value, or it would rewrite (and
 * report) every row of a user whose rows are right. The journal has every kind of action (opens,
 * partial and full closes, rolls, splits, edits, deletes).
 */
describe('one-user recompute on PGlite', () => {
  const LANES = 2;
  let database: Database;
  let store: PostgresEventStore;
  const deps = () => ({ database, eventStore: store, projections: [tradesProjection], lanes: LANES });

  beforeAll(async () => {
    database = await createPGliteDatabase();
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
    await database?.close();
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
      const [r] = await rebuild(deps(), tradesProjection.name, { userId: 'user-1' });
      expect(r!.changes!.trades).toEqual({ inserted: 1, updated: 1, deleted: 1 });
      expect((await sql`select * from ${T} where user_id = 'user-1' order by uid`.execute(database.db)).rows).toEqual(before);
      const [again] = await rebuild(deps(), tradesProjection.name, { userId: 'user-1' });
      for (const [table, c] of Object.entries(again!.changes!)) expect({ table, ...c }).toEqual({ table, inserted: 0, updated: 0, deleted: 0 });
    } finally {
      rewriteTuning.partLineages = saved;
    }
  });
});
