import { execFileSync } from 'node:child_process';

/**
 * Where the tests find their servers. `DATABASE_URL` / `REDIS_URL` when given (CI, this machine);
 * otherwise containers started by testcontainers where a Docker engine runs (a laptop). The global
 * setup (`infra/src/testing/global-setup.ts`) resolves this once and exports the URLs to every worker.
 */
export function dockerAvailable(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

export function requireDatabaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: run the tests with `npm test` (its global setup provides one) or set it.');
  return url;
}

export function requireRedisUrl(): string {
  const url = process.env.REDIS_URL;
  if (!url) throw new Error('REDIS_URL is not set: run the tests with `npm test` (its global setup provides one) or set it.');
  return url;
}
