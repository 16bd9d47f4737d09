import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { Registry } from 'prom-client';
import { randomBytes, randomUUID } from 'node:crypto';
import { createPGliteDatabase, createTestDatabase } from '@oj/infra/testing/postgres';
import { requireRedisUrl } from '@oj/infra/testing/env';
import { deleteRedisPrefix } from '@oj/infra/testing/redis';
import { migrateToLatest } from '@oj/infra/db/migrate';
import { migrations as storeMigrations } from '@oj/infra/eventstore/migrations';
import type { Database } from '@oj/infra/db/database';
import { START, comparePositions, positionToString, type EventStore, type LogPosition, type StoredEvent } from '@oj/infra/eventstore/port';
import { createLogger } from '@oj/infra/logger';
import { migrations } from './migrations.ts';
import { countingProjection, expectedCounts, readCounts } from './test-projection.ts';
import { laneQueueName, redisConnection, startProjector, type ProjectorHandle } from './projector.ts';
import { applyLaneBatch, LaneGapError } from './apply.ts';
import { liveTables, readRegistry } from './registry.ts';
import { diff, rebuild, RebuildLockedError, retire, rollback, switchVersion } from './rebuild.ts';
import { LOCK_REBUILD, tryLock } from './locks.ts';
import { sleep } from './testing.ts';
import { laneOf, toWire } from './lanes.ts';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';

const logger = createLogger('silent');
const projection = countingProjection();
const projections = [projection];
const LANES = 3;

/** Two users per lane, so every lane has interleaved users. */
const users = Array.from({ length: 200 }, (_, i) => `u-${i}`)
  .reduce<string[][]>((acc, u) => (acc[laneOf(u, LANES)]!.length < 2 && acc[laneOf(u, LANES)]!.push(u), acc), Array.from({ length: LANES }, () => []))
  .flat();

/** Deterministic interleaving of users and lineages: the same seed appends the same content. */
async function appendEvents(store: EventStore, count: number, seed: number, from = 0): Promise<LogPosition> {
  let last = START;
  let x = seed;
  const rand = (n: number) => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0), x % n);
  for (let i = from; i < from + count; i++) {
    const user = users[rand(users.length)]!;
    const lineage = `l${rand(3)}`;
    const result = await store.append(
      `trade-${user}.${lineage}`,
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
    last = result.position;
  }
  if (comparePositions(last, upTo(store)) > 0) appended.set(store, last);
  return last;
}

/** The log as readers see it, once it includes everything appended so far (readers wait for in-flight transactions). */
const appended = new WeakMap<EventStore, LogPosition>();
const upTo = (store: EventStore) => appended.get(store) ?? START;
async function wholeLog(store: EventStore): Promise<StoredEvent[]> {
  for (;;) {
    const log = await readLog(store);
    if (comparePositions(log.at(-1)?.position ?? START, upTo(store)) >= 0) return log;
    await new Promise((r) => setTimeout(r, 10));
  }
}
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

async function setup(database: Database) {
  await migrateToLatest(database.db, [storeMigrations, migrations]);
  return new PostgresEventStore(database);
}

const cleanRedis = (prefix: string) => deleteRedisPrefix(requireRedisUrl(), prefix);

const current = async (database: Database) => readCounts(database.db, await liveTables(database.db, projection.name));

