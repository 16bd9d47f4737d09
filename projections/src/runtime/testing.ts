import { afterAll, beforeAll } from 'vitest';
import { Queue } from 'bullmq';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { randomBytes, randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { requireRedisUrl } from '@oj/infra/testing/env';
import { deleteRedisPrefix } from '@oj/infra/testing/redis';
import { migrateToLatest } from '@oj/infra/db/migrate';
import type { Database } from '@oj/infra/db/database';
import { migrations as storeMigrations } from '@oj/infra/eventstore/migrations';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { START, comparePositions, type EventStore, type LogPosition, type NewEvent, type StoredEvent } from '@oj/infra/eventstore/port';
import { createLogger } from '@oj/infra/logger';
import { migrations } from './migrations.ts';
import { readCounts } from './test-projection.ts';
import { laneQueueName, redisConnection, startProjector, type ProjectorHandle, type ProjectorOptions } from './projector.ts';
import { liveTables, readDispatcher } from './registry.ts';
import type { Projection } from './projection.ts';

/**
 * Scaffolding of the projector runtime's tests: a real PostgreSQL database with the store's and the
 * runtime's migrations, projectors started with a BullMQ prefix of their own, synthetic trade events,
 * and clean-up of all of it. Each test file keeps only its story and its assertions.
 */

export const silentLogger = createLogger('silent');

/** A trade-journal event of `user` with the metadata every synthetic event here carries. */
export function tradeEvent(user: string, type: string, data: unknown = {}): NewEvent {
  return {
    id: randomUUID(),
    type,
    schemaVersion: 1,
    data,
    metadata: { userId: user, actor: { id: user, role: 'trader' }, correlationId: 'c', causationId: null, idempotencyKey: null, recordedAt: new Date().toISOString(), businessDate: '2026-11-20' },
  };
}

/** The store's and the runtime's tables in `database`, and a store on it. */
export async function openTestStore(database: Database): Promise<PostgresEventStore> {
  await migrateToLatest(database.db, [storeMigrations, migrations]);
  return new PostgresEventStore(database);
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `check` until it holds; with `timeoutMs`, fails naming `what` once that much time has passed. */
export async function until(check: () => boolean | Promise<boolean>, options: { what?: string; timeoutMs?: number; everyMs?: number } = {}): Promise<void> {
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${options.what ?? 'a condition'}`);
    await sleep(options.everyMs ?? 10);
  }
}

/**
 * The trade streams' whole log once readers see `upTo`. An append is visible only when every
 * transaction older than it has ended, on the whole server (other tests and benchmarks included), so
 * a read straight after an append may not show it yet.
 */
export async function readWholeLog(store: EventStore, upTo: LogPosition): Promise<StoredEvent[]> {
  for (;;) {
    const log: StoredEvent[] = [];
    for (let after = START; ; ) {
      const batch = await store.readAll({ after, streamPrefixes: ['trade-'], limit: 1000 });
      log.push(...batch);
      if (batch.length < 1000) break;
      after = batch.at(-1)!.position;
    }
    if (comparePositions(log.at(-1)?.position ?? START, upTo) >= 0) return log;
    await sleep(10);
  }
}

/** A logger whose lines the test can read (JSON objects, from `level` up). */
export function capturingLogger(level: 'debug' | 'info' = 'debug') {
  const lines: Array<{ level: number; msg: string; [k: string]: unknown }> = [];
  const logger = pino({ level }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { logger, lines };
}

export interface RuntimeTestBedOptions {
  /** The read model the projectors run (and `current()` reads). */
  projection: Projection;
  /** PROJECTOR_LANES of every start, unless a start names its own. */
  lanes?: number;
  /** BullMQ lanes on the test Redis, under a prefix of this test bed's own (deleted afterwards); else in process. */
  bullmq?: boolean;
  /** Whose the n-th appended event is (n counts every append of the test bed, from 0). */
  user: (n: number) => string;
  /** Options every start begins with (readBatch, pollMs, rebuilds, lostBatchCheckMs...). */
  projector?: Partial<ProjectorOptions>;
}

export interface RuntimeTestBed {
  readonly database: TestDatabase;
  readonly store: PostgresEventStore;
  /** The BullMQ prefix (with `bullmq`). */
  readonly prefix: string;
  /** The position of the last event appended through the test bed. */
  last: LogPosition;
  /** A projector on this database (stopped after the file if the test does not stop it). */
  start(extra?: Partial<ProjectorOptions> & { lanes?: number }): Promise<ProjectorHandle>;
  /** Stops every projector started so far. */
  stopAll(): Promise<void>;
  /** Appends `count` events, numbered from `from` (default: after the last): event n is `E<n>` of `user(n)` in `trade-<user>.l<n % 2>`. */
  append(count: number, from?: number): Promise<void>;
  /** The whole log once readers see the last append. */
  wholeLog(): Promise<StoredEvent[]>;
  /** Waits until the dispatcher has handed out the log up to the last append. */
  dispatched(): Promise<void>;
  /** The projection's rows in its live version, in the shape of `expectedCounts`. */
  current(): Promise<Awaited<ReturnType<typeof readCounts>>>;
  /** What rebuild, rollback, switch and retire take. */
  deps(lanes?: number): { database: TestDatabase; eventStore: EventStore; projections: Projection[]; lanes: number };
  /** A lane's BullMQ queue under the test bed's prefix (the caller closes it). */
  laneQueue<T = any>(lane: number): Queue<T>;
}

/**
 * A test database, store and projectors for one describe block: registers the hooks that open them
 * before its tests and, after them, stop every projector, close the store, drop the database and
 * delete the Redis prefix. `name` labels the database.
 */
export function runtimeTestBed(name: string, options: RuntimeTestBedOptions): RuntimeTestBed {
  const lanes = options.lanes ?? 2;
  const prefix = `oj${name.replace(/[^a-z0-9]/gi, '').slice(0, 12)}-${randomBytes(4).toString('hex')}`;
  const handles: ProjectorHandle[] = [];
  let database: TestDatabase | undefined;
  let store: PostgresEventStore | undefined;
  let n = 0;
  const opened = <T>(what: T | undefined): T => {
    if (what === undefined) throw new Error('the test bed opens in beforeAll: use it inside a test or hook');
    return what;
  };

  const bed: RuntimeTestBed = {
    get database() {
      return opened(database);
    },
    get store() {
      return opened(store);
    },
    prefix,
    last: START,
    async start({ lanes: count = lanes, ...extra } = {}) {
      const handle = await startProjector({
        config: { PROJECTOR_LANES: count, REDIS_URL: options.bullmq ? requireRedisUrl() : undefined },
        database: bed.database,
        eventStore: bed.store,
        logger: silentLogger,
        metrics: new Registry(),
        projections: [options.projection],
        ...(options.bullmq ? { bullPrefix: prefix } : {}),
        ...options.projector,
        ...extra,
      });
      handles.push(handle);
      return handle;
    },
    async stopAll() {
      for (const h of handles) await h.stop();
    },
    async append(count, from = n) {
      for (n = from; n < from + count; n++) {
        const user = options.user(n);
        bed.last = (await bed.store.append(`trade-${user}.l${n % 2}`, [tradeEvent(user, `E${n}`)], 'any')).position;
      }
    },
    wholeLog: () => readWholeLog(bed.store, bed.last),
    dispatched: () => until(async () => comparePositions((await readDispatcher(bed.database.db)).checkpoint, bed.last) >= 0),
    current: async () => readCounts(bed.database.db, await liveTables(bed.database.db, options.projection.name)),
    deps: (count = lanes) => ({ database: bed.database, eventStore: bed.store, projections: [options.projection], lanes: count }),
    laneQueue: (lane) => new Queue(laneQueueName(lane), { connection: redisConnection(requireRedisUrl()), prefix }),
  };

  beforeAll(async () => {
    database = await createTestDatabase(name);
    store = await openTestStore(database);
  });
  afterAll(async () => {
    await bed.stopAll();
    await store?.close();
    await database?.drop();
    if (options.bullmq) await deleteRedisPrefix(requireRedisUrl(), prefix);
  });
  return bed;
}
