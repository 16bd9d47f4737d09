import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { API_PREFIX } from '../api-prefix.ts';
import { connect } from 'node:net';
import { BUSY_MESSAGE, CLOSING_MESSAGE, registerClosingRefusal, registerLoadShedding, type LoadSheddingOptions } from './load-shedding.ts';

/**
 * Load shedding over real HTTP: past either limit the gateway answers API requests 503 with
 * Retry-After at once, lets health, readiness, metrics and the console's files through, and accepts
 * again as soon as the overload is over (no request slot is lost to a client that hung up).
 */
describe('load shedding', () => {
  let app: FastifyInstance | null = null;
  afterEach(async () => {
    await app?.close();
    app = null;
  });

  async function start(options: LoadSheddingOptions) {
    const metrics = new Registry();
    // A test's unanswered requests must not hold the server open after it. The gateway's router ignores
    // a trailing slash (app.ts), so `/health/` reaches the health route.
    app = Fastify({ forceCloseConnections: true, routerOptions: { ignoreTrailingSlash: true } });
    app.decorate('deps', { metrics } as never);
    registerLoadShedding(app, options);
    let entered = 0;
    let open: () => void = () => undefined;
    let gate = new Promise<void>((r) => (open = r));
    app.get(`${API_PREFIX}/slow`, async () => {
      entered++;
      await gate;
      return { ok: true };
    });
    app.get(`${API_PREFIX}/fast`, async () => ({ ok: true }));
    app.get(`${API_PREFIX}/health`, async () => ({ status: 'ok' }));
    app.get(`${API_PREFIX}/ready`, async () => ({ status: 'ready' }));
    app.get('/index.html', async () => 'console');
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    return {
      url,
      metrics,
      entered: () => entered,
      release: () => {
        open();
        gate = new Promise<void>((r) => (open = r));
      },
    };
  }

  const until = async (check: () => boolean) => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(check()).toBe(true);
  };

  /** The status of `/fast` asked until it is accepted (200), at most `tries` times, `everyMs` apart. */
  const fastOnceAccepted = async (url: string, tries: number, everyMs: number): Promise<number> => {
    let status = 0;
    for (let i = 0; i < tries && status !== 200; i++) {
      status = (await fetch(`${url}${API_PREFIX}/fast`)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, everyMs));
    }
    return status;
  };

  it('refuses API requests past the in-flight limit with 503 and Retry-After, and accepts again once they are answered', async () => {
    const s = await start({ maxEventLoopDelayMs: 0, maxInFlight: 2 });
    const first = [fetch(`${s.url}${API_PREFIX}/slow`), fetch(`${s.url}${API_PREFIX}/slow`)];
    await until(() => s.entered() === 2);

    const refused = await fetch(`${s.url}${API_PREFIX}/fast`);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({ message: BUSY_MESSAGE, detail: BUSY_MESSAGE });
    // Never refused: what an operator or a load balancer reads, and the console itself.
    expect((await fetch(`${s.url}${API_PREFIX}/health`)).status).toBe(200);
    expect((await fetch(`${s.url}/index.html`)).status).toBe(200);

    s.release();
    expect((await Promise.all(first)).map((r) => r.status)).toEqual([200, 200]);
    expect((await fetch(`${s.url}${API_PREFIX}/fast`)).status).toBe(200);
    expect(await s.metrics.metrics()).toMatch(/http_requests_shed_total\{reason="in_flight"\} 1\b/);
  });

  it('never refuses health or readiness however the path is written, and still refuses every other API path', async () => {
    const s = await start({ maxEventLoopDelayMs: 0, maxInFlight: 1 });
    const held = fetch(`${s.url}${API_PREFIX}/slow`);
    const statusOf = async (path: string) => [path, (await fetch(`${s.url}${API_PREFIX}${path}`)).status];
    try {
      await until(() => s.entered() === 1);
      // The router ignores a trailing slash and the query string: these all reach the health routes.
      const exempt = ['/health', '/health/', '/health?x=1', '/health/?x=1', '/ready', '/ready/', '/ready?x=1'];
      expect(await Promise.all(exempt.map(statusOf))).toEqual(exempt.map((path) => [path, 200]));
      // What only looks like a health path, or names no route, is an API request like any other.
      const refused = ['/fast/', '/fast?x=/health', '/healthz', '/health/x', '/nope'];
      expect(await Promise.all(refused.map(statusOf))).toEqual(refused.map((path) => [path, 503]));
    } finally {
      s.release();
    }
    expect((await held).status).toBe(200);
  });

  it('a client that hangs up frees its slot', async () => {
    const s = await start({ maxEventLoopDelayMs: 0, maxInFlight: 1 });
    const abort = new AbortController();
    const gone = fetch(`${s.url}${API_PREFIX}/slow`, { signal: abort.signal }).catch((e: Error) => e);
    await until(() => s.entered() === 1);
    expect((await fetch(`${s.url}${API_PREFIX}/fast`)).status).toBe(503);
    abort.abort();
    expect(await gone).toBeInstanceOf(Error);
    // The server learns of the hang-up from the socket: soon, not at once.
    expect(await fastOnceAccepted(s.url, 100, 10)).toBe(200);
    s.release();
  });

  it('refuses API requests while the event loop lags, and accepts again when it catches up', async () => {
    const s = await start({ maxEventLoopDelayMs: 30, maxInFlight: 0, sampleIntervalMs: 100 });
    // Out of CPU: the loop is blocked 90 ms at a time, with only a moment between.
    const busy = setInterval(() => {
      const t = Date.now();
      while (Date.now() - t < 90);
    }, 1);
    try {
      await new Promise((r) => setTimeout(r, 400));
      const refused = await fetch(`${s.url}${API_PREFIX}/fast`);
      expect(refused.status).toBe(503);
      expect(await refused.json()).toEqual({ message: BUSY_MESSAGE, detail: BUSY_MESSAGE });
      expect((await fetch(`${s.url}${API_PREFIX}/health`)).status).toBe(200);
    } finally {
      clearInterval(busy);
    }
    // Caught up: accepted again within a few samples (more on a loaded machine, never for good).
    expect(await fastOnceAccepted(s.url, 50, 100)).toBe(200);
    expect(await s.metrics.metrics()).toMatch(/http_requests_shed_total\{reason="event_loop_delay"\} [1-9]/);
  });

  it('one long task is not overload: the requests it held up are answered', async () => {
    const s = await start({ maxEventLoopDelayMs: 30, maxInFlight: 0, sampleIntervalMs: 100 });
    await new Promise((r) => setTimeout(r, 250));
    const held = fetch(`${s.url}${API_PREFIX}/fast`);
    const t = Date.now();
    while (Date.now() - t < 600);
    expect((await held).status).toBe(200);
    expect((await fetch(`${s.url}${API_PREFIX}/fast`)).status).toBe(200);
  });

  it('is off when both limits are 0', async () => {
    const s = await start({ maxEventLoopDelayMs: 0, maxInFlight: 0 });
    const many = Array.from({ length: 20 }, () => fetch(`${s.url}${API_PREFIX}/slow`));
    await until(() => s.entered() === 20);
    s.release();
    expect((await Promise.all(many)).every((r) => r.status === 200)).toBe(true);
  });
});

