import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Counter, Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { upcastJournalEvent } from '@oj/infra/eventstore/create';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { freePort, spawnService, waitHealthy } from '@oj/infra/testing/processes';
import { requireRedisUrl } from '@oj/infra/testing/env';
import { deleteRedisPrefix } from '@oj/infra/testing/redis';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { smallJournal } from '@oj/projections/trades/testing';
import { serveProjectorEndpoints, type ProjectorEndpoints } from './projector-endpoints.ts';
import { METRICS_CHALLENGE, METRICS_MESSAGES } from './metrics-access.ts';

/** The sum of a counter's samples whose labels include `labels` (Prometheus text format). */
function sumOf(text: string, name: string, labels: string): number {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && line.includes(labels))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

describe('the projector process endpoints', () => {
  let endpoints: ProjectorEndpoints | undefined;
  afterEach(async () => endpoints?.close());

  it('answer the registry, liveness and readiness, and nothing else', async () => {
    const registry = new Registry();
    new Counter({ name: 'oj_test_batches_total', help: 'batches', labelNames: ['lane'], registers: [registry] }).inc({ lane: '3' }, 7);
    let redisUp = true;
    endpoints = await serveProjectorEndpoints({
      host: '127.0.0.1',
      port: 0,
      metrics: registry,
      readiness: [
        { name: 'postgres', check: async () => undefined },
        {
          name: 'redis',
          check: async () => {
            if (!redisUp) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
          },
        },
      ],
    });
    const base = `http://127.0.0.1:${endpoints.port}`;

    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toBe(registry.contentType);
    expect(sumOf(await metrics.text(), 'oj_test_batches_total', 'lane="3"')).toBe(7);

    const health = await fetch(`${base}/api/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });

    expect(await (await fetch(`${base}/api/v1/ready`)).json()).toEqual({ status: 'ready', dependencies: { postgres: { up: true }, redis: { up: true } }, down: [] });
    redisUp = false;
    const degraded = await fetch(`${base}/api/v1/ready`);
    expect(degraded.status).toBe(503);
    expect(await degraded.json()).toEqual({
      status: 'degraded',
      dependencies: { postgres: { up: true }, redis: { up: false, detail: 'connect ECONNREFUSED 127.0.0.1:6379' } },
      down: ['redis'],
    });

    const elsewhere = await fetch(`${base}/api/v1/trades/status/open`);
    expect(elsewhere.status).toBe(404);
    expect(((await elsewhere.json()) as { message: string }).message).toMatch(/answers \/metrics/);
    const post = await fetch(`${base}/metrics`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await fetch(`${base}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('answer /metrics with a metrics token to its bearer only (401 and a challenge otherwise); liveness and readiness as before', async () => {
    const token = 'projector-scrape-token-2026';
    const registry = new Registry();
    new Counter({ name: 'oj_test_batches_total', help: 'batches', labelNames: ['lane'], registers: [registry] }).inc({ lane: '1' }, 3);
    endpoints = await serveProjectorEndpoints({ host: '127.0.0.1', port: 0, metrics: registry, readiness: [], metricsToken: token });
    const base = `http://127.0.0.1:${endpoints.port}`;
    for (const authorization of [undefined, 'Bearer wrong-token-of-some-length', `bearer ${token}x`]) {
      const res = await fetch(`${base}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(res.status, String(authorization)).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(METRICS_CHALLENGE);
      expect(await res.json()).toEqual({ error: 'Unauthorized', message: METRICS_MESSAGES.token });
    }
    const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(sumOf(await res.text(), 'oj_test_batches_total', 'lane="1"')).toBe(3);
    expect((await fetch(`${base}/api/v1/health`)).status).toBe(200);
  });

  it('answer /metrics without a token to this host only: a peer on another address gets 403', async (context) => {
    // This machine's own non-loopback address: a peer that is not 127.0.0.1 without leaving the host.
    const external = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
    if (!external) {
      console.warn('!! projector /metrics host-only check SKIPPED: this machine has no non-loopback IPv4 address');
      return context.skip();
    }
    endpoints = await serveProjectorEndpoints({ host: '0.0.0.0', port: 0, metrics: new Registry(), readiness: [] });
    const refused = await fetch(`http://${external}:${endpoints.port}/metrics`, { headers: { 'x-forwarded-for': '127.0.0.1' } });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: 'Forbidden', message: METRICS_MESSAGES.hostOnly });
    expect((await fetch(`http://127.0.0.1:${endpoints.port}/metrics`)).status).toBe(200);
    expect((await fetch(`http://${external}:${endpoints.port}/api/v1/health`)).status).toBe(200);
  });

  it('refuse to start on a port already taken, with the reason', async () => {
    endpoints = await serveProjectorEndpoints({ host: '127.0.0.1', port: 0, metrics: new Registry(), readiness: [] });
    await expect(serveProjectorEndpoints({ host: '127.0.0.1', port: endpoints.port, metrics: new Registry(), readiness: [] })).rejects.toThrow(/EADDRINUSE/);
  });
});

describe('npm run projector with PROJECTOR_METRICS_PORT (BullMQ lanes, as the compose file runs it)', () => {
  const prefix = `oj-endpoints-${crypto.randomUUID().slice(0, 8)}`;
  let db: TestDatabase;
  let store: PostgresEventStore | undefined;
  let child: ChildProcess | undefined;
  let dataDir: string;
  let base: string;

  beforeAll(async () => {
    db = await createTestDatabase('projector_endpoints');
    dataDir = mkdtempSync(join(tmpdir(), 'oj-projector-endpoints-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    child = spawnService('projector', {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      DATABASE_URL: db.url,
      REDIS_URL: requireRedisUrl(),
      BULLMQ_PREFIX: prefix,
      DATA_DIR: dataDir,
      PROJECTOR_LANES: '2',
      PROJECTOR_METRICS_PORT: String(port),
      LOG_LEVEL: 'error',
    });
    await waitHealthy(base);
    store = new PostgresEventStore(db, { upcast: upcastJournalEvent, pollIntervalMs: 50 });
  }, 90_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    await store?.close();
    await db?.drop();
    await deleteRedisPrefix(requireRedisUrl(), prefix);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("serves the process's own lane metrics: every appended event counted once as applied by its lanes", async () => {
    const { events } = smallJournal('endpoint-user-1', 'endpoint-user-2');
    for (const e of events) {
      const { streamId, revision, position: _position, ...event } = e;
      await store!.append(streamId, [{ ...event, id: crypto.randomUUID() }], revision === 0 ? 'no_stream' : revision - 1);
    }
    let text = '';
    const deadline = Date.now() + 30_000;
    // Until every event is counted and the lag shows it: the lag gauges share one computation for up to
    // a second (`projectorMetrics`), so a scrape just after the last batch may still show it behind.
    const caughtUp = () => sumOf(text, 'oj_projector_events_applied_total', 'projection="trades"') >= events.length && sumOf(text, 'oj_projector_lag_events', 'projection="trades"') === 0;
    while (!caughtUp() && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      text = await (await fetch(`${base}/metrics`)).text();
    }
    expect(sumOf(text, 'oj_projector_events_applied_total', 'projection="trades"')).toBe(events.length);
    expect(text).toMatch(/^oj_projector_batch_duration_seconds_count\{lane="\d",transport="bullmq"\} \d+/m);
    expect(text).toMatch(/^# TYPE oj_projector_lane_stuck gauge$/m);
    expect(text).toMatch(/^nodejs_heap_live_after_major_gc_bytes /m);
    // The lag, computed at the scrape: caught up.
    expect(sumOf(text, 'oj_projector_lag_events', 'projection="trades"')).toBe(0);

    // Its readiness: PostgreSQL, the event store and, its lanes being BullMQ queues, Redis.
    const ready = await fetch(`${base}/api/v1/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', dependencies: { postgres: { up: true }, 'event-store': { up: true }, redis: { up: true } }, down: [] });
  });

  it('closes them when stopped as a deployment stops it', async () => {
    child!.kill('SIGTERM');
    const [code] = (await once(child!, 'exit')) as [number | null];
    expect(code).toBe(0);
    await expect(fetch(`${base}/api/v1/health`)).rejects.toThrow();
  });
});