describe('projector on PostgreSQL with BullMQ lanes', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let store: EventStore;
  const prefix = `ojtest-${randomBytes(4).toString('hex')}`;
  const open: ProjectorHandle[] = [];
  const start = async (extra: Partial<Parameters<typeof startProjector>[0]> = {}) => {
    const handle = await startProjector({
      config: { PROJECTOR_LANES: LANES, REDIS_URL: requireRedisUrl() },
      database,
      eventStore: store,
      logger,
      metrics: new Registry(),
      projections,
      bullPrefix: prefix,
      readBatch: 40,
      pollMs: 20,
      ...extra,
    });
    open.push(handle);
    return handle;
  };
  const deps = () => ({ database, eventStore: store, projections, lanes: LANES });

  beforeAll(async () => {
    database = await createTestDatabase('projector_bullmq');
    store = await setup(database);
  });
  afterAll(async () => {
    for (const h of open) await h.stop();
    await store?.close();
    await database?.drop();
    await cleanRedis(prefix);
  });

  it('applies each user events in log order while several lanes run', async () => {
    const projector = await start();
    await appendEvents(store, 150, 7);
    await projector.waitFor(upTo(store), 30_000);
    const log = await wholeLog(store);
    expect(new Set(log.map((e) => laneOf(e.metadata.userId, LANES))).size).toBeGreaterThan(1);
    expect(await current(database)).toEqual(expectedCounts(log));
    const lag = await projector.lag();
    expect(lag.every((l) => l.behindEvents === 0)).toBe(true);
    // Its lanes' connections and the dispatcher's stay open through quiet spells while it runs, and no longer.
    expect(database.pool!.options.min).toBe(LANES + 2);
    await projector.stop();
    expect(database.pool!.options.min).toBe(0);
  });

  it('a projector stopped mid-stream and restarted, and jobs delivered twice, leave the read model as a clean run', async () => {
    const first = await start();
    await appendEvents(store, 120, 11, 1000);
    await first.stop();
    await appendEvents(store, 60, 13, 2000);
    const second = await start();
    await second.waitFor(upTo(store), 30_000);
    const log = await wholeLog(store);
    expect(await current(database)).toEqual(expectedCounts(log));

    // Deliver everything again by hand: whole lanes from the start, and a slice from the middle.
    const jobs = [];
    const queues = Array.from({ length: LANES }, (_, lane) => new Queue(laneQueueName(lane), { connection: redisConnection(requireRedisUrl()), prefix }));
    try {
      for (const [lane, queue] of queues.entries()) {
        const events = log.filter((e) => laneOf(e.metadata.userId, LANES) === lane);
        jobs.push(await queue.add('batch', { lane, prev: 'start', events: events.map(toWire) }, { jobId: `dup-all-${lane}` }));
        const mid = Math.floor(events.length / 2);
        jobs.push(await queue.add('batch', { lane, prev: positionToString(events[mid - 1]!.position), events: events.slice(mid, mid + 10).map(toWire) }, { jobId: `dup-mid-${lane}` }));
      }
      for (const job of jobs) {
        while ((await job.getState()) !== 'completed') await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await Promise.all(queues.map((q) => q.close()));
    }
    expect(await current(database)).toEqual(expectedCounts(log));
    await second.stop();
  });

  it('refuses a batch that follows events the lane has not applied (a gap), then accepts it in order', async () => {
    const projector = await start();
    await projector.waitFor(upTo(store), 30_000);
    await projector.stop();
    const log = await wholeLog(store);
    await appendEvents(store, 20, 17, 3000);
    const fresh = (await wholeLog(store)).slice(log.length).filter((e) => laneOf(e.metadata.userId, LANES) === 0);
    expect(fresh.length).toBeGreaterThan(2);
    const lastApplied = log.filter((e) => laneOf(e.metadata.userId, LANES) === 0).at(-1)!.position;
    const [a, b] = [fresh.slice(0, 2), fresh.slice(2)];
    await expect(applyLaneBatch(database.db, projections, { lane: 0, prev: a.at(-1)!.position, events: b })).rejects.toBeInstanceOf(LaneGapError);
    await applyLaneBatch(database.db, projections, { lane: 0, prev: lastApplied, events: a });
    await applyLaneBatch(database.db, projections, { lane: 0, prev: a.at(-1)!.position, events: b });
    // Let the dispatcher hand out the rest (lane 0's share is a duplicate now).
    const again = await start();
    await again.waitFor(upTo(store), 30_000);
    expect(await current(database)).toEqual(expectedCounts(await wholeLog(store)));
    await again.stop();
  });

  it('a rebuild from empty equals the live version row by row; switch, rollback and retire', async () => {
    const projector = await start();
    await projector.waitFor(upTo(store), 30_000);
    const [built] = await rebuild(deps(), projection.name, { batchSize: 37, switch: false });
    expect(built!.switched).toBe(false);
    const rows = await readRegistry(database.db, projection.name);
    const live = rows.find((r) => r.status === 'live')!;
    const building = rows.find((r) => r.status === 'building')!;
    expect(building.version).toBe(live.version + 1);
    expect(await readCounts(database.db, building.tables)).toEqual(await readCounts(database.db, live.tables));
    const d = await diff(deps(), projection.name);
    expect(d.map((t) => [t.table, t.onlyInLive, t.onlyInOther, t.totals.length])).toEqual([
      ['stream_counts', 0, 0, 0],
      ['user_sequences', 0, 0, 0],
    ]);

    // Events arrive between the build and the switch, and while the new version is live.
    await appendEvents(store, 30, 19, 4000);
    await switchVersion(deps(), projection.name, building.version);
    expect(await liveTables(database.db, projection.name)).toEqual(building.tables);
    await appendEvents(store, 30, 23, 5000);
    await projector.waitFor(upTo(store), 30_000);
    const log = await wholeLog(store);
    expect(await current(database)).toEqual(expectedCounts(log));

    const back = await rollback(deps(), projection.name);
    expect(back).toEqual({ from: building.version, to: live.version });
    await appendEvents(store, 10, 29, 6000);
    await projector.waitFor(upTo(store), 30_000);
    expect(await liveTables(database.db, projection.name)).toEqual(live.tables);
    expect(await current(database)).toEqual(expectedCounts(await wholeLog(store)));
    expect(await retire(deps(), projection.name)).toEqual([building.version]);
    expect((await readRegistry(database.db, projection.name)).map((r) => [r.version, r.status])).toEqual([[live.version, 'live']]);
    await projector.stop();
  });

  it('a rebuild switches while lanes keep applying new events, losing none', async () => {
    const projector = await start();
    const [, [result]] = await Promise.all([appendEvents(store, 120, 53, 8000), rebuild(deps(), projection.name, { batchSize: 20 })]);
    expect(result!.switched).toBe(true);
    await appendEvents(store, 10, 59, 9000);
    await projector.waitFor(upTo(store), 30_000);
    expect(await liveTables(database.db, projection.name)).toEqual({ stream_counts: `stream_counts_v${result!.version}`, user_sequences: `user_sequences_v${result!.version}` });
    expect(await current(database)).toEqual(expectedCounts(await wholeLog(store)));
    await retire(deps(), projection.name);
    await projector.stop();
  });

  it('a killed rebuild resumes from its checkpoint; only one rebuild of a projection runs at a time', async () => {
    const projector = await start();
    const total = (await wholeLog(store)).length;
    await expect(
      rebuild(deps(), projection.name, {
        batchSize: 50,
        onProgress: (p) => {
          if (p.eventsDone >= 100) throw new Error('killed');
        },
      }),
    ).rejects.toThrow('killed');
    const held = await tryLock(database, LOCK_REBUILD, projection.name);
    await expect(rebuild(deps(), projection.name)).rejects.toBeInstanceOf(RebuildLockedError);
    await held!.release();
    const progress: number[] = [];
    const [resumed] = await rebuild(deps(), projection.name, { batchSize: 50, onProgress: (p) => progress.push(p.eventsDone) });
    expect(resumed!.resumedFrom).not.toBe('start');
    expect(progress[0]).toBe(100);
    expect(resumed!.eventsApplied).toBe(total - 100);
    expect(resumed!.switched).toBe(true);
    await projector.waitFor(upTo(store), 30_000);
    expect(await current(database)).toEqual(expectedCounts(await wholeLog(store)));
    await projector.stop();
  });

  it('a rebuild killed after one partition of a batch committed re-applies the batch on resume, changing nothing twice', async () => {
    const projector = await start();
    await projector.waitFor(upTo(store), 30_000);
    const log = await wholeLog(store);
    // The third batch of 40 holds users of both partitions: one partition's transaction fails there.
    const third = log.slice(80, 120);
    const victim = third[0]!.metadata.userId;
    const other = third.find((e) => laneOf(e.metadata.userId, 2) !== laneOf(victim, 2))!.metadata.userId;
    let armed = true;
    const failing = {
      ...projection,
      apply: async (ctx: Parameters<typeof projection.apply>[0], events: readonly StoredEvent[]) => {
        if (armed && ctx.mode === 'bulk' && events.some((e) => e.id === third[0]!.id)) {
          armed = false;
          throw new Error('killed');
        }
        return projection.apply(ctx, events);
      },
    };
    await expect(rebuild({ ...deps(), projections: [failing] }, projection.name, { batchSize: 40, partitions: 2 })).rejects.toThrow('killed');
    const building = (await readRegistry(database.db, projection.name)).find((r) => r.status === 'building')!;
    // The other partition committed its part of the failed batch; the checkpoint stayed before it.
    const partial = await readCounts(database.db, building.tables);
    const seenOf = (u: string, upTo: number) => log.slice(0, upTo).filter((e) => e.metadata.userId === u).length;
    expect(partial.users[other]?.events).toBe(seenOf(other, 120));
    expect(partial.users[victim]?.events ?? 0).toBe(seenOf(victim, 80));
    const [resumed] = await rebuild(deps(), projection.name, { batchSize: 40, partitions: 2 });
    expect(resumed!.resumedFrom).not.toBe('start');
    expect(resumed!.switched).toBe(true);
    await projector.waitFor(upTo(store), 30_000);
    expect(await current(database)).toEqual(expectedCounts(await wholeLog(store)));
    await retire(deps(), projection.name);
    await projector.stop();
  });

  it('runs one dispatcher at a time; another takes over when it stops', async () => {
    const a = await start();
    const b = await start();
    const until = async (f: () => boolean) => {
      while (!f()) await new Promise((r) => setTimeout(r, 20));
    };
    await until(() => a.isLeader() || b.isLeader());
    expect(a.isLeader() && b.isLeader()).toBe(false);
    const [leader, follower] = a.isLeader() ? [a, b] : [b, a];
    await leader.stop();
    await until(() => follower.isLeader());
    await appendEvents(store, 20, 37, 7000);
    await follower.waitFor(upTo(store), 30_000);
    expect(await current(database)).toEqual(expectedCounts(await wholeLog(store)));
    await follower.stop();
  });

  it('two projector processes split the lanes with PROJECTOR_WORK_LANES', async () => {
    const { loadConfig } = await import('@oj/infra/config');
    const env = { NODE_ENV: 'test' as const, DATA_DIR: '/tmp/oj-unused', PROJECTOR_LANES: String(LANES), REDIS_URL: requireRedisUrl() };
    const a = await start({ config: loadConfig({ ...env, PROJECTOR_WORK_LANES: '0' }) });
    const b = await start({ config: loadConfig({ ...env, PROJECTOR_WORK_LANES: '1,2' }) });
    await appendEvents(store, 60, 61, 10_000);
    await (a.isLeader() ? a : b).waitFor(upTo(store), 30_000);
    expect(await current(database)).toEqual(expectedCounts(await wholeLog(store)));
    // Each keeps open the connections of the lanes it works, and the dispatcher's: on one pool, the larger.
    expect(database.pool!.options.min).toBe(2 + 2);
    expect(() => loadConfig({ ...env, PROJECTOR_WORK_LANES: '0,3' })).toThrow('PROJECTOR_WORK_LANES: lane 3 does not exist: lanes are 0..2');
    expect(() => loadConfig({ ...env, PROJECTOR_WORK_LANES: 'one' })).toThrow('PROJECTOR_WORK_LANES: must be a comma-separated list of lane numbers');
    await a.stop();
    expect(database.pool!.options.min).toBe(2 + 2);
    await b.stop();
    expect(database.pool!.options.min).toBe(0);
  });

  it('rebuilds one user in the live version', async () => {
    const projector = await start();
    await projector.waitFor(upTo(store), 30_000);
    const tables = await liveTables(database.db, projection.name);
    await database.db.updateTable(tables.user_sequences!).set({ types: 'corrupt' }).where('user_id', '=', users[0]!).execute();
    await database.db.deleteFrom(tables.stream_counts!).where('user_id', '=', users[0]!).execute();
    await rebuild(deps(), projection.name, { userId: users[0]! });
    expect(await current(database)).toEqual(expectedCounts(await wholeLog(store)));
    await projector.stop();
  });
  it('rebuilds one user while new events keep arriving, from one read of the user however long it takes', async () => {
    const projector = await start();
    await projector.waitFor(upTo(store), 30_000);
    const tables = await liveTables(database.db, projection.name);
    await database.db.deleteFrom(tables.stream_counts!).where('user_id', '=', users[0]!).execute();
    // A heavy user's events take seconds to read; the lane keeps receiving events meanwhile.
    let reads = 0;
    const slowStore = { kind: store.kind, head: () => store.head(), readAll: async (o: Parameters<EventStore['readAll']>[0]) => (reads++, await sleep(400), store.readAll(o)) } as EventStore;
    let loading = true;
    let seed = 900;
    const load = (async () => {
      while (loading) await appendEvents(store, 3, seed++, 20_000 + seed * 10);
    })();
    try {
      const [result] = await rebuild({ ...deps(), eventStore: slowStore }, projection.name, { userId: users[0]! });
      expect(result!.eventsApplied).toBeGreaterThan(0);
      // Read once: the lane waits at its locked checkpoint, so what was read is what there is to apply.
      expect(reads).toBe(1);
    } finally {
      loading = false;
      await load;
    }
    await projector.waitFor(upTo(store), 30_000);
    expect(await current(database)).toEqual(expectedCounts(await wholeLog(store)));
    await projector.stop();
  });

});

