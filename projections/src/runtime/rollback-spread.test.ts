import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { migrateToLatest } from '@oj/infra/db/migrate';
import { migrations as storeMigrations } from '@oj/infra/eventstore/migrations';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { START, comparePositions, type LogPosition, type StoredEvent } from '@oj/infra/eventstore/port';
import { createLogger } from '@oj/infra/logger';
import { migrations } from './migrations.ts';
import { countingProjection, expectedCounts, readCounts } from './test-projection.ts';
import { startProjector } from './projector.ts';
import { liveTables, readCheckpoints, readDispatcher, readRegistry } from './registry.ts';
import { applyLaneBatch } from './apply.ts';
import { rebuild, rollback } from './rebuild.ts';
import { laneOf } from './lanes.ts';

/**
 * A retired version's lanes may stand far apart (a lane that was stuck, or unworked, when it was
 * retired). A rollback's batched catch-up must move each lane only as far as what it applied: moving
 * every lane to the furthest one skips the lagging lane's events in between.
 */
const logger = createLogger('silent');
const LANES = 2;
const projection = countingProjection({ name: 'rollback_spread' });
const users = Array.from({ length: 12 }, (_, i) => `rs-${i}`);

describe('rollback to a version whose lanes stand apart', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;
  let last: LogPosition = START;
  let n = 0;
  const deps = () => ({ database, eventStore: store, projections: [projection], lanes: LANES });
  beforeAll(async () => {
    database = await createTestDatabase('rollback_spread');
    await migrateToLatest(database.db, [storeMigrations, migrations]);
    store = new PostgresEventStore(database);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });
  const append = async (count: number) => {
    for (let i = 0; i < count; i++, n++) {
      const user = users[(n * 5) % users.length]!;
      const r = await store.append(
        `trade-${user}.l${n % 2}`,
        [{ id: randomUUID(), type: `E${n}`, schemaVersion: 1, data: {}, metadata: { userId: user, actor: { id: user, role: 'trader' }, correlationId: 'c', causationId: null, idempotencyKey: null, recordedAt: new Date().toISOString(), businessDate: '2026-11-20' } }],
        'any',
      );
      last = r.position;
    }
  };
  const wholeLog = async (): Promise<StoredEvent[]> => {
    for (;;) {
      const log = await store.readAll({ streamPrefixes: ['trade-'], limit: 100_000 });
      if (comparePositions(log.at(-1)?.position ?? START, last) >= 0) return log;
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const start = () =>
    startProjector({ config: { PROJECTOR_LANES: LANES, REDIS_URL: undefined }, database, eventStore: store, logger, metrics: new Registry(), projections: [projection], pollMs: 10 });

  it('catches each lane up from its own checkpoint', async () => {
    let p = await start();
    await append(20);
    await p.waitFor(last, 30_000);
    await p.stop();
    const recorded = await readDispatcher(database.db);
    const old = (await readRegistry(database.db, projection.name)).find((r) => r.status === 'live')!;

    // Lane 1 of the live version moves on, lane 0 stays behind (stuck): 30 events apart.
    await append(30);
    const after = (await wholeLog()).filter((e) => comparePositions(e.position, recorded.checkpoint) > 0);
    const lane1 = after.filter((e) => laneOf(e.metadata.userId, LANES) === 1);
    await applyLaneBatch(database.db, [projection], { lane: 1, prev: recorded.lastDispatched.get(1) ?? START, events: lane1 });

    // A new version goes live (it has everything); the old one is retired with its lanes apart.
    const [built] = await rebuild(deps(), projection.name);
    expect(built!.switched).toBe(true);
    const cps = await readCheckpoints(database.db, projection.name, old.version);
    expect(comparePositions(cps.get(0)!, cps.get(1)!)).toBeLessThan(0);

    // Rolled back with a catch-up batch smaller than the distance between its lanes.
    const back = await rollback(deps(), projection.name, { catchUpBatch: 4 });
    expect(back.to).toBe(old.version);
    p = await start();
    try {
      await append(4);
      await p.waitFor(last, 30_000);
      expect(await liveTables(database.db, projection.name)).toEqual(old.tables);
      expect(await readCounts(database.db, old.tables)).toEqual(expectedCounts(await wholeLog()));
    } finally {
      await p.stop();
    }
  }, 60_000);
});
