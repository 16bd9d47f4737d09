import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { claimDataDir } from './runtime/data-dir-lock.ts';

const run = promisify(execFile);
const cli = join(import.meta.dirname, 'cli.ts');

async function projections(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', NODE_ENV: 'test', ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('projections CLI', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'oj-cli-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses the embedded data directory while another process holds it, and says so', async () => {
    const claim = claimDataDir(dataDir);
    try {
      const res = await projections(['status'], { DATA_DIR: dataDir });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(`The embedded database in ${dataDir} is in use by process ${process.pid}`);
      expect(res.stderr).toContain('stop that process first');
    } finally {
      claim.release();
    }
  });

  it('answers usage errors with exit code 2', async () => {
    const res = await projections(['frobnicate'], { DATA_DIR: dataDir });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('Unknown command frobnicate');
    expect(res.stderr).toContain('Usage: npm run projections');
  });
});

describe('projections CLI on PostgreSQL (services mode)', () => {
  let database: TestDatabase;
  let dataDir: string;
  beforeAll(async () => {
    database = await createTestDatabase('projections_cli');
    dataDir = await mkdtemp(join(tmpdir(), 'oj-cli-'));
  });
  afterAll(async () => {
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('rebuilds every read model with progress on stderr, then shows status, diff and retire', async () => {
    const env = { DATABASE_URL: database.url, DATA_DIR: dataDir, PROJECTOR_LANES: '2' };
    const first = await projections(['rebuild', 'all'], env);
    expect(first.stderr, first.stderr).toMatch(/events +\d+ ev\/s +ETA/);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/v\d+: 0 events applied, now live/);
    const again = await projections(['rebuild', 'all', '--no-switch'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('left building');
    const status = await projections(['status', '--json'], env);
    expect(status.code).toBe(0);
    const parsed = JSON.parse(status.stdout);
    for (const p of parsed.projections) expect(p.versions.map((v: { status: string }) => v.status)).toEqual(['live', 'building']);
    const name = parsed.projections[0].name as string;
    const diff = await projections(['diff', name], env);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('identical');
    const switched = await projections(['switch', name, String(parsed.projections[0].versions[1].version)], env);
    expect(switched.stdout).toContain('is live');
    const retired = await projections(['retire', name], env);
    expect(retired.stdout).toMatch(/dropped v\d+/);
  });
});
