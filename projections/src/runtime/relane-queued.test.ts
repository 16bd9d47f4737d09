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
import { START, comparePositions, positionToString, type LogPosition, type StoredEvent } from '@oj/infra/eventstore/port';
import { createLogger } from '@oj/infra/logger';
import { migrations } from './migrations.ts';
import { countingProjection, expectedCounts, readCounts } from './test-projection.ts';
import { laneQueueName, redisConnection, startProjector, type ProjectorHandle, type ProjectorOptions } from './projector.ts';
import { liveTables, readDispatcher } from './registry.ts';
import { laneOf, toWire } from './lanes.ts';

/**
 * A dispatcher killed between queueing a read's lane batches and recording it leaves batches past the
 * recorded position D in the old lanes' queues. When the next start changes the lane count, those
 * batches must be applied before the lanes are re-keyed: applied after it, an old lane's batch lands
 * on the new lane of the same number, moves its checkpoint past D and makes it skip the events of its
 * new users up to there (a revision gap freezing the lane, or a silent hole).
 */
const logger = createLogger('silent');
const projection = countingProjection({ name: 'relane_queued' });
const users = Array.from({ length: 24 }, (_, i) => `rq-${i}`);

describe('lane count change with old lane batches still queued', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;
  const prefix = `ojrq-${randomBytes(4).toString('hex')}`;
  const open: ProjectorHandle[] = [];
  let last: LogPosition = START;
  let n = 0;
  beforeAll(async () => {
    database = await createTestDatabase('relane_queued');
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
      readBatch: 50,
      pollMs: 20,
      rebuilds: false,
      ...extra,
    });
    open.push(h);
    return h;
  };
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

  it('applies the old lanes batches before re-keying, and the read model equals the log', async () => {
    const first = await start(3);
    await append(40);
    await first.waitFor(last, 30_000);
    await first.stop();
    const recorded = await readDispatcher(database.db);

    // The killed dispatcher's last read: queued for lanes 0, 1 and 2, D not moved.
    await append(30);
    const after = (await wholeLog()).filter((e) => comparePositions(e.position, recorded.checkpoint) > 0);
    const old1 = after.filter((e) => laneOf(e.metadata.userId, 3) === 1);
    // New lane 1 (of 2) has users from old lane 2 with events before old lane 1's batch ends.
    expect(after.some((e) => laneOf(e.metadata.userId, 2) === 1 && laneOf(e.metadata.userId, 3) === 2 && comparePositions(e.position, old1.at(-1)!.position) < 0)).toBe(true);
    for (const lane of [0, 1, 2]) {
      const events = after.filter((e) => laneOf(e.metadata.userId, 3) === lane);
      const queue = new Queue(laneQueueName(lane), { connection: redisConnection(requireRedisUrl()), prefix });
      await queue.add('batch', { lane, prev: positionToString(recorded.lastDispatched.get(lane) ?? START), events: events.map(toWire) }, { jobId: `l${lane}-${positionToString(events[0]!.position)}-${positionToString(events.at(-1)!.position)}` });
      await queue.close();
    }

    // Restart with 2 lanes; old lanes 1 and 2 are worked by a process that starts a little later.
    const dispatcher = await start(2, { workLanes: [0] });
    for (let i = 0; i < 30 && (await readDispatcher(database.db)).lanes !== 2; i++) await new Promise((r) => setTimeout(r, 50));
    await start(2, { dispatch: false, workLanes: [1, 2] });
    await append(5);
    await dispatcher.waitFor(last, 30_000);
    expect((await readDispatcher(database.db)).lanes).toBe(2);
    expect(await readCounts(database.db, await liveTables(database.db, projection.name))).toEqual(expectedCounts(await wholeLog()));
  }, 60_000);
});
