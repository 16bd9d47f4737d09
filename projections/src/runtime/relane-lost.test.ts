import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { Registry } from 'prom-client';
import { randomBytes, randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { requireRedisUrl } from '@oj/infra/testing/env';
import { deleteRedisPrefix } from '@oj/infra/testing/redis';
import { migrateToLatest } from '@oj/infra/db/migrate';
import { migrations as storeMigrations } from '@oj/infra/eventstore/migrations';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { START, comparePositions, type LogPosition, type StoredEvent } from '@oj/infra/eventstore/port';
import { createLogger } from '@oj/infra/logger';
import { migrations } from './migrations.ts';
import { countingProjection, expectedCounts, readCounts } from './test-projection.ts';
import { laneQueueName, redisConnection, startProjector, type ProjectorHandle, type ProjectorOptions } from './projector.ts';
import { liveTables, readCheckpoints, readDispatcher, readRegistry } from './registry.ts';

/**
 * Old-lane batches lost from Redis (restarted empty, or emptied as the restore procedure says) while
 * the next start changes the lane count: the drain waits for the old lanes to apply what was handed
 * to them, which nothing will ever deliver again, so it must hand them their events again too (as the
 * dispatcher does for lost batches once it routes), or every lane stands still for ever.
 */
const logger = createLogger('silent');
const projection = countingProjection({ name: 'relane_lost' });

describe('lane count change after old lane batches were lost from Redis', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;
  const prefix = `ojrl-${randomBytes(4).toString('hex')}`;
  const open: ProjectorHandle[] = [];
  let last: LogPosition = START;
  let n = 0;
  beforeAll(async () => {
    database = await createTestDatabase('relane_lost');
    await migrateToLatest(database.db, [storeMigrations, migrations]);
    store = new PostgresEventStore(database);
  });
  afterAll(async () => {
    for (const h of open) await h.stop();
    await store?.close();
    await database?.drop();
    await deleteRedisPrefix(requireRedisUrl(), prefix);
  });
  const start = async (lanes: number, extra: Partial<ProjectorOptions> = {}) => {
    const h = await startProjector({
      config: { PROJECTOR_LANES: lanes, REDIS_URL: requireRedisUrl() },
      database,
      eventStore: store,
      logger,
      metrics: new Registry(),
      projections: [projection],
      bullPrefix: prefix,
      readBatch: 9,
      pollMs: 20,
      rebuilds: false,
      lostBatchCheckMs: 200,
      ...extra,
    });
    open.push(h);
    return h;
  };
  const append = async (count: number) => {
    for (let i = 0; i < count; i++, n++) {
      const user = `rl-${n % 12}`;
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

  it('hands the old lanes their lost events again, drains, re-keys, and the read model equals the log', async () => {
    // Lane 2 of 3 unworked: its batches wait in Redis, then Redis loses them.
    const first = await start(3, { workLanes: [0, 1] });
    await append(40);
    while (comparePositions((await readDispatcher(database.db)).checkpoint, last) < 0) await new Promise((r) => setTimeout(r, 10));
    await first.stop();
    const live = (await readRegistry(database.db, projection.name)).find((r) => r.status === 'live')!;
    const d = await readDispatcher(database.db);
    expect(comparePositions((await readCheckpoints(database.db, projection.name, live.version)).get(2) ?? START, d.lastDispatched.get(2)!)).toBeLessThan(0);
    const lost = new Queue(laneQueueName(2), { connection: redisConnection(requireRedisUrl()), prefix });
    await lost.obliterate({ force: true });
    await lost.close();

    const next = await start(2);
    await append(10);
    await next.waitFor(last, 30_000);
    expect((await readDispatcher(database.db)).lanes).toBe(2);
    expect(await readCounts(database.db, await liveTables(database.db, projection.name))).toEqual(expectedCounts(await wholeLog()));
  }, 60_000);
});
