import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker, type Queue, type QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { sql } from 'kysely';
import { randomBytes, randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { requireRedisUrl } from '@oj/infra/testing/env';
import { migrateToLatest } from '@oj/infra/db/migrate';
import { migrations as storeMigrations } from '@oj/infra/eventstore/migrations';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { START, type EventStore, type StoredEvent } from '@oj/infra/eventstore/port';
import { createLogger } from '@oj/infra/logger';
import { migrations } from './migrations.ts';
import { countingProjection, expectedCounts, readCounts } from './test-projection.ts';
import { redisConnection, startProjector, type ProjectorHandle } from './projector.ts';
import { liveTables, readRegistry } from './registry.ts';
import { rebuild, type RebuildProgress, type RebuildResult } from './rebuild.ts';
import { enqueueRebuild, followRebuild, openRebuildQueue, REBUILD_QUEUE, rebuildJobId, rebuildWorkerOptions, startRebuildWorker, type RebuildJobData, type RebuildWorker } from './rebuild-job.ts';

const logger = createLogger('silent');
const projection = countingProjection();
const projections = [projection];
const LANES = 2;

async function readLog(store: EventStore): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  let after = START;
  for (;;) {
    const batch = await store.readAll({ after, streamPrefixes: ['trade-'], limit: 1000 });
    out.push(...batch);
    if (batch.length < 1000) return out;
    after = batch.at(-1)!.position;
  }
}

async function append(store: EventStore, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const user = `u-${i % 7}`;
    await store.append(
      `trade-${user}.l${i % 3}`,
      [
        {
          id: randomUUID(),
          type: `E${i}`,
          schemaVersion: 1,
          data: { i },
          metadata: { userId: user, actor: { id: user, role: 'trader' }, correlationId: 'c', causationId: null, idempotencyKey: null, recordedAt: new Date().toISOString(), businessDate: '2026-11-20' },
        },
      ],
      'any',
    );
  }
}

