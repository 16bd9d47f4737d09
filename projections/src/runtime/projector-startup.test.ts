import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { randomUUID } from 'node:crypto';
import type { StartupProgress } from '@oj/contracts/common';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { migrateToLatest } from '@oj/infra/db/migrate';
import { migrations as storeMigrations } from '@oj/infra/eventstore/migrations';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import type { EventStore } from '@oj/infra/eventstore/port';
import { migrations } from './migrations.ts';
import { countingProjection, expectedCounts, readCounts } from './test-projection.ts';
import { startProjector, type ProjectorHandle, type ProjectorOptions } from './projector.ts';
import { liveRow, liveTables } from './registry.ts';
import type { Projection } from './projection.ts';

/**
 * What a projector in process reports of its start (`startup()`, `startedUp`): the embedded journal's
 * API holds every request on it (services/src/platform/startup-gate.ts), so it must end once the read
 * models answer for the log as it was at the start, and not before: its figures would be behind, or
 * built by the formulas of the release before.
 */
describe('a projector in process, reporting its start', () => {
  let database: TestDatabase;
  let store: EventStore;
  const open: ProjectorHandle[] = [];
  let n = 0;

  /** Starts a projector in process; `seen` gets its `startup()` each time the dispatcher records a read. */
  const start = async (projection: Projection, seen: Array<StartupProgress | null> = [], extra: Partial<ProjectorOptions> = {}) => {
    const ref: { handle?: ProjectorHandle } = {};
    const handle = (ref.handle = await startProjector({
      config: { PROJECTOR_LANES: 2, REDIS_URL: undefined },
      database,
      eventStore: store,
      logger: pino({ level: 'silent' }),
      metrics: new Registry(),
      projections: [projection],
      pollMs: 20,
      readBatch: 7,
      beforePersist: async () => void (ref.handle && seen.push(ref.handle.startup())),
      ...extra,
    }));
    open.push(handle);
    return handle;
  };
  const append = async (count: number) => {
    for (let i = 0; i < count; i++, n++) {
      const user = `u-${n % 5}`;
      await store.append(
        `trade-${user}.l${n % 3}`,
        [{ id: randomUUID(), type: `E${n}`, schemaVersion: 1, data: {}, metadata: { userId: user, actor: { id: user, role: 'trader' }, correlationId: 'c', causationId: null, idempotencyKey: null, recordedAt: new Date().toISOString(), businessDate: '2026-11-20' } }],
        'any',
      );
    }
  };
  const counts = async (name: string) => readCounts(database.db, await liveTables(database.db, name));
  const wholeLog = () => store.readAll({ streamPrefixes: ['trade-'], limit: 100_000 });

  beforeAll(async () => {
    database = await createTestDatabase('projector_startup');
    await migrateToLatest(database.db, [storeMigrations, migrations]);
    store = new PostgresEventStore(database);
  });
  afterAll(async () => {
    for (const h of open) await h.stop();
    await store?.close();
    await database?.drop();
  });

  it('catching up a log written while it was stopped: counts the events, and ends once they are applied', async () => {
    await append(60);
    const seen: Array<StartupProgress | null> = [];
    const p = await start(countingProjection({ name: 'startup_counts', version: 1 }), seen);
    expect(p.startup(), 'not done when start returns').not.toBeNull();
    await p.startedUp;
    expect(p.startup()).toBeNull();
    // Everything up to the head as it was at the start is applied by then (not merely handed out).
    expect(await counts('startup_counts')).toEqual(expectedCounts(await wholeLog()));
    const catching = seen.filter((s): s is StartupProgress => s?.phase === 'catching-up');
    expect(catching.length, 'reads seen while catching up').toBeGreaterThan(3);
    expect(new Set(catching.map((s) => s.total))).toEqual(new Set([60]));
    const done = catching.map((s) => s.done);
    expect(done, 'done only grows').toEqual([...done].sort((a, b) => a - b));
    expect(done.at(-1)).toBeLessThan(60);
    await p.stop();
  }, 60_000);

  it('after an upgrade whose formulas changed: reports the rebuild, then ends with the new version live and complete', async () => {
    const before = (await liveRow(database.db, 'startup_counts'))!;
    await append(30);
    const seen: Array<StartupProgress | null> = [];
    let handle: ProjectorHandle | undefined;
    // The rebuild's progress is reported before the dispatcher's first read: sampled while it runs.
    const sampler = setInterval(() => handle && seen.push(handle.startup()), 1);
    try {
      handle = await start(countingProjection({ name: 'startup_counts', version: 2 }), seen);
      await handle.startedUp;
    } finally {
      clearInterval(sampler);
    }
    const live = (await liveRow(database.db, 'startup_counts'))!;
    expect(live.codeVersion).toBe(2);
    expect(live.version).not.toBe(before.version);
    expect(handle.startup()).toBeNull();
    expect(await counts('startup_counts')).toEqual(expectedCounts(await wholeLog()));
    const rebuilding = seen.filter((s): s is StartupProgress => s?.phase === 'rebuilding');
    expect(rebuilding.length, 'the rebuild was reported').toBeGreaterThan(0);
    expect(rebuilding[0]).toMatchObject({ projection: 'startup_counts', total: 90, retrying: false });
    await handle.stop();
  }, 60_000);

  it('beside another process that dispatches: has nothing of its own to bring up to date', async () => {
    const leader = await start(countingProjection({ name: 'startup_counts', version: 2 }));
    await leader.startedUp;
    expect(leader.isLeader()).toBe(true);
    const other = await start(countingProjection({ name: 'startup_counts', version: 2 }), [], { electionMs: 50 });
    await other.startedUp;
    expect(other.isLeader()).toBe(false);
    expect(other.startup()).toBeNull();
    await other.stop();
    await leader.stop();
  }, 60_000);

  it('stopped before it was done: startedUp rejects, so nothing waits on it for ever', async () => {
    await append(40);
    const ref: { handle?: ProjectorHandle } = {};
    let stopping: Promise<void> | undefined;
    // Stopped at its first read of the 40 (7 a read): it cannot have reached the head.
    const handle = (ref.handle = await start(countingProjection({ name: 'startup_counts', version: 2 }), [], { beforePersist: async () => void (stopping ??= ref.handle?.stop()) }));
    await expect(handle.startedUp).rejects.toThrow(/stopped before its read models were up to date/);
    expect(handle.startup()).toMatchObject({ phase: 'catching-up', total: 40 });
    await stopping;
  }, 60_000);

  it('stopped during its start-up rebuild: stops after the batch in hand, keeps the live version, and the next start finishes it', async () => {
    const live = (await liveRow(database.db, 'startup_counts'))!;
    const v3 = countingProjection({ name: 'startup_counts', version: 3 });
    let entered: () => void = () => undefined;
    const inBatch = new Promise<void>((resolve) => (entered = resolve));
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The rebuild's batch waits in its apply until the projector was told to stop (SIGTERM).
    const held: Projection = { ...v3, apply: async (ctx, events) => (entered(), await released, v3.apply(ctx, events)) };
    const p = await start(held);
    await inBatch;
    const stopping = p.stop();
    release();
    await stopping;
    await expect(p.startedUp).rejects.toThrow(/stopped before/);
    // QA 78: it ran on through finishing and switching to the shutdown deadline. The live version stays.
    expect((await liveRow(database.db, 'startup_counts'))!.version).toBe(live.version);
    const again = await start(v3);
    await again.startedUp;
    expect((await liveRow(database.db, 'startup_counts'))!.codeVersion).toBe(3);
    expect(await counts('startup_counts')).toEqual(expectedCounts(await wholeLog()));
    await again.stop();
  }, 60_000);
});

