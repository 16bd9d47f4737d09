import { createConnection } from 'node:net';
import { dockerAvailable } from './env.ts';

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port, timeout: 500 });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

/**
 * Vitest global setup: make sure every worker sees DATABASE_URL and REDIS_URL. Given ones win; where
 * Docker runs, testcontainers starts PostgreSQL and Redis; otherwise the tests cannot run and say why.
 * EventStoreDB is optional: its contract tests run when EVENTSTORE_URL is set (or Docker runs) and are
 * reported as skipped, loudly, otherwise.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const stops: Array<() => Promise<unknown>> = [];
  // A developer's machine often runs both servers locally: use them when nothing else was said.
  if (!process.env.DATABASE_URL && (await reachable(5432))) process.env.DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
  if (!process.env.REDIS_URL && (await reachable(6379))) process.env.REDIS_URL = 'redis://127.0.0.1:6379';
  const docker = !process.env.DATABASE_URL || !process.env.REDIS_URL || !process.env.EVENTSTORE_URL ? dockerAvailable() : false;
  if (!process.env.DATABASE_URL) {
    if (!docker) throw new Error('Tests need PostgreSQL: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres) or run a Docker engine for testcontainers.');
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const c = await new PostgreSqlContainer('postgres:17-alpine').start();
    process.env.DATABASE_URL = c.getConnectionUri();
    stops.push(() => c.stop());
  }
  if (!process.env.REDIS_URL) {
    if (!docker) throw new Error('Tests need Redis: set REDIS_URL (e.g. redis://127.0.0.1:6379) or run a Docker engine for testcontainers.');
    const { RedisContainer } = await import('@testcontainers/redis');
    const c = await new RedisContainer('redis:7-alpine').start();
    process.env.REDIS_URL = c.getConnectionUrl();
    stops.push(() => c.stop());
  }
  if (!process.env.EVENTSTORE_URL && docker) {
    const { GenericContainer, Wait } = await import('testcontainers');
    const c = await new GenericContainer('eventstore/eventstore:24.10')
      .withEnvironment({ EVENTSTORE_INSECURE: 'true', EVENTSTORE_RUN_PROJECTIONS: 'None', EVENTSTORE_MEM_DB: 'true' })
      .withExposedPorts(2113)
      .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCode(204))
      .start();
    process.env.EVENTSTORE_URL = `esdb://${c.getHost()}:${c.getMappedPort(2113)}?tls=false`;
    stops.push(() => c.stop());
  }
  if (!process.env.EVENTSTORE_URL) {
    process.stdout.write('\n\u001b[33m!! EventStoreDB contract tests are SKIPPED: no EVENTSTORE_URL and no Docker engine on this machine.\u001b[0m\n\n');
  }
  return async () => {
    for (const stop of stops.reverse()) await stop();
  };
}
