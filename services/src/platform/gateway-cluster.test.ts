import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, spawnService } from '@oj/infra/testing/processes';
import { Redis } from 'ioredis';
import { requireRedisUrl } from '@oj/infra/testing/env';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { SERVICE_NODE_OPTIONS } from './heap-options.ts';

/**
 * `npm run gateway` with GATEWAY_PROCESSES=2: two gateway processes behind one port, supervised by the
 * cluster primary. Real processes (started as the npm script starts them), real PostgreSQL and Redis.
 */

let db: TestDatabase;
let child: ChildProcess;
let port: number;
let dataDir: string;
const prefix = `oj-cluster-${process.pid}`;
/**
 * The processes that have said `gateway listening on …` (their pid, from the JSON log line). A process
 * that exists has not necessarily listened yet: kill the only one that has, and the primary closes the
 * shared port until another listens (CI on a slow machine: ECONNREFUSED, the test killed that one).
 */
const listening = new Set<number>();

const workerPids = (): number[] => {
  try {
    return execFileSync('pgrep', ['-P', String(child.pid)]).toString().trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// A new connection per request, so the primary hands requests to both processes in turn.
const get = (path: string) => fetch(`http://127.0.0.1:${port}${path}`, { headers: { connection: 'close' }, signal: AbortSignal.timeout(15_000) });

beforeAll(async () => {
  db = await createTestDatabase('gateway_cluster');
  port = await freePort();
  dataDir = mkdtempSync(join(tmpdir(), 'oj-cluster-'));
  child = spawnService(
    'gateway',
    {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      DATABASE_URL: db.url,
      REDIS_URL: requireRedisUrl(),
      BULLMQ_PREFIX: prefix,
      PORT: String(port),
      DATA_DIR: dataDir,
      JWT_SECRET: 'cluster-test-secret-cluster-test-secret-0123',
      LOG_LEVEL: 'info',
      GATEWAY_PROCESSES: '2',
      RATE_LIMIT_AUTH_PER_MINUTE: '4',
    },
    ['ignore', 'pipe', 'inherit'],
  );
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const entry = (() => {
      try {
        return JSON.parse(line) as { pid?: number; msg?: string };
      } catch {
        return {};
      }
    })();
    if (entry.pid !== undefined && entry.msg?.startsWith('gateway listening on')) listening.add(entry.pid);
  });
  await until('two gateway processes listening and answering', async () => {
    const pids = workerPids();
    if (pids.length !== 2 || !pids.every((pid) => listening.has(pid))) return undefined;
    return (await get('/api/v1/health').then((r) => r.ok, () => false)) ? true : undefined;
  });
}, 90_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  const redis = new Redis(requireRedisUrl());
  // The rate-limit counters and the queues' keys (the projector's rebuild queue is opened at start).
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  await db?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('two gateway processes behind one port', () => {
  it("run with npm run gateway's heap settings, which the primary passes on to each", () => {
    const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const pids = workerPids();
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(commandLine(pid)).toEqual(expect.arrayContaining([...SERVICE_NODE_OPTIONS.gateway]));
  });

  it('share one rate limit: the limit is not doubled by the second process', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await fetch(`http://127.0.0.1:${port}/api/v1/users/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', connection: 'close' },
        body: JSON.stringify({ email: 'nobody@example.com', password: 'Wrong1!pass' }),
      });
      statuses.push(r.status);
    }
    // Four attempts a minute from this address, counted across both processes.
    expect(statuses.filter((s) => s !== 429)).toHaveLength(4);
    expect(statuses.slice(4).every((s) => s === 429)).toBe(true);
    // The counters live under the deployment's prefix like every other key, so `<prefix>:*` finds them all
    // (QA: they were `<prefix>-rate-limit-…`, which an operator's cleanup of `<prefix>:*` missed).
    const redis = new Redis(requireRedisUrl());
    try {
      expect(await redis.keys(`${prefix}:rate-limit:*`)).not.toEqual([]);
      expect(await redis.keys(`${prefix}-*`)).toEqual([]);
    } finally {
      await redis.quit();
    }
  }, 60_000);

  it('keeps serving when one process is killed, and the supervisor starts another', async () => {
    const [victim, survivor] = workerPids();
    expect(victim).toBeDefined();
    process.kill(victim!, 'SIGKILL');
    // A connection handed to the victim in its last instant is lost with it (a client retries that);
    // once the primary has seen it die, every request is served by the survivor.
    await until('the primary to see the death', () => (workerPids().includes(victim!) ? undefined : true));
    for (let i = 0; i < 10; i++) expect((await get('/api/v1/health')).status).toBe(200);
    const pids = await until('a replacement process, listening', () => {
      const now = workerPids();
      return now.length === 2 && !now.includes(victim!) && now.every((pid) => listening.has(pid)) ? now : undefined;
    });
    expect(pids).toContain(survivor);
    for (let i = 0; i < 10; i++) expect((await get('/api/v1/health')).status).toBe(200);
  }, 120_000);
});
