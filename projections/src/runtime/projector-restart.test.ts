import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, type Job } from 'bullmq';
import { Registry } from 'prom-client';
import { randomBytes, randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { requireRedisUrl } from '@oj/infra/testing/env';
import { deleteRedisPrefix } from '@oj/infra/testing/redis';
import { migrateToLatest } from '@oj/infra/db/migrate';
import { migrations as storeMigrations } from '@oj/infra/eventstore/migrations';
import { START, comparePositions, positionToString, type EventStore, type LogPosition, type StoredEvent } from '@oj/infra/eventstore/port';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { createLogger } from '@oj/infra/logger';
import { migrations } from './migrations.ts';
import { countingProjection, expectedCounts, readCounts } from './test-projection.ts';
import { laneQueueName, redisConnection, startProjector, type ProjectorHandle, type ProjectorOptions } from './projector.ts';
import { fromWire, laneOf, toWire, type WireEvent } from './lanes.ts';
import { liveTables, readDispatcher, readRegistry } from './registry.ts';
import { rebuild } from './rebuild.ts';

/**
 * The BullMQ transport taken apart on real PostgreSQL and Redis, each step deterministic: the dispatcher
 * alone fills the lanes and stops; one lane's worker alone applies its lane and stops (the read model is
 * now certainly mid-stream); jobs are delivered again; a full projector finishes. The result must equal
 * a clean run, and a rebuild from empty must equal the live version.
 */
const logger = createLogger('silent');
const projection = countingProjection({ name: 'restart_counts' });
const LANES = 3;
const users = Array.from({ length: 300 }, (_, i) => `r-${i}`)
  .reduce<string[][]>((acc, u) => (acc[laneOf(u, LANES)]!.length < 3 && acc[laneOf(u, LANES)]!.push(u), acc), Array.from({ length: LANES }, () => []))
  .flat();

interface LaneJob {
  lane: number;
  prev: string;
  events: WireEvent[];
}

describe('projector (BullMQ lanes) stopped mid-stream, restarted, jobs delivered twice', () => {
  let database: TestDatabase;
  let store: EventStore;
  const prefix = `ojrestart-${randomBytes(4).toString('hex')}`;
  const handles: ProjectorHandle[] = [];
  let appended: LogPosition = START;
  let sequence = 0;

  const start = async (extra: Partial<ProjectorOptions> = {}) => {
    const handle = await startProjector({
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
      ...extra,
    });
    handles.push(handle);
    return handle;
  };
  const append = async (count: number) => {
    for (let i = 0; i < count; i++, sequence++) {
      const user = users[(sequence * 7) % users.length]!;
      const result = await store.append(
        `trade-${user}.l${sequence % 2}`,
        [{ id: randomUUID(), type: `E${sequence}`, schemaVersion: 1, data: {}, metadata: { userId: user, actor: { id: user, role: 'trader' }, correlationId: 'c', causationId: null, idempotencyKey: null, recordedAt: new Date().toISOString(), businessDate: '2026-11-20' } }],
        'any',
      );
      appended = result.position;
    }
  };
  /** The whole log once readers see every append (they wait for older transactions on the server). */
  const wholeLog = async (): Promise<StoredEvent[]> => {
    for (;;) {
      const log = await store.readAll({ streamPrefixes: ['trade-'], limit: 10_000 });
      if (comparePositions(log.at(-1)?.position ?? START, appended) >= 0) return log;
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const until = async (check: () => Promise<boolean>) => {
    while (!(await check())) await new Promise((r) => setTimeout(r, 20));
  };
  const current = async () => readCounts(database.db, await liveTables(database.db, projection.name));
  const queues = () => Array.from({ length: LANES }, (_, lane) => new Queue<LaneJob>(laneQueueName(lane), { connection: redisConnection(requireRedisUrl()), prefix }));

  beforeAll(async () => {
    database = await createTestDatabase('projector_restart');
    await migrateToLatest(database.db, [storeMigrations, migrations]);
    store = new PostgresEventStore(database);
  });
  afterAll(async () => {
    for (const h of handles) await h.stop();
    await store?.close();
    await database?.drop();
    await deleteRedisPrefix(requireRedisUrl(), prefix);
  });

  it('leaves the read model equal to a clean run, and a rebuild from empty equal to it', async () => {
    await append(60);
    const log = await wholeLog();
    const byLane = (lane: number, events: readonly StoredEvent[]) => events.filter((e) => laneOf(e.metadata.userId, LANES) === lane);
    expect(new Set(log.map((e) => laneOf(e.metadata.userId, LANES))).size).toBe(LANES);

    // 1. The dispatcher alone: every event goes into a lane job, nothing is applied.
    const dispatcher = await start({ work: false });
    await until(async () => comparePositions((await readDispatcher(database.db)).checkpoint, appended) >= 0);
    await dispatcher.stop();
    expect(await current()).toEqual({ streams: {}, users: {} });

    const lanes = queues();
    try {
      // Job ids are deterministic (lane and the batch's first and last positions) and free of ':'.
      const dispatched = await Promise.all(lanes.map((q) => q.getJobs(['waiting', 'prioritized', 'delayed'])));
      for (const [lane, jobs] of dispatched.entries()) {
        const events = jobs.sort((a, b) => (a.id! < b.id! ? -1 : 1)).flatMap((j: Job<LaneJob>) => j.data.events.map(fromWire));
        expect(events.map((e) => e.id)).toEqual(byLane(lane, log).map((e) => e.id));
        for (const job of jobs) {
          expect(job.id).not.toContain(':');
          expect(job.id).toBe(`l${lane}-${job.data.events[0]!.position}-${job.data.events.at(-1)!.position}`);
        }
      }

      // 2. Lane 0's worker alone applies its lane, then stops: the read model is mid-stream.
      const lane0 = await start({ dispatch: false, workLanes: [0] });
      const lane0Only = expectedCounts(byLane(0, log));
      await until(async () => isDeepStrictEqual(await current(), lane0Only));
      await lane0.stop();
      expect(await current()).toEqual(lane0Only);

      // 3. Deliveries again: lane 0 whole (already applied), lane 1 from its middle (not applied yet:
      // refused as a gap until the lane's earlier jobs land, then a duplicate).
      const lane1 = byLane(1, log);
      const mid = Math.floor(lane1.length / 2);
      const again = [
        await lanes[0]!.add('batch', { lane: 0, prev: 'start', events: byLane(0, log).map(toWire) }, { jobId: 'again-0', attempts: 1_000_000, backoff: { type: 'lane' } }),
        await lanes[1]!.add('batch', { lane: 1, prev: positionToString(lane1[mid - 1]!.position), events: lane1.slice(mid).map(toWire) }, { jobId: 'again-1', attempts: 1_000_000, backoff: { type: 'lane' } }),
      ];

      // 4. A full projector takes over, and the log grows meanwhile.
      const full = await start();
      await append(30);
      await full.waitFor(appended, 30_000);
      for (const job of again) await until(async () => (await job.getState()) === 'completed');
      const finalLog = await wholeLog();
      expect(await current()).toEqual(expectedCounts(finalLog));
      await full.stop();
    } finally {
      await Promise.all(lanes.map((q) => q.close()));
    }

    // 5. A rebuild from empty equals the live read model.
    const deps = { database, eventStore: store, projections: [projection], lanes: LANES };
    const [built] = await rebuild(deps, projection.name, { batchSize: 25, switch: false });
    expect(built!.switched).toBe(false);
    const rows = await readRegistry(database.db, projection.name);
    const building = rows.find((r) => r.status === 'building')!;
    expect(await readCounts(database.db, building.tables)).toEqual(await current());
  });
});
