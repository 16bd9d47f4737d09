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
import { migrations } from './migrations.ts';
import { countingProjection, expectedCounts, readCounts } from './test-projection.ts';
import { startProjector, type ProjectorHandle, type ProjectorOptions } from './projector.ts';
import { liveTables, readDispatcher } from './registry.ts';
import type { Projection } from './projection.ts';

/**
 * Code and data versions out of step: the registry's live version was built by formulas v2 (a bumped
 * version deployed), then the code is rolled back to v1 (or an old worker runs beside a new one). The
 * old code must not acknowledge lane batches it cannot apply, and must say so loudly; once the right
 * code runs again the read model catches up with nothing missing.
 */
const LANES = 2;

/** A logger whose lines the test can read (JSON objects, every level). */
function capturingLogger() {
  const lines: Array<{ level: number; msg: string; [k: string]: unknown }> = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { logger, lines };
}

describe('projector with code and data versions out of step (BullMQ lanes)', () => {
  let database: TestDatabase;
  let store: EventStore;
  const prefix = `ojskew-${randomBytes(4).toString('hex')}`;
  const open: ProjectorHandle[] = [];
  let last: LogPosition = START;
  let n = 0;

  const start = async (projection: Projection, extra: Partial<ProjectorOptions> = {}) => {
    const handle = await startProjector({
      config: { PROJECTOR_LANES: LANES, REDIS_URL: requireRedisUrl() },
      database,
      eventStore: store,
      logger: capturingLogger().logger,
      metrics: new Registry(),
      projections: [projection],
      bullPrefix: prefix,
      pollMs: 20,
      rebuilds: false,
      ...extra,
    });
    open.push(handle);
    return handle;
  };
  const append = async (count: number) => {
    for (let i = 0; i < count; i++, n++) {
      const user = `s-${n % 5}`;
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
  const until = async (what: string, f: () => Promise<boolean> | boolean, ms = 20_000) => {
    const deadline = Date.now() + ms;
    while (!(await f())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  beforeAll(async () => {
    database = await createTestDatabase('projector_skew');
    await migrateToLatest(database.db, [storeMigrations, migrations]);
    store = new PostgresEventStore(database);
  });
  afterAll(async () => {
    for (const h of open) await h.stop();
    await store?.close();
    await database?.drop();
    await deleteRedisPrefix(requireRedisUrl(), prefix);
  });

  it('a worker whose code does not know the live version refuses its batches loudly, and the right code then catches up', async () => {
    const v2 = countingProjection({ name: 'skew_counts', version: 2 });
    const v1 = countingProjection({ name: 'skew_counts', version: 1 });
    const newer = await start(v2);
    await append(20);
    await newer.waitFor(last, 30_000);
    await newer.stop();

    // The code is rolled back to formulas v1 while v2 is live.
    const { logger, lines } = capturingLogger();
    const metrics = new Registry();
    const older = await start(v1, { logger, metrics });
    await append(20);
    await until('the old dispatcher handed out the new events', async () => comparePositions((await readDispatcher(database.db)).checkpoint, last) >= 0);
    const refused = () => lines.filter((l) => l.level >= 50 && /skew_counts/.test(String((l.err as { message?: string } | undefined)?.message ?? '')));
    await until('an error-level log naming the read model', () => refused().length > 0);
    expect(String((refused()[0]!.err as { message: string }).message)).toMatch(/formulas v2.*v1|v1.*formulas v2/);
    const text = await metrics.metrics();
    expect(text).toMatch(/oj_projector_lane_failures_total\{lane="\d",reason="version"\} [1-9]/);
    // Every refusal is counted, but one alike to the last logged is logged once per interval (30 s), not
    // on every retry (QA 75: 717 error lines with stacks in 64 s for one lane).
    const failures = async () => [...(await metrics.metrics()).matchAll(/oj_projector_lane_failures_total\{lane="\d",reason="version"\} (\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
    await until('the refused batches retried a few times', async () => (await failures()) >= 6);
    const logged = lines.filter((l) => l.msg.startsWith('lane batch failed'));
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.length).toBeLessThanOrEqual(LANES);
    await older.stop();

    // The v2 code is back: nothing was acknowledged without being applied, so it catches up.
    const back = await start(v2);
    await back.waitFor(last, 20_000);
    expect(await readCounts(database.db, await liveTables(database.db, 'skew_counts'))).toEqual(expectedCounts(await wholeLog()));
  }, 90_000);
});
