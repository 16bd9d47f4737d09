import { createServer, connect, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { requireRedisUrl } from '@oj/infra/testing/env';
import { freePort } from '@oj/infra/testing/processes';
import { until } from '@oj/projections/runtime/testing';
import { checkReadiness, redisReadiness } from './readiness.ts';

/** A TCP proxy to the test Redis on `port`: Redis "up" while it listens, "stopped" once it is closed. */
async function redisProxy(port: number): Promise<{ close(): Promise<void> }> {
  const target = new URL(requireRedisUrl());
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return {
    async close() {
      const closed = new Promise((r) => server.close(r));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

describe('redisReadiness (every process\'s Redis check and outage log when REDIS_URL is set)', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('is down while Redis cannot be reached, naming why, up once it can, and down again when it stops', async () => {
    const port = await freePort();
    const logged: Array<{ level: number; msg: string }> = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void logged.push(JSON.parse(line) as { level: number; msg: string }) });
    const check = redisReadiness(`redis://127.0.0.1:${port}`, 'redis', logger);
    cleanups.push(() => check.close());
    const ready = () => checkReadiness([check], 1000);
    const poll = { timeoutMs: 15_000, everyMs: 50 };

    // Nothing listens yet: down, with the connection's state and the refusal, at once (not queued).
    await until(async () => ((await ready()).dependencies.redis?.detail ?? '').includes('ECONNREFUSED'), { what: 'a first connection attempt', ...poll });
    const started = performance.now();
    const down = await ready();
    expect(performance.now() - started).toBeLessThan(500);
    expect(down.status).toBe('degraded');
    expect(down.down).toEqual(['redis']);
    expect(down.dependencies.redis?.detail).toMatch(/^not connected \((connecting|reconnecting|connect|close|end)\): .*ECONNREFUSED/);

    // Redis appears: the check reconnects by itself and answers PING.
    let proxy = await redisProxy(port);
    cleanups.push(() => proxy.close());
    await until(async () => (await ready()).status === 'ready', { what: 'the check to reconnect', ...poll });
    expect(await ready()).toEqual({ status: 'ready', dependencies: { redis: { up: true } }, down: [] });

    // Redis stops: down again.
    await proxy.close();
    await until(async () => (await ready()).status === 'degraded', { what: 'the check to see Redis gone', ...poll });
    expect((await ready()).dependencies.redis?.detail).toMatch(/^not connected/);

    // And back: up again.
    proxy = await redisProxy(port);
    await until(async () => (await ready()).status === 'ready', { what: 'the check to reconnect again', ...poll, timeoutMs: 20_000 });

    // Each outage is one line as it begins and one as it ends, however often the connection retried.
    expect(logged.filter((l) => l.level >= 30).map((l) => l.msg.replace(/ \(.*/, ''))).toEqual(['Redis is unreachable', 'Redis is reachable again', 'Redis is unreachable', 'Redis is reachable again']);
  });
});
