import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@oj/infra/config';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { allProjections } from '@oj/projections/catalogue';
import { laneOf } from '@oj/projections/runtime/lanes';
import { readRegistry } from '@oj/projections/runtime/registry';
import { startProjector } from '@oj/projections/runtime/projector';
import { Registry } from 'prom-client';
import { createRuntime, type Runtime } from './runtime.ts';
import { exportProjectionLag } from './lag-metrics.ts';

/**
 * Services mode: the gateway serves `/metrics` for a projector that runs elsewhere. Its lag gauges
 * count, per projection and lane, the events the live read models have not applied yet.
 */
describe('projection lag on the gateway', () => {
  let db: TestDatabase;
  let runtime: Runtime;
  const LANES = 4;

  beforeAll(async () => {
    db = await createTestDatabase('lag_metrics');
    const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: '/tmp/oj-lag-metrics-unused', DATABASE_URL: db.url, JWT_SECRET: 'x'.repeat(40), PROJECTOR_LANES: String(LANES), LOG_LEVEL: 'silent' });
    runtime = await createRuntime(config, { database: db });
    // A projector (elsewhere: its own metrics registry) makes the read models live on the empty log, then stops.
    const { database, eventStore, logger } = runtime.deps;
    const projector = await startProjector({ config, database, eventStore, logger, metrics: new Registry(), projections: allProjections, pollMs: 10 });
    while ((await readRegistry(db.db)).length < allProjections.length) await new Promise((r) => setTimeout(r, 20));
    await projector.stop();
  });
  afterAll(async () => {
    await runtime?.close();
    await db?.drop();
  });

  it('exports lag per projection and lane, counting events the projector has not applied', async () => {
    exportProjectionLag(runtime);
    const metrics = runtime.deps.metrics;
    const user = randomUUID();
    await runtime.deps.eventStore.append(
      `trade-${user}.lag`,
      [{ id: randomUUID(), type: 'TradeDeleted', schemaVersion: 1, data: {}, metadata: { userId: user, actor: { id: user, role: 'trader' }, correlationId: 'c', causationId: null, idempotencyKey: null, recordedAt: new Date().toISOString(), businessDate: '2026-11-20' } }],
      'no_stream',
    );
    const lane = laneOf(user, LANES);
    const behind = new RegExp(`^oj_projector_lag_events\\{projection="trades",lane="${lane}"\\} 1$`, 'm');
    let text = '';
    // Readers see the append once older transactions on the server have ended; lag is cached for 1 s.
    while (!behind.test(text)) {
      text = await metrics.metrics();
      if (!behind.test(text)) await new Promise((r) => setTimeout(r, 200));
    }
    for (let other = 0; other < LANES; other++) {
      if (other !== lane) expect(text).toMatch(new RegExp(`^oj_projector_lag_events\\{projection="trades",lane="${other}"\\} 0$`, 'm'));
    }
    expect(text).toMatch(new RegExp(`^oj_projector_lag_seconds\\{projection="trades",lane="${lane}"\\} [0-9.e-]+$`, 'm'));
  });
});
