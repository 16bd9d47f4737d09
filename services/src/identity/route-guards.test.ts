import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authMessages } from './auth-plugin.ts';
import { createTestApp, signInAs, type TestApp } from './testing.ts';

/**
 * Every route the gateway serves, read from its own OpenAPI document, so a route added later without a
 * guard fails here: only the listed public routes answer without a token; every other route declares
 * bearer security, answers 401 without a token and 403 with the clear "verify your e-mail" message for a
 * signed-in unverified user (the one exception is how such a user asks for a new link).
 */

const PUBLIC = new Set([
  'GET /api/v1/health',
  'GET /api/v1/ready',
  'POST /api/v1/users/signup',
  'GET /api/v1/users/verify/{token}',
  'GET /api/v1/users/resend-verification-link/',
  'POST /api/v1/users/login',
  'POST /api/v1/users/refresh_token',
  'POST /api/v1/users/logout',
  'POST /api/v1/users/password-reset-request',
  'POST /api/v1/users/password-reset/{token}',
  // Cover images for <img> tags (random, unguessable names).
  'GET /api/v1/uploads/{file}',
  // Stripe's webhook: no token; the Stripe-Signature on the raw body is its guard (billing tests).
  'POST /api/v1/payments/stripe/webhook',
  // The deployment's ticker-logo URL template (TICKER_LOGO_URL), the same for everyone: no user's data.
  'GET /api/v1/console-config',
]);
/** Signed in but unverified is enough here: it is how that user gets a new verification link. */
const UNVERIFIED_ALLOWED = new Set(['GET /api/v1/users/request-verification-link']);
/** Staff-only routes: a verified plain User gets 403 too. */
const ADMIN_ONLY = new Set(['GET /api/v1/admin/users/{email}', 'GET /api/v1/operations/projections']);

const sample: Record<string, string> = {
  uid: '00000000-0000-7000-8000-000000000000',
  auid: '00000000-0000-7000-8000-000000000000',
  token: 'x',
  status: 'open',
  outcome: 'assigned',
  date: '2026-01-02',
  ticker: 'AAPL',
  email: 'someone@example.com',
  file: 'account-nothing-here-at-all-0000000.jpg',
  position: '1',
  name: 'trades',
  id: '00000000-0000-7000-8000-000000000000',
};

let t: TestApp;
let routes: Array<{ key: string; method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT'; url: string; secured: boolean }>;
beforeAll(async () => {
  t = await createTestApp({ label: 'identity_guards' });
  const doc = t.app.swagger() as { paths: Record<string, Record<string, { security?: unknown[] }>> };
  routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      key: `${method.toUpperCase()} ${path}`,
      method: method.toUpperCase() as 'GET',
      url: path.replace(/\{(\w+)\}/g, (_, name: string) => {
        if (!(name in sample)) throw new Error(`no sample value for path parameter {${name}} of ${path}`);
        return sample[name]!;
      }),
      secured: Array.isArray(op.security) && op.security.length > 0,
    })),
  );
});
afterAll(async () => {
  await t?.close();
});

describe('route guards', () => {
  it('finds the routes of every module', () => {
    const keys = routes.map((r) => r.key);
    for (const k of ['GET /api/v1/accounts/', 'GET /api/v1/strategies/', 'POST /api/v1/trades/add-trade', 'GET /api/v1/trades/status/{status}', 'GET /api/v1/admin/users/{email}', ...PUBLIC]) {
      expect(keys).toContain(k);
    }
  });

  it('every private route declares bearer security and answers 401 without a token or with a bad one', async () => {
    const problems: string[] = [];
    for (const r of routes.filter((x) => !PUBLIC.has(x.key))) {
      if (!r.secured) problems.push(`${r.key}: no bearer security in its schema`);
      for (const headers of [{}, { authorization: 'Bearer not.a.token' }]) {
        const res = await t.app.inject({ method: r.method, url: r.url, headers, ...(r.method === 'GET' || r.method === 'DELETE' ? {} : { payload: {} }) });
        if (res.statusCode !== 401) problems.push(`${r.key} ${JSON.stringify(headers)}: ${res.statusCode} ${res.body.slice(0, 120)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('every private route answers 403 with the clear message to a signed-in unverified user', async () => {
    const unverified = await signInAs(t, { verified: false });
    const problems: string[] = [];
    for (const r of routes.filter((x) => !PUBLIC.has(x.key) && !UNVERIFIED_ALLOWED.has(x.key))) {
      const res = await t.app.inject({ method: r.method, url: r.url, headers: { authorization: unverified.authorization }, ...(r.method === 'GET' || r.method === 'DELETE' ? {} : { payload: {} }) });
      if (res.statusCode !== 403 || res.json().message !== authMessages.unverified) problems.push(`${r.key}: ${res.statusCode} ${res.body.slice(0, 120)}`);
    }
    expect(problems).toEqual([]);
    const link = await t.app.inject({ method: 'GET', url: '/api/v1/users/request-verification-link', headers: { authorization: unverified.authorization } });
    expect(link.statusCode).toBe(200);
  });

  it('staff-only routes answer 403 to a verified User', async () => {
    const user = await signInAs(t);
    for (const key of ADMIN_ONLY) {
      const r = routes.find((x) => x.key === key)!;
      const res = await t.app.inject({ method: r.method, url: r.url, headers: { authorization: user.authorization } });
      expect([key, res.statusCode, res.json().message]).toEqual([key, 403, authMessages.forbidden]);
    }
  });

  it('public routes need no token', async () => {
    const problems: string[] = [];
    for (const r of routes.filter((x) => PUBLIC.has(x.key))) {
      const res = await t.app.inject({ method: r.method, url: r.url, ...(r.method === 'POST' ? { payload: {} } : {}) });
      if (res.statusCode === 401 && res.json().message === authMessages.missing) problems.push(`${r.key} asks for a token`);
    }
    expect(problems).toEqual([]);
  });
});
