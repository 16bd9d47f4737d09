import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { migrateToLatest } from '@oj/infra/db/migrate';
import { migrations as storeMigrations } from '@oj/infra/eventstore/migrations';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { START, comparePositions, type EventStore, type LogPosition, type StoredEvent } from '@oj/infra/eventstore/port';
import { createLogger } from '@oj/infra/logger';
import { migrations } from './migrations.ts';
import { countingProjection, expectedCounts, readCounts } from './test-projection.ts';
import { startProjector, type ProjectorHandle } from './projector.ts';
import { liveTables, readRegistry } from './registry.ts';
import { rebuild, RebuildLockedError, retire, rollback, switchVersion, UnfinishedBuildError } from './rebuild.ts';
import { LOCK_REBUILD, tryLock } from './locks.ts';
import type { Projection } from './projection.ts';

/** Switch and rollback never touch a version a rebuild is writing, nor one whose build did not finish. */
const logger = createLogger('silent');
const LANES = 2;
const projection = countingProjection({ name: 'guard_counts' });

describe('switch and rollback guards', () => {
  let database: TestDatabase;
  let store: EventStore;
  let projector: ProjectorHandle;
  let last: LogPosition = START;
  let n = 0;
  const deps = (projections: Projection[] = [projection]) => ({ database, eventStore: store, projections, lanes: LANES });
  const append = async (count: number) => {
    for (let i = 0; i < count; i++, n++) {
      const user = `g-${n % 4}`;
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

  beforeAll(async () => {
    database = await createTestDatabase('projector_switch_guards');
    await migrateToLatest(database.db, [storeMigrations, migrations]);
    store = new PostgresEventStore(database);
    projector = await startProjector({ config: { PROJECTOR_LANES: LANES, REDIS_URL: undefined }, database, eventStore: store, logger, metrics: new Registry(), projections: [projection], pollMs: 10 });
    await append(30);
    await projector.waitFor(last, 30_000);
  });
  afterAll(async () => {
    await projector?.stop();
    await store?.close();
    await database?.drop();
  });

  it('refuses to switch a version whose rebuild was killed before the end of its finishing step', async () => {
    let armed = true;
    // The finishing step computes what bulk batches leave out (the daily premium records in the trade
    // read models): killed there, the version lacks those rows.
    const withFinishing: Projection = {
      ...projection,
      async finishBulk() {
        if (armed) throw new Error('killed while finishing');
      },
    };
    await expect(rebuild(deps([withFinishing]), projection.name, { switch: false, batchSize: 7 })).rejects.toThrow('killed while finishing');
    const building = (await readRegistry(database.db, projection.name)).find((r) => r.status === 'building')!;
    await expect(switchVersion(deps([withFinishing]), projection.name, building.version)).rejects.toBeInstanceOf(UnfinishedBuildError);
    await expect(switchVersion(deps([withFinishing]), projection.name, building.version)).rejects.toThrow(`run \`npm run projections -- rebuild ${projection.name}\` to finish it`);
    expect((await readRegistry(database.db, projection.name)).find((r) => r.status === 'live')!.version).not.toBe(building.version);

    // Resumed, it finishes; then the switch goes through.
    armed = false;
    const [resumed] = await rebuild(deps([withFinishing]), projection.name, { switch: false });
    expect(resumed!.version).toBe(building.version);
    await append(5);
    await switchVersion(deps([withFinishing]), projection.name, building.version);
    await projector.waitFor(last, 30_000);
    expect(await liveTables(database.db, projection.name)).toEqual(building.tables);
    expect(await readCounts(database.db, building.tables)).toEqual(expectedCounts(await wholeLog()));
  });

  it('refuses switch, rollback and retire while a rebuild of the projection runs (holds its lock)', async () => {
    const [built] = await rebuild(deps(), projection.name, { switch: false });
    const running = await tryLock(database, LOCK_REBUILD, projection.name);
    expect(running).not.toBeNull();
    try {
      await expect(switchVersion(deps(), projection.name, built!.version)).rejects.toBeInstanceOf(RebuildLockedError);
      await expect(switchVersion(deps(), projection.name, built!.version)).rejects.toThrow(`Cannot switch ${projection.name}: a rebuild of ${projection.name} is running`);
      await expect(rollback(deps(), projection.name)).rejects.toBeInstanceOf(RebuildLockedError);
      await expect(retire(deps(), projection.name)).rejects.toBeInstanceOf(RebuildLockedError);
    } finally {
      await running!.release();
    }
    const before = (await readRegistry(database.db, projection.name)).map((r) => [r.version, r.status]);
    expect(before.some(([v, s]) => v === built!.version && s === 'building')).toBe(true);
    await switchVersion(deps(), projection.name, built!.version);
    await rollback(deps(), projection.name);
    await append(5);
    await projector.waitFor(last, 30_000);
    expect(await readCounts(database.db, await liveTables(database.db, projection.name))).toEqual(expectedCounts(await wholeLog()));
  });

  it('a rollback to a far-behind version catches up in bounded batches, not the whole log in one transaction', async () => {
    const [fresh] = await rebuild(deps(), projection.name);
    expect(fresh!.switched).toBe(true);
    // The version just retired falls behind by 60 events.
    await append(60);
    await projector.waitFor(last, 30_000);
    const sizes: number[] = [];
    const recording: Projection = {
      ...projection,
      apply: (ctx, events) => {
        if (ctx.mode === 'rebuild') sizes.push(events.length);
        return projection.apply(ctx, events);
      },
    };
    await rollback(deps([recording]), projection.name, { catchUpBatch: 7 });
    expect(sizes.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(60);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(7);
    await append(5);
    await projector.waitFor(last, 30_000);
    expect(await readCounts(database.db, await liveTables(database.db, projection.name))).toEqual(expectedCounts(await wholeLog()));
  });
});
