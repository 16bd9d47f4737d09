import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { createTestDatabase } from '@oj/infra/testing/postgres';
import { migrateToLatest } from '@oj/infra/db/migrate';
import { migrations as storeMigrations } from '@oj/infra/eventstore/migrations';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { comparePositions, START, type LogPosition } from '@oj/infra/eventstore/port';
import { createLogger } from '@oj/infra/logger';
import { migrations } from './migrations.ts';
import { countingProjection } from './test-projection.ts';
import { startProjector } from './projector.ts';
import { laneOf, posParams } from './lanes.ts';
import { readLag, readRoutedLag } from './registry.ts';
import { until } from './testing.ts';

/**
 * The lag an operator reads (console, CLI, metrics, the benches' "caught up") must never say 0 for a
 * lane that is behind. The case that did: lanes nobody's events were routed to stay at the start of the
 * log, the capped read started there, covered only old events, and reported a lane thousands of events
 * behind as caught up (the processes bench then compared a half-applied read model with a rebuild).
 */
const LANES = 3;
const projections = [countingProjection()];
const logger = createLogger('silent');
/** One user: every event goes to one lane, the other two never get any. */
const user = 'lag-user';
const lane = laneOf(user, LANES);

describe('projector lag', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let store: PostgresEventStore;
  /** Appends n events, and returns once readers see them (an older transaction anywhere on the server holds them back). */
  const append = async (n: number) => {
    let last: LogPosition | undefined;
    for (let i = 0; i < n; i++) {
      ({ position: last } = await store.append(`trade-${user}.l${i % 3}`, [{ id: randomUUID(), type: 'E', schemaVersion: 1, data: { i }, metadata: { userId: user, actor: { id: user, role: 'trader' }, correlationId: 'c', causationId: null, idempotencyKey: null, recordedAt: new Date().toISOString(), businessDate: '2026-11-20' } }], 'any'));
    }
    const upTo = last;
    if (upTo) await until(async () => comparePositions((await store.head()) ?? START, upTo) >= 0, { what: 'the appended events to become visible', timeoutMs: 6000 });
  };
  const lag = (cap: number) => readLag(database.db, store, projections, LANES, { cap });

  beforeAll(async () => {
    database = await createTestDatabase('projector_lag');
    await migrateToLatest(database.db, [storeMigrations, migrations]);
    store = new PostgresEventStore(database);
    const projector = await startProjector({ config: { PROJECTOR_LANES: LANES, REDIS_URL: undefined }, database, eventStore: store, logger, metrics: new Registry(), projections, readBatch: 25, pollMs: 10 });
    try {
      await append(60);
      await projector.waitFor('head', 30_000);
    } finally {
      await projector.stop();
    }
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it("is read for the lanes the dispatcher routes with, whatever the reader's own lane count (QA: a gateway's /metrics with another PROJECTOR_LANES)", async () => {
    for (const configured of [2, LANES, 6]) {
      const rows = await readRoutedLag(database.db, store, projections, configured, { cap: 20 });
      expect(rows.map((r) => r.lane)).toEqual([0, 1, 2]);
    }
  });

  it('is 0 on every lane once everything is applied, however long the log before it', async () => {
    const rows = await lag(20);
    expect(rows).toHaveLength(LANES);
    expect(rows.every((r) => r.behindEvents === 0 && !r.capped)).toBe(true);
  });

  it('counts the events not dispatched yet, even when idle lanes sit at the start of a log longer than the cap', async () => {
    await append(15);
    const rows = await lag(20);
    // Before the fix: lane 1 reported 0 (the 20 events read from the start were all applied).
    expect(rows.find((r) => r.lane === lane)).toMatchObject({ behindEvents: 15, capped: false });
    expect(rows.filter((r) => r.lane !== lane).every((r) => r.behindEvents === 0)).toBe(true);
  });

  it('counts events handed to a lane that it has not applied (the dispatcher ahead of the lane)', async () => {
    // The dispatcher handed the lane everything (its rows say so); the lane's checkpoint is 15 behind.
    const head = (await store.head())!;
    const p = posParams(head);
    await sql`update projector_dispatcher set commit = ${p.commit}, prepare = ${p.prepare} where id = 'main'`.execute(database.db);
    await sql`insert into projector_lanes (lane, commit, prepare) values (${lane}, ${p.commit}, ${p.prepare}) on conflict (lane) do update set commit = excluded.commit, prepare = excluded.prepare`.execute(database.db);
    expect((await lag(20)).find((r) => r.lane === lane)).toMatchObject({ behindEvents: 15, capped: false });
  });

  it('says a count stopped by the cap is a lower bound, on every lane', async () => {
    const rows = await lag(10);
    expect(rows.find((r) => r.lane === lane)).toMatchObject({ behindEvents: 10, capped: true });
    expect(rows.every((r) => r.capped)).toBe(true);
  });
});