describe('projector in process (no Redis)', () => {
  it('builds a read model added to a running deployment, and reports metrics', async () => {
    const database = await createTestDatabase('projector_added');
    const store = await setup(database);
    try {
      const first = await startProjector({ config: { PROJECTOR_LANES: LANES, REDIS_URL: undefined }, database, eventStore: store, logger, metrics: new Registry(), projections, readBatch: 40, pollMs: 10 });
      await appendEvents(store, 60, 3);
      await first.waitFor(upTo(store), 30_000);
      await first.stop();
      const added = countingProjection({ name: 'test_counts_added' });
      const metrics = new Registry();
      const second = await startProjector({ config: { PROJECTOR_LANES: LANES, REDIS_URL: undefined }, database, eventStore: store, logger, metrics, projections: [projection, added], readBatch: 40, pollMs: 10 });
      try {
        await appendEvents(store, 30, 5, 1000);
        await second.waitFor(upTo(store), 30_000);
        const expected = expectedCounts(await wholeLog(store));
        expect(await readCounts(database.db, await liveTables(database.db, added.name))).toEqual(expected);
        expect(await current(database)).toEqual(expected);
        const text = await metrics.metrics();
        expect(text).toMatch(/oj_projector_events_applied_total\{projection="test_counts",lane="\d"\} \d+/);
        expect(text).toMatch(/oj_projector_lag_events\{projection="test_counts_added",lane="0"\} 0/);
        expect(text).toContain('oj_projector_batch_duration_seconds_bucket');
      } finally {
        await second.stop();
      }
    } finally {
      await store.close();
      await database.drop();
    }
  });


  it('changes the lane count without breaking any user order', async () => {
    const database = await createTestDatabase('projector_relane');
    const store = await setup(database);
    try {
      for (const [lanes, seed] of [[3, 41], [5, 43], [2, 47]] as const) {
        const projector = await startProjector({ config: { PROJECTOR_LANES: lanes, REDIS_URL: undefined }, database, eventStore: store, logger, metrics: new Registry(), projections, readBatch: 40, pollMs: 10 });
        try {
          await appendEvents(store, 40, seed, seed * 100);
          await projector.waitFor(upTo(store), 30_000);
          expect(await current(database)).toEqual(expectedCounts(await wholeLog(store)));
        } finally {
          await projector.stop();
        }
      }
    } finally {
      await store.close();
      await database.drop();
    }
  });

  it('gives the same read model on PostgreSQL and on PGlite', async () => {
    const pgDb = await createTestDatabase('projector_inproc');
    const lite = await createPGliteDatabase();
    try {
      const results = [];
      for (const database of [pgDb, lite]) {
        const store = await setup(database);
        const projector = await startProjector({ config: { PROJECTOR_LANES: LANES, REDIS_URL: undefined }, database, eventStore: store, logger, metrics: new Registry(), projections, readBatch: 40, pollMs: 10 });
        try {
          await appendEvents(store, 80, 7);
          await projector.waitFor(upTo(store), 30_000);
          await appendEvents(store, 40, 31, 1000);
          await projector.waitFor(upTo(store), 30_000);
          const counts = await current(database);
          expect(counts).toEqual(expectedCounts(await wholeLog(store)));
          results.push(counts.users);
        } finally {
          await projector.stop();
          await store.close();
        }
      }
      expect(results[0]).toEqual(results[1]);
    } finally {
      await pgDb.drop();
      await lite.close();
    }
    // PGlite's WASM start alone takes seconds on a loaded machine.
  }, 120_000);
});

