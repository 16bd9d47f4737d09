import Fastify from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import { describe, expect, it } from 'vitest';
import { registerSecurityHeaders, securityHeaders } from './security-headers.ts';

const options: HelmetOptions = {
  contentSecurityPolicy: { directives: { defaultSrc: ["'self'"], imgSrc: ["'self'", 'data:'], scriptSrc: ["'self'"] } },
};

/** What helmet's own middleware puts on a real response, per request (as @fastify/helmet applies it). */
async function helmetPerRequest(): Promise<Record<string, unknown>> {
  const app = Fastify();
  app.addHook('onRequest', (request, reply, done) => helmet(options)(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined)));
  app.get('/x', async () => ({ ok: true }));
  const res = await app.inject({ method: 'GET', url: '/x' });
  await app.close();
  return res.headers;
}

const securityNames = (headers: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(headers).filter(([k]) => !['content-type', 'content-length', 'date', 'connection'].includes(k)));

describe('security headers', () => {
  it('are exactly the headers helmet sets per request, computed once', async () => {
    const expected = securityNames(await helmetPerRequest());
    expect(expected['content-security-policy']).toContain("img-src 'self' data:");
    expect(securityHeaders(options)).toEqual(expected);
  });

  it('are on every response: a route, a 404 and an error', async () => {
    const app = Fastify();
    registerSecurityHeaders(app, options);
    app.get('/ok', async () => ({ ok: true }));
    app.get('/boom', async () => {
      throw new Error('boom');
    });
    const expected = securityHeaders(options);
    for (const url of ['/ok', '/missing', '/boom']) {
      const res = await app.inject({ method: 'GET', url });
      expect(securityNames(res.headers), url).toEqual(expected);
    }
    await app.close();
  });
});
