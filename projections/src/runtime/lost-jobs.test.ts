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
import { START, comparePositions, type EventStore, type LogPosition, type StoredEvent } from '@oj/infra/eventstore/port';
import { createLogger } from '@oj/infra/logger';
import { migrations } from './migrations.ts';
import { countingProjection, expectedCounts, readCounts } from './test-projection.ts';
import { laneQueueName, redisConnection, startProjector, type ProjectorHandle, type ProjectorOptions } from './projector.ts';
import { liveTables, readDispatcher } from './registry.ts';

/**
 * Lane batches lost from Redis (a restart without persistence, FLUSHALL, eviction) after the
 * dispatcher handed them out: the dispatcher notices lanes that are behind, do not move and have
 * nothing queued to continue them, and hands them their events again from their checkpoints. Without
 * that, the lanes wait for the lost batches for ever.
 */
const logger = createLogger('silent');
const LANES = 3;
const projection = countingProjection({ name: 'lost_counts' });

describe('lane batches lost from Redis', () => {
  let database: TestDatabase;
  let store: EventStore;
  const prefix = `ojlost-${randomBytes(4).toString('hex')}`;
  const open: ProjectorHandle[] = [];
  let last: LogPosition = START;

  const start = async (extra: Partial<ProjectorOptions> = {}) => {
    const h = await startProjector({
      config: { PROJECTOR_LANES: LANES, REDIS_URL: requireRedisUrl() },
      database,
      eventStore: store,
      logger,
      metrics: new Registry(),
      projections: [projection],
      bullPrefix: prefix,
      readBatch: 7,
      pollMs: 20,
      rebuilds: false,
      lostBatchCheckMs: 200,
      ...extra,
    });
    open.push(h);
    return h;
  };
  const append = async (count: number, from: number) => {
    for (let i = from; i < from + count; i++) {
      const user = `lost-${i % 9}`;
      const r = await store.append(
        `trade-${user}.l${i % 2}`,
        [{ id: randomUUID(), type: `E${i}`, schemaVersion: 1, data: {}, metadata: { userId: user, actor: { id: user, role: 'trader' }, correlationId: 'c', causationId: null, idempotencyKey: null, recordedAt: new Date().toISOString(), businessDate: '2026-11-20' } }],
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

  beforeAll(async () => {
    database = await createTestDatabase('projector_lost_jobs');
    await migrateToLatest(database.db, [storeMigrations, migrations]);
    store = new PostgresEventStore(database);
  });
  afterAll(async () => {
    for (const h of open) await h.stop();
    await store?.close();
    await database?.drop();
    await deleteRedisPrefix(requireRedisUrl(), prefix);
  });

  it('hands the lanes their events again from their checkpoints, and the read model equals the log', async () => {
    // Dispatch only: the batches wait in the lanes' queues, then Redis loses them.
    const dispatcher = await start({ work: false });
    await append(40, 0);
    while (comparePositions((await readDispatcher(database.db)).checkpoint, last) < 0) await new Promise((r) => setTimeout(r, 10));
    for (let lane = 0; lane < LANES; lane++) {
      const queue = new Queue(laneQueueName(lane), { connection: redisConnection(requireRedisUrl()), prefix });
      expect(await queue.count()).toBeGreaterThan(0);
      await queue.obliterate({ force: true });
      await queue.close();
    }
    // Workers only (the dispatcher keeps its lock): they find nothing queued until the lost batches come back.
    const workers = await start({ dispatch: false });
    await append(5, 100);
    await workers.waitFor(last, 30_000);
    expect(await readCounts(database.db, await liveTables(database.db, projection.name))).toEqual(expectedCounts(await wholeLog()));
    await dispatcher.stop();
    await workers.stop();
  }, 120_000);
});
