import type { TestDatabase } from '@oj/infra/testing/postgres';
import { createTestDatabase } from '@oj/infra/testing/postgres';
import { freePort } from '@oj/infra/testing/processes';
import { migrate } from '@oj/services/platform/migrations';

/** A deployment of the product's own processes for a bench: its database (migrated), BullMQ prefix, port and environment. */
export interface BenchDeployment {
  db: TestDatabase;
  prefix: string;
  port: number;
  /** What `npm run gateway` and `npm run projector` are started with, before the bench's own settings. */
  env: Record<string, string> & { DATABASE_URL: string; REDIS_URL: string };
}

/**
 * A fresh database and the environment of production processes on it (`NODE_ENV=production`, the Redis
 * of `REDIS_URL`, a free port, a BullMQ prefix of this bench's own). Throws without REDIS_URL, naming `needs`.
 */
export async function benchDeployment(name: string, needs: string): Promise<BenchDeployment> {
  const redisUrl = process.env.REDIS_URL;
  if (!redisUrl) throw new Error(`bench ${name} needs REDIS_URL (${needs})`);
  const db = await createTestDatabase(`bench_${name}`);
  await migrate(db.db);
  const prefix = `oj-bench-${name}-${process.pid}`;
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    DATABASE_URL: db.url,
    REDIS_URL: redisUrl,
    BULLMQ_PREFIX: prefix,
    PORT: String(port),
    DATA_DIR: `/tmp/oj-bench-${name}`,
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
    LOG_LEVEL: 'error',
    PUBLIC_URL: 'http://bench.local',
    RATE_LIMIT_AUTH_PER_MINUTE: '100000',
  };
  return { db, prefix, port, env };
}