describe('a request that arrives while the server closes', () => {
  it('is refused 503 in the product\'s error shape, with Retry-After, not Fastify\'s own body (QA)', async () => {
    const app = Fastify({ return503OnClosing: false });
    registerClosingRefusal(app);
    let entered = false;
    let open: () => void = () => undefined;
    const gate = new Promise<void>((r) => (open = r));
    app.get(`${API_PREFIX}/slow`, async () => {
      entered = true;
      await gate;
      return { ok: true };
    });
    app.get(`${API_PREFIX}/fast`, async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    // One connection kept alive: a request in flight when the close begins, and another sent on it after.
    const socket = connect(port, '127.0.0.1');
    let raw = '';
    socket.on('data', (chunk) => (raw += chunk.toString()));
    const ended = new Promise<void>((r) => socket.on('close', () => r()));
    socket.write(`GET ${API_PREFIX}/slow HTTP/1.1\r\nHost: x\r\n\r\n`);
    for (let i = 0; i < 200 && !entered; i++) await new Promise((r) => setTimeout(r, 10));
    expect(entered).toBe(true);
    const closed = app.close();
    await new Promise((r) => setTimeout(r, 50));
    socket.write(`GET ${API_PREFIX}/fast HTTP/1.1\r\nHost: x\r\n\r\n`);
    await new Promise((r) => setTimeout(r, 50));
    open();
    await Promise.race([ended, new Promise((r) => setTimeout(r, 3000))]);
    socket.destroy();
    await closed;
    const responses = raw.split(/(?=HTTP\/1\.1 )/);
    expect(responses.map((r) => r.slice(0, 12))).toEqual(['HTTP/1.1 200', 'HTTP/1.1 503']);
    expect(responses[1]).toMatch(/retry-after: 1/i);
    expect(JSON.parse(responses[1]!.slice(responses[1]!.indexOf('\r\n\r\n') + 4))).toMatchObject({ message: CLOSING_MESSAGE });
  });
});

