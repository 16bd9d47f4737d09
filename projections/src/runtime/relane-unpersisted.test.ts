import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { migrateToLatest } from '@oj/infra/db/migrate';
import { migrations as storeMigrations } from '@oj/infra/eventstore/migrations';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { START, comparePositions, type LogPosition, type StoredEvent } from '@oj/infra/eventstore/port';
import { createLogger } from '@oj/infra/logger';
import { migrations } from './migrations.ts';
import { countingProjection, expectedCounts, readCounts } from './test-projection.ts';
import { startProjector } from './projector.ts';
import { liveTables, readDispatcher } from './registry.ts';
import { applyLaneBatch } from './apply.ts';
import { laneOf } from './lanes.ts';

/**
 * A dispatcher killed between queueing a read's lane batches and recording that read leaves batches in
 * the lanes beyond the recorded dispatcher position D. If one lane applies its batch and another does
 * not before the next start changes the lane count, the re-keyed lanes must not start past what every
 * old lane applied: the other lane's users' events after D would never be applied (a silent hole).
 */
const logger = createLogger('silent');
const projection = countingProjection({ name: 'relane_unpersisted' });
const users = Array.from({ length: 24 }, (_, i) => `ru-${i}`);

describe('lane count change after a dispatcher crashed before recording a read', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;
  let last: LogPosition = START;
  let n = 0;
  beforeAll(async () => {
    database = await createTestDatabase('relane_unpersisted');
    await migrateToLatest(database.db, [storeMigrations, migrations]);
    store = new PostgresEventStore(database);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });
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
  const start = (lanes: number) =>
    startProjector({ config: { PROJECTOR_LANES: lanes, REDIS_URL: undefined }, database, eventStore: store, logger, metrics: new Registry(), projections: [projection], readBatch: 50, pollMs: 10 });

  it('re-keys the lanes at the recorded position, not at a lane that ran ahead of it', async () => {
    const p = await start(2);
    await append(30);
    await p.waitFor(last, 30_000);
    await p.stop();
    const recorded = await readDispatcher(database.db);
    expect(recorded.lanes).toBe(2);

    // The killed dispatcher's read: events after D, queued for lanes 0 and 1, D not moved. Lane 0's
    // worker applies its batch; lane 1's batch is still waiting (or lost with Redis).
    await append(20);
    const after = (await wholeLog()).filter((e) => comparePositions(e.position, recorded.checkpoint) > 0);
    const lane0 = after.filter((e) => laneOf(e.metadata.userId, 2) === 0);
    const lane1 = after.filter((e) => laneOf(e.metadata.userId, 2) === 1);
    expect(lane0.length).toBeGreaterThan(0);
    expect(lane1.length).toBeGreaterThan(0);
    // Lane 1 has events before lane 0's last one: re-keying at lane 0's position would skip them.
    expect(comparePositions(lane1[0]!.position, lane0.at(-1)!.position)).toBeLessThan(0);
    await applyLaneBatch(database.db, [projection], { lane: 0, prev: recorded.lastDispatched.get(0) ?? START, events: lane0 });

    // Next start with 3 lanes: the old lanes look drained (each is at least at what D handed it).
    const wide = await start(3);
    try {
      await append(5);
      await wide.waitFor(last, 30_000);
      expect(await readCounts(database.db, await liveTables(database.db, projection.name))).toEqual(expectedCounts(await wholeLog()));
    } finally {
      await wide.stop();
    }
  }, 60_000);
});
