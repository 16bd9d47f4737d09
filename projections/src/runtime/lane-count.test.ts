import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
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
import { startProjector, type ProjectorHandle, type ProjectorOptions } from './projector.ts';
import { liveTables, readCheckpoints, readDispatcher, readRegistry } from './registry.ts';
import { rebuild, rollback } from './rebuild.ts';
import { laneOf } from './lanes.ts';

/**
 * PROJECTOR_LANES changes: lane rows and checkpoints follow the count through drain, rebuild, switch
 * and rollback, and a projector stopped during the drain leaves the old count recorded.
 */
const logger = createLogger('silent');
const projection = countingProjection({ name: 'lane_counts' });
/** Users spread over every lane of every count used here (2, 3, 5). */
const users = Array.from({ length: 40 }, (_, i) => `lc-${i}`);

function setupStore(name: string) {
  const ctx = {
    database: undefined as unknown as TestDatabase,
    store: undefined as unknown as EventStore,
    last: START as LogPosition,
    n: 0,
    async open() {
      ctx.database = await createTestDatabase(name);
      await migrateToLatest(ctx.database.db, [storeMigrations, migrations]);
      ctx.store = new PostgresEventStore(ctx.database);
    },
    async close() {
      await ctx.store?.close();
      await ctx.database?.drop();
    },
    async append(count: number) {
      for (let i = 0; i < count; i++, ctx.n++) {
        const user = users[(ctx.n * 7) % users.length]!;
        const r = await ctx.store.append(
          `trade-${user}.l${ctx.n % 2}`,
          [{ id: randomUUID(), type: `E${ctx.n}`, schemaVersion: 1, data: {}, metadata: { userId: user, actor: { id: user, role: 'trader' }, correlationId: 'c', causationId: null, idempotencyKey: null, recordedAt: new Date().toISOString(), businessDate: '2026-11-20' } }],
          'any',
        );
        ctx.last = r.position;
      }
    },
    async wholeLog(): Promise<StoredEvent[]> {
      for (;;) {
        const log = await ctx.store.readAll({ streamPrefixes: ['trade-'], limit: 100_000 });
        if (comparePositions(log.at(-1)?.position ?? START, ctx.last) >= 0) return log;
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async current() {
      return readCounts(ctx.database.db, await liveTables(ctx.database.db, projection.name));
    },
    async laneRows() {
      const d = await readDispatcher(ctx.database.db);
      const live = (await readRegistry(ctx.database.db, projection.name)).find((r) => r.status === 'live')!;
      const cps = await readCheckpoints(ctx.database.db, projection.name, live.version);
      return { lanes: d.lanes, dispatched: [...d.lastDispatched.keys()].sort(), checkpoints: [...cps.keys()].sort(), registryLanes: live.lanes };
    },
  };
  return ctx;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('lane count changes, in process', () => {
  const t = setupStore('projector_lane_count');
  beforeAll(() => t.open());
  afterAll(() => t.close());
  const start = (lanes: number) =>
    startProjector({ config: { PROJECTOR_LANES: lanes, REDIS_URL: undefined }, database: t.database, eventStore: t.store, logger, metrics: new Registry(), projections: [projection], readBatch: 13, pollMs: 10 });
  const deps = (lanes: number) => ({ database: t.database, eventStore: t.store, projections: [projection], lanes });

  it('5 -> 2, rebuild and switch, then 2 -> 5: lane rows and checkpoints follow the count, nothing freezes', async () => {
    let p = await start(5);
    await t.append(40);
    await p.waitFor(t.last, 30_000);
    await p.stop();

    p = await start(2);
    await t.append(30);
    await p.waitFor(t.last, 30_000);
    expect(await t.laneRows()).toEqual({ lanes: 2, dispatched: range(2), checkpoints: range(2), registryLanes: 2 });
    const [built] = await rebuild(deps(2), projection.name, { batchSize: 17 });
    expect(built!.switched).toBe(true);
    await t.append(20);
    await p.waitFor(t.last, 30_000);
    await p.stop();

    p = await start(5);
    try {
      await t.append(30);
      await p.waitFor(t.last, 20_000);
      expect(await t.current()).toEqual(expectedCounts(await t.wholeLog()));
      expect(await t.laneRows()).toEqual({ lanes: 5, dispatched: range(5), checkpoints: range(5), registryLanes: 5 });

      // Roll back to the version whose checkpoints were written with 2 lanes, while routing with 5.
      const back = await rollback(deps(5), projection.name);
      expect(back.to).toBeLessThan(built!.version);
      await t.append(20);
      await p.waitFor(t.last, 20_000);
      expect(await t.current()).toEqual(expectedCounts(await t.wholeLog()));
      expect(await t.laneRows()).toEqual({ lanes: 5, dispatched: range(5), checkpoints: range(5), registryLanes: 5 });
    } finally {
      await p.stop();
    }
  }, 120_000);
});

describe('lane count changes with BullMQ lanes', () => {
  const t = setupStore('projector_lane_drain');
  const prefix = `ojlanes-${randomBytes(4).toString('hex')}`;
  const open: ProjectorHandle[] = [];
  beforeAll(() => t.open());
  afterAll(async () => {
    for (const h of open) await h.stop();
    await t.close();
    await deleteRedisPrefix(requireRedisUrl(), prefix);
  });
  const start = async (lanes: number, extra: Partial<ProjectorOptions> = {}) => {
    const h = await startProjector({
      config: { PROJECTOR_LANES: lanes, REDIS_URL: requireRedisUrl() },
      database: t.database,
      eventStore: t.store,
      logger,
      metrics: new Registry(),
      projections: [projection],
      bullPrefix: prefix,
      readBatch: 13,
      pollMs: 10,
      rebuilds: false,
      ...extra,
    });
    open.push(h);
    return h;
  };

  it('a projector stopped during the drain leaves the old lane count recorded; the next start drains first', async () => {
    // Lane 0 of 3 has nobody working it: its batches stay queued, so the old lanes are not drained.
    const first = await start(3, { workLanes: [1, 2] });
    await t.append(40);
    const log = await t.wholeLog();
    expect(log.some((e) => laneOf(e.metadata.userId, 3) === 0)).toBe(true);
    while (comparePositions((await readDispatcher(t.database.db)).checkpoint, t.last) < 0) await new Promise((r) => setTimeout(r, 10));
    await first.stop();

    const lines: Array<{ msg: string }> = [];
    const draining = await start(2, { workLanes: [1, 2], logger: pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) }) });
    while (!lines.some((l) => /draining/.test(l.msg))) await new Promise((r) => setTimeout(r, 10));
    await draining.stop();
    expect((await readDispatcher(t.database.db)).lanes).toBe(3);

    // Every lane worked: the old lanes drain, then routing changes; no user's order breaks.
    const next = await start(2);
    await t.append(30);
    await next.waitFor(t.last, 30_000);
    expect(await t.current()).toEqual(expectedCounts(await t.wholeLog()));
    expect(await t.laneRows()).toEqual({ lanes: 2, dispatched: range(2), checkpoints: range(2), registryLanes: 2 });
    await next.stop();
  }, 120_000);

  it('a rollback catches the retired version up by the lane count its checkpoints were written with', async () => {
    // 2 lanes, lane 0 unworked: at the switch the old version's lane 0 is behind its lane 1.
    const lagging = await start(2, { workLanes: [1] });
    await t.append(40);
    while (comparePositions((await readDispatcher(t.database.db)).checkpoint, t.last) < 0) await new Promise((r) => setTimeout(r, 10));
    const deps = (lanes: number) => ({ database: t.database, eventStore: t.store, projections: [projection], lanes });
    const old = (await readRegistry(t.database.db, projection.name)).find((r) => r.status === 'live')!;
    const [built] = await rebuild(deps(2), projection.name);
    expect(built!.switched).toBe(true);
    await lagging.stop();
    const oldCps = await readCheckpoints(t.database.db, projection.name, old.version);
    expect(comparePositions(oldCps.get(0)!, oldCps.get(1)!)).toBeLessThan(0);
    // Users whose events the old version's lane 0 lacks, and whom 5 lanes would route to lane 1.
    const log = await t.wholeLog();
    const exposed = log.filter((e) => laneOf(e.metadata.userId, 2) === 0 && laneOf(e.metadata.userId, 5) === 1 && comparePositions(e.position, oldCps.get(0)!) > 0);
    expect(exposed.length).toBeGreaterThan(0);

    // Now 5 lanes; roll back to the version keyed with 2.
    const wide = await start(5);
    await t.append(20);
    await wide.waitFor(t.last, 30_000);
    const back = await rollback(deps(5), projection.name);
    expect(back.to).toBe(old.version);
    await t.append(20);
    await wide.waitFor(t.last, 30_000);
    expect(await t.current()).toEqual(expectedCounts(await t.wholeLog()));
    expect(await t.laneRows()).toEqual({ lanes: 5, dispatched: range(5), checkpoints: range(5), registryLanes: 5 });
    await wide.stop();
  }, 120_000);
});
