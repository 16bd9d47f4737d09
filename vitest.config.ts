import { defineConfig } from 'vitest/config';
import { srcAlias } from './web/vite.config.ts';

/**
 * One runner for the whole repo. Server-side tests run against real PostgreSQL and Redis (see the
 * global setup); browser tests drive Debian's Chromium through playwright-core against a real server.
 */
export default defineConfig({
  test: {
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
          pool: 'forks',
          poolOptions: { forks: { singleFork: true } },
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
