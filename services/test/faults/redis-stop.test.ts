import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@oj/infra/testing/processes';
import { createStack, kill, killSpawned, MixedLoad, proveNothingLost, spawnProjector, untilLive, type Stack } from './harness.ts';

/**
 * Fault: Redis (the projector's lanes) is stopped for 30 seconds while commands flow, and comes back
 * empty (no persistence: every queued lane job is gone). Commands keep being accepted, since the gateway
 * does not need Redis; the projector must notice that its lanes lost their jobs and dispatch again from
 * the lanes' checkpoints in PostgreSQL, so the read models catch up with nothing skipped.
 *
 * The projector's readiness (`/api/v1/ready` on `PROJECTOR_METRICS_PORT`, a supervisor's health check)
 * says so: Redis down while it is away, ready again once it is back.
 *
 * The case runs its own redis-server on a free port, so the machine's Redis (other tests) is untouched.
 */
const STOP_MS = Number(process.env.FAULT_REDIS_STOP_MS ?? 30_000);
let stack: Stack;
let child: ChildProcess | undefined;
let redis: ChildProcess | undefined;
let port: number;
let redisDir: string;

async function startRedis(): Promise<ChildProcess> {
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', redisDir], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(true));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(false)));
    });
    if (up) return proc;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('redis-server did not start');
}

beforeAll(async () => {
  port = await freePort();
  redisDir = mkdtempSync(join(tmpdir(), 'oj-fault-redis-'));
  redis = await startRedis();
  stack = await createStack('fault_redis_stop', { redisUrl: `redis://127.0.0.1:${port}`, bullPrefix: 'oj-fault' });
}, 60_000);

afterAll(async () => {
  if (child) await kill(child);
  await killSpawned();
  await stack?.close();
  if (redis) await kill(redis, 'SIGTERM');
  rmSync(redisDir, { recursive: true, force: true });
}, 60_000);

interface Ready {
  status: string;
  dependencies: Record<string, { up: boolean; detail?: string }>;
  down: string[];
}

/** The projector's readiness, polled until `wanted` (a supervisor's health check sees the same). */
async function readinessUntil(base: string, wanted: (status: number, body: Ready) => boolean, timeoutMs = 20_000): Promise<{ status: number; body: Ready }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await fetch(`${base}/api/v1/ready`).then(async (r) => ({ status: r.status, body: (await r.json()) as Ready }), () => null);
    if (answer && wanted(answer.status, answer.body)) return answer;
    if (Date.now() > deadline) throw new Error(`the projector's readiness is still ${JSON.stringify(answer)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('Redis stopped for 30 s while commands flow', () => {
  it('keeps accepting commands, and the lanes catch up after with nothing lost', async () => {
    const load = new MixedLoad(stack, 41);
    await load.addTraders(5);
    const metricsPort = await freePort();
    const projector = `http://127.0.0.1:${metricsPort}`;
    child = spawnProjector(stack, { PROJECTOR_METRICS_PORT: String(metricsPort) });
    await untilLive(stack);
    await load.run(60, 3);
    const before = await readinessUntil(projector, (status) => status === 200);
    expect(before.body.dependencies.redis).toEqual({ up: true });
    await kill(redis!, 'SIGKILL');
    const down = Date.now();
    const during = load.sent.length;
    // Commands flow while Redis is away.
    while (Date.now() - down < STOP_MS) await load.run(10, 2);
    const whileDown = load.sent.slice(during);
    expect(whileDown.filter((s) => s.command && s.status < 300).length).toBeGreaterThan(5);
    expect(whileDown.filter((s) => s.status >= 500)).toEqual([]);
    // The projector says why its lanes stand still: Redis down, named, the rest up.
    const during503 = await readinessUntil(projector, (status) => status !== 200);
    expect(during503.status).toBe(503);
    expect(during503.body.down).toEqual(['redis']);
    expect(during503.body.dependencies.redis?.detail).toMatch(/^not connected/);
    redis = await startRedis();
    await readinessUntil(projector, (status, body) => status === 200 && body.down.length === 0);
    await load.run(40, 3);
    // The projector process lived through the outage and catches up by itself: the proof waits on its
    // lanes' checkpoints, not on a fresh projector (which would re-dispatch and hide lost jobs).
    expect({ exitCode: child.exitCode, signal: child.signalCode }).toEqual({ exitCode: null, signal: null });
    await proveNothingLost(stack, load, undefined);
  }, 300_000);
});
