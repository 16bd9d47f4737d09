import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker, type Job } from 'bullmq';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { randomBytes, randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { requireRedisUrl } from '@oj/infra/testing/env';
import { deleteRedisPrefix } from '@oj/infra/testing/redis';
import { migrateToLatest } from '@oj/infra/db/migrate';
import { migrations as storeMigrations } from '@oj/infra/eventstore/migrations';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { START, comparePositions, positionToString, type EventStore, type LogPosition, type StoredEvent } from '@oj/infra/eventstore/port';
import { createLogger } from '@oj/infra/logger';
import { migrations } from './migrations.ts';
import { countingProjection, expectedCounts, readCounts } from './test-projection.ts';
import { laneQueueName, laneWorkerOptions, redisConnection, startProjector, type ProjectorHandle, type ProjectorOptions } from './projector.ts';
import { liveTables, readDispatcher } from './registry.ts';
import { laneOf } from './lanes.ts';

/**
 * A lane batch whose worker dies twice (a projector killed while applying it, then the next one
 * killed too) must not fail for good: a lane never gives up on a batch, or every later batch of the
 * lane would fail behind it forever.
 */
const logger = createLogger('silent');
const LANES = 2;
const LOCK_MS = 1000;
const projection = countingProjection({ name: 'stall_counts' });

describe('a lane batch whose worker dies twice', () => {
  let database: TestDatabase;
  let store: EventStore;
  const prefix = `ojstall-${randomBytes(4).toString('hex')}`;
  const connection = () => redisConnection(requireRedisUrl());
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
      readBatch: 5,
      pollMs: 10,
      rebuilds: false,
      laneLockMs: LOCK_MS,
      ...extra,
    });
    open.push(h);
    return h;
  };
  const append = async (count: number, from: number) => {
    for (let i = from; i < from + count; i++) {
      const user = `st-${i % 6}`;
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
    database = await createTestDatabase('projector_stalled_lane');
    await migrateToLatest(database.db, [storeMigrations, migrations]);
    store = new PostgresEventStore(database);
  });
  afterAll(async () => {
    for (const h of open) await h.stop();
    await store?.close();
    await database?.drop();
    await deleteRedisPrefix(requireRedisUrl(), prefix);
  });

  /**
   * A projector's lane worker that takes the lane's first batch and dies while applying it: its job
   * lock is no longer renewed (closed without waiting, as a killed process). Other batches it meets
   * first are refused, as a gap would be. Resolves once it is dead.
   */
  async function dieOn(lane: number, firstJobId: string): Promise<void> {
    let took!: () => void;
    const taken = new Promise<void>((r) => (took = r));
    const doomed = new Worker(
      laneQueueName(lane),
      async (job: Job) => {
        if (job.id !== firstJobId) throw new Error('not this one yet');
        took();
        return new Promise(() => {}); // dies while applying
      },
      { connection: connection(), prefix, ...laneWorkerOptions(LOCK_MS) },
    );
    doomed.on('error', () => undefined);
    await taken;
    await doomed.close(true);
  }

  it('is retried until it applies, and the lane goes on', async () => {
    // Dispatch only: lane 0's batches wait in its queue.
    const dispatcher = await start({ work: false });
    await append(30, 0);
    while (comparePositions((await readDispatcher(database.db)).checkpoint, last) < 0) await new Promise((r) => setTimeout(r, 10));
    const log = await wholeLog();
    expect(log.filter((e) => laneOf(e.metadata.userId, LANES) === 0).length).toBeGreaterThan(5);
    const queue = new Queue(laneQueueName(0), { connection: connection(), prefix });
    const first = (await queue.getWaiting(0, 1000)).find((j) => j.data.prev === positionToString(START))!;
    await queue.close();
    expect(first).toBeDefined();

    await dieOn(0, first.id!);
    await dieOn(0, first.id!);

    // A healthy projector: the batch that killed two workers is applied, then the rest of the lane.
    const lines: Array<{ level: number; msg: string }> = [];
    const healthy = await start({ logger: pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s)) }) });
    await append(10, 100);
    await healthy.waitFor(last, 30_000);
    expect(await readCounts(database.db, await liveTables(database.db, projection.name))).toEqual(expectedCounts(await wholeLog()));
    await dispatcher.stop();
    await healthy.stop();
  }, 120_000);

  it('a lane that keeps failing is an alert: oj_projector_lane_stuck is 1 and an error is logged, until it applies again', async () => {
    let broken = true;
    const failing = {
      ...projection,
      async apply(ctx: Parameters<typeof projection.apply>[0], events: Parameters<typeof projection.apply>[1]) {
        if (broken && events.some((e) => e.type === 'Poison')) throw new Error('handler bug');
        return projection.apply(ctx, events);
      },
    };
    const lines: Array<{ level: number; msg: string; lane?: number }> = [];
    const metrics = new Registry();
    const p = await start({ projections: [failing], metrics, stuckAfterMs: 300, logger: pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s)) }) });
    const user = 'st-0';
    const lane = laneOf(user, LANES);
    const r = await store.append(
      `trade-${user}.poison`,
      [{ id: randomUUID(), type: 'Poison', schemaVersion: 1, data: {}, metadata: { userId: user, actor: { id: user, role: 'trader' }, correlationId: 'c', causationId: null, idempotencyKey: null, recordedAt: new Date().toISOString(), businessDate: '2026-11-20' } }],
      'any',
    );
    last = r.position;
    const stuckLine = () => lines.find((l) => l.level >= 50 && /lane stuck/.test(l.msg) && l.lane === lane);
    while (!stuckLine()) await new Promise((res) => setTimeout(res, 20));
    expect(await metrics.metrics()).toContain(`oj_projector_lane_stuck{lane="${lane}"} 1`);
    broken = false;
    await p.waitFor(last, 30_000);
    expect(await metrics.metrics()).toContain(`oj_projector_lane_stuck{lane="${lane}"} 0`);
    expect(await readCounts(database.db, await liveTables(database.db, projection.name))).toEqual(expectedCounts(await wholeLog()));
    await p.stop();
  }, 60_000);
});
