import type { ReadinessCheck } from './deps.ts';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '@oj/infra/config';
import { systemClock } from '@oj/infra/clock';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { migrate } from '../platform/migrations.ts';
import { METRICS_MESSAGES } from '../platform/metrics-access.ts';
import { buildApp } from './app.ts';

/**
 * The platform's observability on the real gateway: every request log line carries the request id
 * (given by the caller or generated, echoed in `x-request-id`), `/metrics` exports HTTP latency by
 * route, health and readiness answer as documented, and building the app raises no deprecation.
 */
describe('gateway observability', () => {
  let db: TestDatabase;
  let app: FastifyInstance;
  const lines: Array<Record<string, unknown>> = [];
  const warnings: string[] = [];
  const onWarning = (w: Error & { code?: string }) => warnings.push(w.code ?? w.message);

  beforeAll(async () => {
    process.on('warning', onWarning);
    db = await createTestDatabase('observability');
    await migrate(db.db);
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: '/tmp/oj-observability-unused', DATABASE_URL: db.url, JWT_SECRET: 'x'.repeat(40) });
    app = await buildApp({
      config,
      database: db,
      eventStore: new PostgresEventStore(db),
      clock: systemClock,
      logger: pino({ level: 'info' }, sink),
      metrics: new Registry(),
      readiness: [
        { name: 'postgres', check: async () => undefined },
        { name: 'redis', check: async () => Promise.reject(new Error('connection refused')) },
      ],
    });
    await app.ready();
    // Process warnings are emitted on the next tick.
    await new Promise((r) => setImmediate(r));
  });
  afterAll(async () => {
    process.off('warning', onWarning);
    await app?.close();
    await db?.drop();
  });

  it('logs the request id on every request line, under requestId, and echoes it', async () => {
    const given = await app.inject({ method: 'GET', url: '/api/v1/health', headers: { 'x-request-id': 'trace-abc-1' } });
    expect(given.statusCode).toBe(200);
    expect(given.headers['x-request-id']).toBe('trace-abc-1');
    const generated = await app.inject({ method: 'GET', url: '/api/v1/no-such-route' });
    expect(generated.statusCode).toBe(404);
    const id = generated.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const requestLines = lines.filter((l) => 'req' in l || 'res' in l || l.msg === 'Route GET:/api/v1/no-such-route not found');
    expect(requestLines.length).toBeGreaterThanOrEqual(4);
    for (const line of requestLines) expect(typeof line.requestId).toBe('string');
    expect(requestLines.filter((l) => l.requestId === 'trace-abc-1').map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
    expect(requestLines.filter((l) => l.requestId === id).length).toBeGreaterThanOrEqual(2);
    expect(lines.some((l) => 'reqId' in l)).toBe(false);
  });

  it('raises no fastify deprecation warning (FSTDEP024: requestIdLogLabel moved to logController)', () => {
    expect(warnings.filter((w) => w.startsWith('FSTDEP'))).toEqual([]);
  });

  it('exports HTTP latency by method, route and status on /metrics', async () => {
    await app.inject({ method: 'GET', url: '/api/v1/health' });
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/health",status="200"\} [1-9]/);
  });

  it('answers /metrics to this host only without METRICS_TOKEN: another peer gets 403, whatever X-Forwarded-For says, and so does a proxy on this host', async () => {
    for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      expect((await app.inject({ method: 'GET', url: '/metrics', remoteAddress })).statusCode, remoteAddress).toBe(200);
    }
    // The last two: a reverse proxy on this host, forwarding for a client elsewhere.
    for (const [remoteAddress, headers] of [['203.0.113.7', {}], ['10.0.0.5', { 'x-forwarded-for': '127.0.0.1' }], ['::ffff:192.0.2.1', {}], ['127.0.0.1', { 'x-forwarded-for': '203.0.113.7' }], ['::1', { forwarded: 'for=203.0.113.7' }]] as const) {
      const res = await app.inject({ method: 'GET', url: '/metrics', remoteAddress, headers });
      expect(res.statusCode, remoteAddress).toBe(403);
      expect(res.json()).toMatchObject({ message: METRICS_MESSAGES.hostOnly });
      expect(res.body).not.toContain('http_request_duration_seconds');
    }
  });

  it('answers /metrics with METRICS_TOKEN to its bearer only, from anywhere: without it or with another, 401 and a challenge', async () => {
    const token = 'metrics-scraper-token-2026';
    const guarded = await buildApp({
      config: loadConfig({ NODE_ENV: 'test', DATA_DIR: '/tmp/oj-observability-unused', DATABASE_URL: db.url, JWT_SECRET: 'x'.repeat(40), METRICS_TOKEN: token }),
      database: db,
      eventStore: new PostgresEventStore(db),
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      metrics: new Registry(),
      readiness: [],
    });
    try {
      for (const [remoteAddress, authorization] of [['127.0.0.1', undefined], ['203.0.113.7', 'Bearer not-the-token'], ['203.0.113.7', `Basic ${token}`], ['203.0.113.7', `Bearer ${token}x`]] as const) {
        const res = await guarded.inject({ method: 'GET', url: '/metrics', remoteAddress, headers: authorization ? { authorization } : {} });
        expect(res.statusCode, `${remoteAddress} ${authorization}`).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
        expect(res.json()).toMatchObject({ message: METRICS_MESSAGES.token });
      }
      const res = await guarded.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.7', headers: { authorization: `Bearer ${token}` } });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('http_request_duration_seconds');
    } finally {
      await guarded.close();
    }
  });

  it('refuses a METRICS_TOKEN too short to be a secret, or with spaces, at start-up', () => {
    const base = { NODE_ENV: 'test', DATA_DIR: '/tmp/oj-observability-unused', JWT_SECRET: 'x'.repeat(40) };
    expect(() => loadConfig({ ...base, METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    expect(() => loadConfig({ ...base, METRICS_TOKEN: 'a token with spaces in it' })).toThrow(/METRICS_TOKEN/);
    expect(loadConfig({ ...base, METRICS_TOKEN: '' }).METRICS_TOKEN).toBeUndefined();
  });

  it('answers readiness 503 naming the dependency that is down', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/v1/ready' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'degraded', down: ['redis'], dependencies: { postgres: { up: true }, redis: { up: false, detail: 'connection refused' } } });
  });

  it('answers 200, degraded, when only a dependency the gateway serves without is down (Redis: commands are still accepted)', async () => {
    const checks = app.deps.readiness as ReadinessCheck[];
    const critical = checks.splice(1, 1, { name: 'redis', critical: false, check: async () => Promise.reject(new Error('connection refused')) });
    try {
      const res = await app.inject({ method: 'GET', url: '/api/v1/ready' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'degraded', down: ['redis'], dependencies: { postgres: { up: true }, redis: { up: false } } });
    } finally {
      checks.splice(1, 1, ...critical);
    }
  });
});
