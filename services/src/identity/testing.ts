import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { loadConfig, type Config } from '@oj/infra/config';
import { FixedClock } from '@oj/infra/clock';
import { createLogger } from '@oj/infra/logger';
import type { EventStore } from '@oj/infra/eventstore/port';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { createTestDatabase, createPGliteDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import type { RoleName } from '@oj/contracts/users';
import { allProjections } from '@oj/projections/catalogue';
import { startProjector, type ProjectorHandle } from '@oj/projections/runtime/projector';
import { buildApp } from '../app/app.ts';
import type { AppDeps } from '../app/deps.ts';
import { migrate } from '../platform/migrations.ts';
import { createUser, login } from './commands.ts';
import { identityContext } from './routes.ts';

/**
 * Test harness for API tests: a fresh real Postgres database (migrated), a fixed clock, a temporary
 * DATA_DIR and the full gateway. Other modules' tests use it too (`signInAs` makes a verified user and
 * returns a bearer token).
 */
export interface TestApp {
  app: FastifyInstance;
  deps: AppDeps;
  db: TestDatabase;
  clock: FixedClock;
  config: Config;
  dataDir: string;
  close(): Promise<void>;
}

export async function createTestApp(
  options: { label?: string; env?: Record<string, string>; now?: string; eventStore?: EventStore; database?: TestDatabase; pglite?: boolean; logLevel?: string } = {},
): Promise<TestApp> {
  // PGlite (embedded mode) variant: same code, in-memory database, no URL.
  const db: TestDatabase =
    options.database ??
    (options.pglite
      ? await createPGliteDatabase().then((d) => ({ ...d, url: '', name: 'pglite', drop: () => d.close() }))
      : await createTestDatabase(options.label ?? 'identity'));
  await migrate(db.db);
  const dataDir = await mkdtemp(join(tmpdir(), 'oj-test-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    PUBLIC_URL: 'http://journal.test',
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_AUTH_PER_MINUTE: '1000',
    // The subscription lifecycle applies (trial, expiry, lock-out); without a key the deployment is
    // self-hosted and nobody is ever locked out. No test using this default calls Stripe.
    STRIPE_SECRET_KEY: 'sk_test_lifecycle_enforced',
    ...options.env,
  });
  const clock = new FixedClock(options.now ?? '2026-03-02T15:00:00Z');
  const deps: AppDeps = {
    config,
    database: db,
    eventStore: options.eventStore ?? new PostgresEventStore(db),
    clock,
    logger: createLogger(options.logLevel ?? 'silent'),
    metrics: new Registry(),
    readiness: [],
  };
  // A test's event loop is always shared: with a PGlite database (given here or as `database`), an
  // in-process projector, the test's own work. Its delay says nothing of the API's load, so load shedding
  // does not read it (a loaded CI machine answered 503 "busy" to an add-trade in routes.test.ts, and made
  // a rollback after a switch answer 503); a test of shedding sets GATEWAY_MAX_EVENT_LOOP_DELAY_MS.
  const app = await buildApp(deps, { logger: options.logLevel !== undefined, sharedEventLoop: true, answerCompression: { busy: () => false } });
  await app.ready();
  return {
    app,
    deps,
    db,
    clock,
    config,
    dataDir,
    async close() {
      await app.close();
      await db.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

let counter = 0;

/** Creates a user directly (verified unless said otherwise) and signs in. */
export async function signInAs(
  t: Pick<TestApp, 'deps'>,
  options: { email?: string; name?: string; password?: string; role?: RoleName; verified?: boolean } = {},
): Promise<{ userId: string; email: string; password: string; accessToken: string; refreshToken: string; authorization: string }> {
  const ctx = identityContext(t.deps);
  const email = options.email ?? `trader${++counter}-${Date.now()}@example.com`;
  const password = options.password ?? 'Secret1!x';
  const userId = await createUser(ctx, { name: options.name ?? 'Test Trader', email, password, role: options.role ?? 'User', verified: options.verified ?? true });
  const session = await login(ctx, { email, password });
  return { userId, email, password, accessToken: session.accessToken, refreshToken: session.refreshToken, authorization: `Bearer ${session.accessToken}` };
}

/**
 * The projector in this process (two lanes, no Redis, a 20 ms safety-net poll) over every read model,
 * for API tests whose reads must see what their commands wrote.
 */
export function startTestProjector(t: TestApp, eventStore: EventStore): Promise<ProjectorHandle> {
  return startProjector({
    config: { PROJECTOR_LANES: 2, REDIS_URL: undefined },
    database: t.db,
    eventStore,
    logger: createLogger('silent'),
    metrics: new Registry(),
    projections: allProjections,
    pollMs: 20,
  });
}
