import { defineConfig } from 'vitest/config';
import { srcAlias } from './web/vite.config.ts';

/**
 * A PostgreSQL cluster of the browser tests' own (`.ci/run` makes one). With it they run beside the
 * server tests, in another pool (Vitest runs its pools at the same time); without it, after them. They
 * must not share a cluster while both run: a snapshot's xmin spans the cluster, so a transaction open
 * in one test's database holds back the newest events of every other database, and server tests that
 * read the log at once after appending would see part of it.
 */
const e2eCluster = ownCluster(process.env.E2E_DATABASE_URL, process.env.DATABASE_URL ?? 'postgres://127.0.0.1:5432/postgres');

/** `e2e` when it names another server than `main` (another host or port), else undefined, saying why. */
function ownCluster(e2e: string | undefined, main: string): string | undefined {
  if (!e2e) return undefined;
  const server = (url: string) => {
    const u = new URL(url);
    return `${u.hostname === 'localhost' ? '127.0.0.1' : u.hostname}:${u.port || '5432'}`;
  };
  if (server(e2e) !== server(main)) return e2e;
  console.warn(`E2E_DATABASE_URL names the server tests' PostgreSQL (${server(main)}): the browser tests run after the server tests.`);
  return undefined;
}

/**
 * One runner for the whole repo. Server-side tests run against real PostgreSQL and Redis (see the
 * global setup); browser tests drive Debian's Chromium through playwright-core against a real server.
 * Server files run one at a time, for the reason above (a cluster of their own for each would be the
 * way to run more).
 */
export default defineConfig({
  test: {
    // Server and console unit files share the forks pool: one file at a time, whatever the cores.
    poolOptions: { forks: { maxForks: 1, minForks: 1 } },
    projects: [
      {
        test: {
          name: 'server',
          include: ['{contracts,infra,projections,services}/src/**/*.test.ts', '{contracts,infra,projections,services}/test/**/*.test.ts', 'bench/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['infra/src/testing/global-setup.ts'],
          pool: 'forks',
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias: srcAlias },
        test: {
          name: 'web',
          include: ['web/src/**/*.test.{ts,tsx}'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['web/e2e/**/*.e2e.ts'],
          environment: 'node',
          globalSetup: ['infra/src/testing/global-setup.ts'],
          ...(e2eCluster
            ? { pool: 'threads' as const, poolOptions: { threads: { singleThread: true } }, env: { DATABASE_URL: e2eCluster } }
            : { pool: 'forks' as const, poolOptions: { forks: { singleFork: true } } }),
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
