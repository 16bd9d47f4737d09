import Fastify from 'fastify';
import type { Counter } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { TestApp } from '../../identity/testing.ts';
import { smallJournalApp } from '../../trade-views/testing.ts';
import { eventLoopBusy, MIN_COMPRESSED_ANSWER, registerAnswerCompression } from './answer-compression.ts';

/**
 * The API's JSON answers go compressed to a client that accepts it (answer-compression.ts): the premium
 * data is two years of weekdays (about 190 KB for any journal), most of the dashboard's wait on a phone's
 * network. What the client decodes is byte for byte the answer it would get uncompressed; a client that
 * accepts nothing, a small answer and a HEAD get the plain bytes.
 */
let t: TestApp;
let auth: string;
let otherAuth: string;

const get = (path: string, headers: Record<string, string> = {}, authorization = auth) =>
  t.app.inject({ method: 'GET', url: `/api/v1${path}`, headers: { authorization, ...headers } });
const CHROME = 'gzip, deflate, br, zstd';

beforeAll(async () => {
  // Monday 2 February 2026, 10:00 in New York.
  const { t: app, me, other } = await smallJournalApp('answer_compression', '2026-02-02T15:00:00Z');
  t = app;
  auth = me.authorization;
  otherAuth = other.authorization;
});
afterAll(async () => {
  await t?.close();
});

describe('compressed API answers', () => {
  it('sends the premium data in brotli to a browser that takes it, decoding to the plain answer byte for byte', async () => {
    const plain = await get('/metrics/premium-data');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(100_000);

    const br = await get('/metrics/premium-data', { 'accept-encoding': CHROME });
    expect([br.statusCode, br.headers['content-encoding'], br.headers['content-type']]).toEqual([200, 'br', 'application/json; charset=utf-8']);
    expect(br.headers.vary).toContain('accept-encoding');
    // The length said is of the bytes sent.
    expect(Number(br.headers['content-length'])).toBe(br.rawPayload.length);
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 4);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
  });

  it('sends gzip where brotli is not taken (plain HTTP on a LAN: a browser offers no brotli there), or refused with q=0', async () => {
    const plain = await get('/metrics/premium-data?days=sums');
    for (const accept of ['gzip, deflate', 'br;q=0, gzip', 'GZIP;q=0.5']) {
      const r = await get('/metrics/premium-data?days=sums', { 'accept-encoding': accept });
      expect([accept, r.headers['content-encoding']]).toEqual([accept, 'gzip']);
      expect(gunzipSync(r.rawPayload).toString()).toBe(plain.body);
    }
  });

  it('sends the plain bytes to a client that takes no coding this gateway makes, still saying the answer varies', async () => {
    const plain = await get('/metrics/premium-data?days=sums');
    for (const accept of ['identity', 'deflate', 'zstd', 'gzip;q=0, br;q=0', '*', '']) {
      const r = await get('/metrics/premium-data?days=sums', { 'accept-encoding': accept });
      expect([accept, r.headers['content-encoding']]).toEqual([accept, undefined]);
      expect(r.body).toBe(plain.body);
      expect(r.headers.vary).toContain('accept-encoding');
    }
  });

  it('sends a small answer and an error as they are', async () => {
    const me = await get('/users/current_user', { 'accept-encoding': CHROME });
    expect(me.statusCode).toBe(200);
    expect(me.rawPayload.length).toBeLessThan(MIN_COMPRESSED_ANSWER);
    expect([me.headers['content-encoding'], me.headers.vary]).toEqual([undefined, undefined]);
    expect(me.json()).toMatchObject({ email: expect.any(String) });

    const refused = await get('/metrics/premium-data?days=some', { 'accept-encoding': CHROME });
    expect([refused.statusCode, refused.headers['content-encoding']]).toEqual([422, undefined]);
    expect(refused.json()).toMatchObject({ message: 'days must be full or sums.' });
  });

  it('answers a HEAD without a coding', async () => {
    const head = await t.app.inject({ method: 'HEAD', url: '/api/v1/metrics/premium-data', headers: { authorization: auth, 'accept-encoding': CHROME } });
    expect([head.statusCode, head.headers['content-encoding'], head.body]).toEqual([200, undefined, '']);
  });

  it('counts how the compressible answers went, for /metrics', async () => {
    const counts = async () => {
      const metric = t.deps.metrics.getSingleMetric('http_answers_compressible_total') as Counter | undefined;
      const values = (await metric?.get())?.values ?? [];
      return Object.fromEntries(values.map((v) => [String(v.labels.sent), v.value]));
    };
    const before = await counts();
    await get('/metrics/premium-data?days=sums', { 'accept-encoding': CHROME });
    await get('/metrics/premium-data?days=sums', { 'accept-encoding': 'gzip' });
    await get('/metrics/premium-data?days=sums');
    await get('/users/current_user', { 'accept-encoding': CHROME });
    const after = await counts();
    const delta = (k: string) => (after[k] ?? 0) - (before[k] ?? 0);
    expect([delta('br'), delta('gzip'), delta('plain'), delta('busy')]).toEqual([1, 1, 1, 0]);
  });

  it('compresses another user’s answer as theirs: each decodes to what that user gets plain', async () => {
    const mine = brotliDecompressSync((await get('/metrics/premium-data', { 'accept-encoding': CHROME })).rawPayload).toString();
    const theirsPlain = (await get('/metrics/premium-data', {}, otherAuth)).body;
    const theirs = brotliDecompressSync((await get('/metrics/premium-data', { 'accept-encoding': CHROME }, otherAuth)).rawPayload).toString();
    expect(theirs).toBe(theirsPlain);
    expect(theirs).not.toBe(mine);
  });
});

describe('compression with no CPU to spare', () => {
  it('sends the answers as they are while the process is busy, and compresses again once it is not', async () => {
    let busy = true;
    const app = Fastify();
    registerAnswerCompression(app, { busy: () => busy });
    const body = { days: Array.from({ length: 500 }, (_, i) => ({ id: i, np: i * 1.5 })) };
    app.get('/x', async () => body);
    const ask = () => app.inject({ url: '/x', headers: { 'accept-encoding': CHROME } });
    const plain = await ask();
    expect([plain.headers['content-encoding'], plain.headers.vary, plain.json()]).toEqual([undefined, 'accept-encoding', body]);
    busy = false;
    const compressed = await ask();
    expect(compressed.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(compressed.rawPayload).toString())).toEqual(body);
    await app.close();
  });

  it('reads the event loop: busy after a window spent working, not after one spent waiting', async () => {
    const loop = eventLoopBusy();
    try {
      await new Promise((r) => setTimeout(r, 1_100));
      expect(loop.busy()).toBe(false);
      // Two windows' worth of work with no turn of the loop but every 50 ms.
      const until = performance.now() + 1_100;
      while (performance.now() < until) {
        const slice = performance.now() + 45;
        while (performance.now() < slice);
        await new Promise((r) => setImmediate(r));
      }
      expect(loop.busy()).toBe(true);
    } finally {
      loop.stop();
    }
  });
});
