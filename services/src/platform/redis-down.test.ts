import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, spawnService, stopChild, waitHealthy } from '@oj/infra/testing/processes';
import { createTestDatabase } from '@oj/infra/testing/postgres';

/**
 * `npm start` (embedded PGlite, in-process stores) given a REDIS_URL nothing answers: the BullMQ lanes
 * stall, so readiness says so, the log says so once (not a line per connection per retry), and a
 * signal still ends the process within its shutdown deadline.
 */
describe('npm start with a REDIS_URL nothing answers', () => {
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function start(extra: Record<string, string> = {}) {
    const redisPort = await freePort(); // nothing listens there: every connection is refused
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'oj-redis-down-'));
    dirs.push(dataDir);
    const child = spawnService(
      'main',
      { PATH: process.env.PATH ?? '', NODE_ENV: 'test', DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), REDIS_URL: `redis://127.0.0.1:${redisPort}`, LOG_LEVEL: 'info', ...extra },
      ['ignore', 'pipe', 'pipe'],
    );
    children.push(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const base = `http://127.0.0.1:${port}`;
    await waitHealthy(base, 30_000);
    return { child, base, output: () => output };
  }

  const lines = (text: string) => text.split('\n').filter(Boolean);
  const refusals = (text: string) => lines(text).filter((l) => l.includes('ECONNREFUSED'));

  it('answers ready degraded naming redis (200: commands are still accepted), and logs the outage once instead of every retry', async () => {
    const { base, output } = await start();
    const ready = await fetch(`${base}/api/v1/ready`);
    const body = (await ready.json()) as { status: string; down: string[]; dependencies: Record<string, { up: boolean; detail?: string }> };
    // Not 503: a load balancer would take every gateway out while Redis is away, and commands are accepted
    // then (docs/reliability.md, Redis stopped); the body says what is down.
    expect(ready.status).toBe(200);
    expect(body.status).toBe('degraded');
    expect(body.down).toEqual(['redis']);
    expect(body.dependencies.redis?.detail).toMatch(/ECONNREFUSED/);
    expect(body.dependencies.pglite).toEqual({ up: true });

    // Three seconds of an outage: every connection retries several times in that while.
    const before = refusals(output()).length;
    await new Promise((r) => setTimeout(r, 3000));
    const during = refusals(output()).length - before;
    expect(during, lines(output()).slice(-20).join('\n')).toBe(0);
    const outage = lines(output()).filter((l) => /redis is unreachable/i.test(l));
    expect(outage).toHaveLength(1);
  });

  it('exits within the shutdown deadline on SIGTERM, non-zero, naming what did not close; a second signal exits at once', async () => {
    const first = await start({ SHUTDOWN_TIMEOUT_SECONDS: '2' });
    const started = performance.now();
    const exited = once(first.child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    first.child.kill('SIGTERM');
    const [code] = await exited;
    expect(performance.now() - started).toBeLessThan(5000);
    // With Redis down the projector's BullMQ workers do not close: the deadline ends the process.
    expect(code === 0 || code === 1).toBe(true);
    // Exit 1 says in one line what did not close: the deadline, or a part that failed while closing
    // (a BullMQ connection's error with Redis gone), never a stack trace.
    if (code === 1) {
      const said = lines(first.output()).filter((l) => /shutdown deadline|shutdown failed while closing/.test(l));
      expect(said, lines(first.output()).slice(-12).join('\n')).toHaveLength(1);
      expect(said[0]).toMatch(/did not close within 2 s: [a-z-]+|failed while closing [a-z-]+/);
      expect(first.output()).not.toMatch(/triggerUncaughtException|^\s+at /m);
    }

    const second = await start({ SHUTDOWN_TIMEOUT_SECONDS: '30' });
    const again = once(second.child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    second.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    const t = performance.now();
    if (second.child.exitCode === null) second.child.kill('SIGINT');
    const [code2] = await again;
    expect(performance.now() - t).toBeLessThan(2000);
    expect(code2 === 0 || code2 === 1).toBe(true);
    await stopChild(second.child);
  }, 120_000); // two servers started one after the other, each given 30 s to be healthy: 30 s for the whole test ran out on a loaded CI machine
});

/**
 * `npm run gateway` (services mode) given a REDIS_URL nothing answers: it holds no projector worker, so a
 * signal closes it at once and cleanly (QA: QUIT queued for a Redis that never answered, and the rebuild
 * queue's opening awaited, ran out its whole deadline and exited 1 naming "the HTTP server").
 */
describe('npm run gateway with a REDIS_URL nothing answers', () => {
  it('closes on SIGTERM well within its deadline, exit 0, its last line "stopped"', async () => {
    const db = await createTestDatabase('gateway_redis_down');
    const dataDir = mkdtempSync(join(tmpdir(), 'oj-redis-down-gw-'));
    const port = await freePort();
    const child = spawnService(
      'gateway',
      {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'test',
        DATABASE_URL: db.url,
        REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
        BULLMQ_PREFIX: `oj-redis-down-${process.pid}`,
        JWT_SECRET: 'redis-down-test-secret-redis-down-test-0123',
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'info',
        SHUTDOWN_TIMEOUT_SECONDS: '10',
      },
      ['ignore', 'pipe', 'pipe'],
    );
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await waitHealthy(`http://127.0.0.1:${port}`, 60_000);
      const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
      const started = performance.now();
      child.kill('SIGTERM');
      const [code] = await exited;
      // The health check's own "request completed" line may be written after "stopped" (the signal came
      // as it was answered): the last line of the process's own is the one that counts.
      const last = output.split('\n').filter((line) => line && !line.includes('"requestId"')).at(-1) ?? '';
      expect([code, JSON.parse(last).msg], output.split('\n').slice(-6).join('\n')).toEqual([0, 'stopped']);
      // Before: 10 s (the deadline), exit 1.
      expect(performance.now() - started).toBeLessThan(6000);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
      await db.drop();
    }
  }, 120_000);
});
