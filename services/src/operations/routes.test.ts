import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventStore } from '@oj/infra/eventstore/port';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { countingProjection } from '@oj/projections/runtime/test-projection';
import { rebuild } from '@oj/projections/runtime/rebuild';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';
import { migrate } from '../platform/migrations.ts';

let t: TestApp;
let database: TestDatabase;
let store: EventStore;
beforeAll(async () => {
  database = await createTestDatabase('operations_routes');
  await migrate(database.db);
  store = new PostgresEventStore(database);
  t = await createTestApp({ database, eventStore: store });
});
afterAll(async () => {
  await store?.close();
  await t?.close();
});

const status = (authorization?: string) => t.app.inject({ method: 'GET', url: '/api/v1/operations/projections', ...(authorization ? { headers: { authorization } } : {}) });

describe('GET /operations/projections', () => {
  it('answers the registry, checkpoints and rebuilds to an Admin', async () => {
    const projection = countingProjection({ name: 'ops_probe' });
    await rebuild({ database, eventStore: store, projections: [projection], lanes: 2 }, 'ops_probe');
    const admin = await signInAs(t, { role: 'Admin' });
    const res = await status(admin.authorization);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.transport).toBe('in-process');
    const probe = body.projections.find((p: { name: string }) => p.name === 'ops_probe');
    expect(probe.versions).toMatchObject([{ version: 1, status: 'live', tables: { stream_counts: 'stream_counts_v1', user_sequences: 'user_sequences_v1' }, counts: { stream_counts: 0, user_sequences: 0 } }]);
    expect(probe.versions[0].checkpoints).toHaveLength(2);
    expect(probe.rebuilds).toMatchObject([{ version: 1, eventsDone: 0 }]);
    expect(probe.warning).toBe('not in the running code catalogue');
  });

  it('is Admin only', async () => {
    expect((await status()).statusCode).toBe(401);
    const user = await signInAs(t, { role: 'User' });
    expect((await status(user.authorization)).statusCode).toBe(403);
  });
});