describe('rebuilds as BullMQ jobs (services mode)', () => {
  let database: TestDatabase;
  let store: EventStore;
  let queue: Queue<RebuildJobData, RebuildResult[]>;
  let events: QueueEvents;
  let rebuildQueue: Awaited<ReturnType<typeof openRebuildQueue>>;
  const prefix = `ojtest-${randomBytes(4).toString('hex')}`;
  const open: ProjectorHandle[] = [];
  const start = async () => {
    const handle = await startProjector({
      config: { PROJECTOR_LANES: LANES, REDIS_URL: requireRedisUrl() },
      database,
      eventStore: store,
      logger,
      metrics: new Registry(),
      projections,
      bullPrefix: prefix,
      pollMs: 20,
      rebuildLockMs: 2000,
    });
    open.push(handle);
    return handle;
  };
  const deps = () => ({ database, eventStore: store, projections, lanes: LANES });

  beforeAll(async () => {
    database = await createTestDatabase('projector_rebuild_job');
    await migrateToLatest(database.db, [storeMigrations, migrations]);
    store = new PostgresEventStore(database);
    rebuildQueue = await openRebuildQueue(redisConnection(requireRedisUrl()), prefix);
    ({ queue, events } = rebuildQueue);
  });
  afterAll(async () => {
    for (const h of open) await h.stop();
    await rebuildQueue?.close();
    await store?.close();
    await database?.drop();
    const redis = new Redis(requireRedisUrl());
    try {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
    } finally {
      await redis.quit();
    }
  });

  it('names jobs deterministically, without the key separator', () => {
    expect(rebuildJobId('trades')).toBe('rebuild-trades');
    expect(rebuildJobId('all', 'a:b')).toBe('rebuild-all-user-a_b');
  });

  it('a rebuild through the job equals a direct rebuild, and reports progress', async () => {
    const projector = await start();
    await append(store, 120);
    await projector.waitFor('head', 30_000);
    const progress: RebuildProgress[] = [];
    const { job, existing } = await enqueueRebuild(queue, { target: projection.name, batchSize: 25 }, projections);
    expect(existing).toBe(false);
    const results = await followRebuild(job, events, { onProgress: (p) => progress.push(p) });
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ projection: projection.name, switched: true });
    expect(progress.some((p) => p.phase === 'building' && p.eventsDone > 0)).toBe(true);
    expect(progress.at(-1)?.phase).toBe('done');
    const log = await readLog(store);
    const viaJob = await readCounts(database.db, await liveTables(database.db, projection.name));
    expect(viaJob).toEqual(expectedCounts(log));

    const [direct] = await rebuild(deps(), projection.name, { switch: false });
    const building = (await readRegistry(database.db, projection.name)).find((r) => r.version === direct!.version)!;
    expect(await readCounts(database.db, building.tables)).toEqual(viaJob);

    // A finished job with the same id is replaced by the next rebuild.
    const again = await enqueueRebuild(queue, { target: projection.name }, projections);
    expect(again.existing).toBe(false);
    expect(again.job.id).toBe(job.id);
    const [second] = await followRebuild(again.job, events);
    // It resumed the version the direct rebuild left building.
    expect(second).toMatchObject({ version: direct!.version, switched: true });
    await projector.stop();
  });

  it('a projector stopped in the middle of a rebuild job leaves it to the next one, which resumes from the checkpoint', async () => {
    const first = await start();
    await append(store, 400);
    await first.waitFor('head', 30_000);
    let stopped: Promise<void> | null = null;
    const { job } = await enqueueRebuild(queue, { target: projection.name, batchSize: 2 }, projections);
    const result = followRebuild(job, events, {
      onProgress: (p) => {
        // Stopping sets the flag at once: the rebuild stops after the batch in flight.
        if (!stopped && p.phase === 'building' && p.eventsDone > 0) stopped = first.stop();
      },
    });
    await new Promise<void>((resolve) => {
      const check = () => (stopped ? resolve() : setTimeout(check, 10));
      check();
    });
    await stopped;
    expect(await job.getState()).toBe('waiting');
    const second = await start();
    const [r] = await result;
    expect(r!.resumedFrom).not.toBeNull();
    expect(r!.switched).toBe(true);
    const total = (await readLog(store)).length;
    expect(r!.eventsApplied).toBeLessThan(total);
    expect(await readCounts(database.db, await liveTables(database.db, projection.name))).toEqual(expectedCounts(await readLog(store)));
    await second.stop();
  });

  it("a killed projector's rebuild job is taken over by the next projector once its lock expired, from the checkpoint", async () => {
    await append(store, 50);
    const { job } = await enqueueRebuild(queue, { target: projection.name, batchSize: 5 }, projections);
    // The killed projector: a worker with the projector's BullMQ options (a stand-in with other options,
    // e.g. BullMQ's default 30 s stalled interval, would hold the queue's stalled-check key that long and
    // delay the takeover past the test's timeout: why this test once hung). It builds two batches, then
    // dies: its advisory lock is released (a dead session's would be), its job lock is no longer renewed.
    // It runs no stalled check of its own, so nothing but the next projector can move the job.
    let died!: () => void;
    const dead = new Promise<void>((r) => (died = r));
    const doomed = new Worker<RebuildJobData>(
      REBUILD_QUEUE,
      async () => {
        let batches = 0;
        await rebuild(deps(), projection.name, {
          batchSize: 5,
          onProgress: (p) => {
            if (p.phase === 'building' && p.eventsDone > 0 && ++batches === 2) throw new Error('killed');
          },
        }).catch(() => undefined);
        died();
        return new Promise(() => {}); // never returns, as a dead process
      },
      { connection: redisConnection(requireRedisUrl()), prefix, ...rebuildWorkerOptions(1000), skipStalledCheck: true },
    );
    doomed.on('error', () => undefined);
    await dead;
    const building = await sql<{ done: number }>`select events_done::int as done from projection_rebuilds where projection = ${projection.name} and finished_at is null`.execute(database.db);
    expect(building.rows.map((r) => r.done)).toEqual([10]);
    await doomed.close(true);
    expect(await job.getState()).toBe('active');
    const next = await start();
    const [r] = await followRebuild(job, events);
    expect(r!.resumedFrom).not.toBeNull();
    expect(r!.switched).toBe(true);
    // Resumed after the two committed batches, not from the start.
    expect(r!.eventsApplied).toBe((await readLog(store)).length - 10);
    expect(await readCounts(database.db, await liveTables(database.db, projection.name))).toEqual(expectedCounts(await readLog(store)));
    await next.stop();
  });

  it('a rebuild asked for by other read-model code is left for a projector running that code, and fails saying so when none does (QA 75)', async () => {
    await append(store, 20);
    // Another release's projector: the same read model at another code version.
    const otherCode = { ...projection, version: projection.version + 1 };
    const other = startRebuildWorker({ connection: redisConnection(requireRedisUrl()), prefix, logger, deps: { ...deps(), projections: [otherCode] }, otherCodeDelayMs: 50, otherCodeAttempts: 3 });
    try {
      const { job } = await enqueueRebuild(queue, { target: projection.name, switch: false }, projections);
      expect(job.data.codeVersions).toEqual({ [projection.name]: projection.version });
      await expect(job.waitUntilFinished(events)).rejects.toThrow(
        `This rebuild of ${projection.name} was asked for by formulas v${projection.version}, and this projector runs formulas v${otherCode.version}, and no projector running that code took it: run the rebuild with --here from that release, or again once its projectors run.`,
      );
      expect((await readRegistry(database.db, projection.name)).filter((r) => r.status === 'building')).toEqual([]);
    } finally {
      await other.stop();
    }
    // With a projector of the asking code beside one of the other code, that one builds it, whichever took it first.
    const patient = startRebuildWorker({ connection: redisConnection(requireRedisUrl()), prefix, logger, deps: { ...deps(), projections: [otherCode] }, otherCodeDelayMs: 50 });
    try {
      const same = startRebuildWorker({ connection: redisConnection(requireRedisUrl()), prefix, logger, deps: deps(), otherCodeDelayMs: 50 });
      try {
        const again = await enqueueRebuild(queue, { target: projection.name, switch: false }, projections);
        const [r] = await again.job.waitUntilFinished(events);
        // The other code's projector steps aside after leaving it, so the asking code's takes it at its
        // next turn (before it did, the leaver took it back up to 20 times of 30, and it could fail).
        expect((await queue.getJob(again.job.id!))?.data.leftByOtherCode ?? 0).toBeLessThanOrEqual(2);
        const built = (await readRegistry(database.db, projection.name)).find((v) => v.version === r!.version)!;
        expect(built).toMatchObject({ status: 'building', codeVersion: projection.version });
        await rebuild(deps(), projection.name, { switch: true });
      } finally {
        await same.stop();
      }
    } finally {
      await patient.stop();
    }
  });

  it('a projector stopped once the switch committed (phase done) finishes the job instead of queueing a second rebuild', async () => {
    await append(store, 30);
    const versionsBefore = (await readRegistry(database.db, projection.name)).map((r) => r.version);
    // eslint-disable-next-line prefer-const -- assigned once below; the projection's callback above reads it when the worker runs
    let worker: RebuildWorker | undefined;
    let stopped: Promise<void> | undefined;
    // Row counts are taken after the switch committed and before 'done' is reported: stop right there.
    const stopAfterSwitch = {
      ...projection,
      countRows: (db: Parameters<NonNullable<typeof projection.countRows>>[0], tables: Record<string, string>) => {
        stopped ??= worker!.stop();
        return projection.countRows!(db, tables);
      },
    };
    worker = startRebuildWorker({ connection: redisConnection(requireRedisUrl()), prefix, logger, deps: { ...deps(), projections: [stopAfterSwitch] } });
    const { job } = await enqueueRebuild(queue, { target: projection.name, batchSize: 10 }, projections);
    while (!stopped) await new Promise((r) => setTimeout(r, 10));
    await stopped;
    const afterStop = await readRegistry(database.db, projection.name);
    const built = Math.max(...afterStop.map((r) => r.version));
    expect(afterStop.find((r) => r.status === 'live')?.version).toBe(built);
    // A next projector must find nothing left to do: the switch is done, no second full rebuild.
    const next = startRebuildWorker({ connection: redisConnection(requireRedisUrl()), prefix, logger, deps: deps() });
    try {
      const [r] = await job.waitUntilFinished(events);
      expect(r).toMatchObject({ projection: projection.name, version: built, switched: true });
    } finally {
      await next.stop();
    }
    expect((await readRegistry(database.db, projection.name)).map((r) => r.version)).toEqual([...new Set([...versionsBefore, built])].sort((a, b) => a - b));
  });
});
