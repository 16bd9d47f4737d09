import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { freePort } from '@oj/infra/testing/processes';
import { openDatabase, type Database } from '@oj/infra/db/database';
import { createTestDatabase } from '@oj/infra/testing/postgres';
import { migrate } from './migrations.ts';

const run = promisify(execFile);
const entry = (file: string) => fileURLToPath(new URL(`../${file}`, import.meta.url));

/** Every process entry point stops at once on a bad value, naming the variable, without a stack trace. */
describe.each(['main.ts', 'gateway.ts', 'projector.ts'])('starting %s with a bad configuration', (file) => {
  it('exits with code 2 and a message naming the variable', async () => {
    const failure = await run(process.execPath, [entry(file)], {
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', DATA_DIR: '/tmp/oj-startup-test-unused', PORT: 'abc', REDIS_URL: 'http://cache' },
      timeout: 20_000,
    }).then(
      () => null,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failure).not.toBeNull();
    expect(failure!.code).toBe(2);
    expect(failure!.stderr).toContain('Invalid configuration:');
    expect(failure!.stderr).toContain('  PORT: ');
    expect(failure!.stderr).toContain('  REDIS_URL: must be a URL starting with redis:// or rediss://');
    expect(failure!.stderr).not.toMatch(/^\s+at /m);
  });
});

/** A start-up failure the operator can fix: one line naming the variable, exit code 2, no stack trace. */
async function startFailure(file: string, env: Record<string, string>) {
  const failure = await run(process.execPath, [entry(file)], {
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', DATA_DIR: '/tmp/oj-startup-test-unused', LOG_LEVEL: 'silent', ...env },
    timeout: 20_000,
  }).then(
    () => null,
    (error: { code?: number; stderr?: string }) => error,
  );
  expect(failure).not.toBeNull();
  expect(failure!.stderr).not.toMatch(/^\s+at /m);
  expect(failure!.code).toBe(2);
  return failure!.stderr!.trim().split('\n');
}

describe('start-up failures an operator can fix', () => {
  it('TRUST_PROXY that is not true/false or addresses is named by the configuration check', async () => {
    const lines = await startFailure('main.ts', { TRUST_PROXY: 'yes' });
    expect(lines).toContain('  TRUST_PROXY: must be true, false, or comma-separated IP addresses/CIDRs (got "yes")');
  });

  it('a DATABASE_URL naming a database that does not exist', async () => {
    const url = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
    url.pathname = '/oj_no_such_database';
    const lines = await startFailure('gateway.ts', { DATABASE_URL: url.href });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^DATABASE_URL: database "oj_no_such_database" does not exist/);
  });

  it('a DATABASE_URL nothing answers', async () => {
    const lines = await startFailure('main.ts', { DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/postgres` });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^DATABASE_URL: cannot connect to 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  });

  it('a PORT another process listens on', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const port = (taken.address() as { port: number }).port;
    try {
      const lines = await startFailure('gateway.ts', { DATABASE_URL: process.env.DATABASE_URL ?? '', HOST: '127.0.0.1', PORT: String(port) });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toBe(`PORT: ${port} on 127.0.0.1 is already in use by another process: stop it, or choose another PORT`);
    } finally {
      taken.close();
    }
  });
});

/**
 * A database a newer release migrated with a migration that did not declare that older releases may
 * run beside it (QA 75: every process of the older release ended with Kysely's "corrupted migrations"
 * stack). Each entry point says so in one line and exits 2.
 */
describe('a database a newer release migrated', () => {
  const newer = '209912310000_from_a_newer_release';
  const refusal = `The database was migrated by a newer release of Options Journal (migration ${newer}), which this release does not have: start that release or a newer one again. To go back to this release, restore the backup taken before the upgrade (docs/operations.md, "Deploys: code and data versions").`;
  const markNewer = async (database: Database) => {
    await migrate(database.db);
    await sql`insert into kysely_migration (name, timestamp) values (${newer}, now()::text)`.execute(database.db);
  };

  it('npm start on the embedded data directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'oj-newer-'));
    try {
      const database = await openDatabase({ dataDir: join(dataDir, 'pg') });
      await markNewer(database);
      await database.close();
      expect(await startFailure('main.ts', { DATA_DIR: dataDir, PORT: '0' })).toEqual([refusal]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('the projector and the gateway, one process or several, on PostgreSQL', async () => {
    const server = await createTestDatabase('newer_release');
    try {
      await markNewer(server);
      const env = { DATABASE_URL: server.url, REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', BULLMQ_PREFIX: `oj-newer-${process.pid}`, PORT: '0' };
      expect(await startFailure('projector.ts', env)).toEqual([refusal]);
      expect(await startFailure('gateway.ts', env)).toEqual([refusal]);
      // Several gateway processes: each says why; the supervisor stops with their exit code (it exited 0,
      // having logged that it was starting another).
      expect(new Set(await startFailure('gateway.ts', { ...env, GATEWAY_PROCESSES: '2' }))).toEqual(new Set([refusal]));
    } finally {
      await server.drop();
    }
  });
});