describe('dispatcher wake-ups', () => {
  /** The safety-net poll never fires within the test: only a wake-up from the store can deliver. */
  const NEVER = 3_600_000;
  const probe = (user: string) => ({
    id: randomUUID(),
    type: 'Probe',
    schemaVersion: 1,
    data: {},
    metadata: { userId: user, actor: { id: user, role: 'trader' as const }, correlationId: 'c', causationId: null, idempotencyKey: null, recordedAt: new Date().toISOString(), businessDate: '2026-11-20' },
  });

  async function wakesOnAppend(database: Database, appender: EventStore, redisUrl: string | undefined, prefix?: string) {
    const store = await setup(database);
    const seen = new Map<string, () => void>();
    const projector = await startProjector({
      config: { PROJECTOR_LANES: LANES, REDIS_URL: redisUrl },
      database,
      eventStore: store,
      logger,
      metrics: new Registry(),
      projections,
      pollMs: NEVER,
      ...(prefix ? { bullPrefix: prefix } : {}),
      onApplied: (batch) => batch.events.forEach((e) => seen.get(e.id)?.()),
    });
    try {
      for (let i = 0; i < 3; i++) {
        // Appended while the dispatcher is idle (after its first read found nothing).
        await new Promise((r) => setTimeout(r, 50));
        const event = probe(users[i]!);
        const applied = new Promise<void>((resolve) => seen.set(event.id, resolve));
        await appender.append(`trade-${users[i]}.wake${i}`, [event], 'no_stream');
        await applied;
      }
    } finally {
      await projector.stop();
      await store.close();
    }
  }

  it('in process on PostgreSQL: an append through another connection pool (NOTIFY) wakes the idle dispatcher', async () => {
    const database = await createTestDatabase('projector_wake');
    const { openDatabase } = await import('@oj/infra/db/database');
    const other = await openDatabase({ url: database.url, poolSize: 2 });
    try {
      await wakesOnAppend(database, new PostgresEventStore(other), undefined);
    } finally {
      await other.close();
      await database.drop();
    }
  });

  it('with BullMQ lanes: the woken dispatcher hands the event to an idle lane worker', async () => {
    const database = await createTestDatabase('projector_wake_bull');
    const { openDatabase } = await import('@oj/infra/db/database');
    const other = await openDatabase({ url: database.url, poolSize: 2 });
    const prefix = `ojtest-${randomBytes(4).toString('hex')}`;
    try {
      await wakesOnAppend(database, new PostgresEventStore(other), requireRedisUrl(), prefix);
    } finally {
      await other.close();
      await database.drop();
      await cleanRedis(prefix);
    }
  });

  it('on PGlite: the in-process signal wakes the dispatcher', async () => {
    const lite = await createPGliteDatabase();
    try {
      await wakesOnAppend(lite, new PostgresEventStore(lite), undefined);
    } finally {
      await lite.close();
    }
  }, 120_000);
});
