import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountMessages } from '@oj/contracts/accounts';
import { UNSTORABLE_TEXT_MESSAGE } from '@oj/contracts/common';
import { createTestApp, signInAs, type TestApp } from './testing.ts';

/**
 * Garbage in never gives a 500: every identity, account, strategy and admin endpoint answers malformed
 * bodies, parameters, query strings, cookies and headers with a 4xx and an error body. NUL characters
 * matter most: PostgreSQL refuses them in text, so a string that reaches a query unchecked is a 500.
 */

let t: TestApp;
let user: Awaited<ReturnType<typeof signInAs>>;
let admin: Awaited<ReturnType<typeof signInAs>>;
let accountUid: string;

beforeAll(async () => {
  t = await createTestApp({ label: 'identity_malformed' });
  user = await signInAs(t);
  admin = await signInAs(t, { role: 'Admin' });
  const add = await t.app.inject({ method: 'POST', url: '/api/v1/accounts/add-account', headers: { authorization: user.authorization }, payload: { name: 'Main', broker: 'schwab', ac_type: 1 } });
  accountUid = add.json().uid;
});
afterAll(async () => {
  await t?.close();
});

const NUL = '\u0000';
type Method = 'GET' | 'POST' | 'PATCH';

/** JSON bodies of every wrong shape, plus NUL-laden and oversized strings in each field. */
function garbageBodies(fields: string[]): unknown[] {
  const shapes: unknown[] = [null, [], [1, 2], 'text', 42, true, {}, { [NUL]: 1 }, { __proto__: { admin: true } }, { constructor: { prototype: { x: 1 } } }];
  for (const field of fields) {
    for (const value of [null, 0, -1, 1e308, true, [], {}, [NUL], { $gt: '' }, NUL, `a${NUL}b@example.com`, `Jane${NUL} Doe`, 'x'.repeat(100_000), '\uD800', '😀'.repeat(50)]) {
      shapes.push({ [field]: value });
    }
  }
  return shapes;
}

async function expectClientErrors(label: string, requests: Array<{ method: Method; url: string; payload?: unknown; headers?: Record<string, string>; cookies?: Record<string, string> }>) {
  const failures: string[] = [];
  for (const r of requests) {
    const res = await t.app.inject({
      method: r.method,
      url: r.url,
      ...(r.payload !== undefined ? { payload: JSON.stringify(r.payload), headers: { 'content-type': 'application/json', ...r.headers } } : { headers: r.headers }),
      ...(r.cookies ? { cookies: r.cookies } : {}),
    });
    const body = (() => {
      try {
        return res.json();
      } catch {
        return undefined;
      }
    })();
    if (res.statusCode >= 500 || (res.statusCode >= 400 && typeof body?.message !== 'string')) {
      failures.push(`${r.method} ${r.url.slice(0, 120)} ${JSON.stringify(r.payload)?.slice(0, 120)} -> ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
  }
  expect(failures, label).toEqual([]);
}

describe('malformed input answers 4xx, never 500', () => {
  it('public identity endpoints', async () => {
    const body = (url: string, fields: string[]) => garbageBodies(fields).map((payload) => ({ method: 'POST' as const, url, payload }));
    await expectClientErrors('public', [
      ...body('/api/v1/users/signup', ['name', 'email', 'password', 'agreed_to_terms']),
      ...body('/api/v1/users/login', ['email', 'password']),
      ...body('/api/v1/users/password-reset-request', ['email']),
      ...body('/api/v1/users/password-reset/sometoken', ['email', 'new_password']),
      { method: 'POST', url: '/api/v1/users/signup', payload: { name: 'Jane Doe', email: `jane${NUL}@example.com`, password: 'Abc12!', agreed_to_terms: true } },
      { method: 'POST', url: '/api/v1/users/signup', payload: { name: 'Jane Doe', email: 'jane.nul@example.com', password: `Abc12!${NUL}`, agreed_to_terms: true } },
      { method: 'POST', url: '/api/v1/users/login', payload: { email: `${user.email}${NUL}`, password: user.password } },
      { method: 'POST', url: '/api/v1/users/password-reset-request', payload: { email: `x${NUL}@example.com` } },
      { method: 'POST', url: `/api/v1/users/password-reset/tok${encodeURIComponent(NUL)}`, payload: { email: `x${NUL}@example.com`, new_password: 'Abc12!x' } },
      { method: 'POST', url: `/api/v1/users/password-reset/${'x'.repeat(5000)}`, payload: { email: 'x@example.com', new_password: 'Abc12!x' } },
      { method: 'GET', url: '/api/v1/users/verify/%00' },
      { method: 'GET', url: '/api/v1/users/verify/%E0%A4%A' },
      { method: 'GET', url: `/api/v1/users/verify/${'a'.repeat(5000)}` },
      { method: 'GET', url: '/api/v1/users/resend-verification-link/' },
      { method: 'GET', url: '/api/v1/users/resend-verification-link/?email=' },
      { method: 'GET', url: '/api/v1/users/resend-verification-link/?email=a%00@example.com' },
      { method: 'GET', url: '/api/v1/users/resend-verification-link/?email=a@example.com&email=b@example.com' },
      { method: 'GET', url: '/api/v1/users/resend-verification-link/?email[x]=1' },
      { method: 'GET', url: '/api/v1/users/resend-verification-link/?email=%E0%A4%A' },
      { method: 'POST', url: '/api/v1/users/refresh_token', cookies: { oj_refresh: 'garbage' } },
      { method: 'POST', url: '/api/v1/users/refresh_token', cookies: { oj_refresh: `00000000-0000-7000-8000-000000000000.${NUL}` } },
      { method: 'POST', url: '/api/v1/users/refresh_token', cookies: { oj_refresh: '.'.repeat(5000) } },
      { method: 'POST', url: '/api/v1/users/refresh_token', payload: { nonsense: true } },
      { method: 'POST', url: '/api/v1/users/logout', cookies: { oj_refresh: `${NUL}.${NUL}` } },
    ]);
  });

  it('a NUL in an e-mail or an account name gets the usual answer, not a database error', async () => {
    const signup = await t.app.inject({ method: 'POST', url: '/api/v1/users/signup', payload: { name: 'Jane Doe', email: `jane${NUL}@example.com`, password: 'Abc12!', agreed_to_terms: true } });
    expect([signup.statusCode, signup.json().message]).toEqual([422, 'Invalid email format.']);
    // Where no field rule refuses it, the gateway's rule for every route does (input-hygiene.ts).
    const login = await t.app.inject({ method: 'POST', url: '/api/v1/users/login', payload: { email: `${user.email}${NUL}`, password: user.password } });
    expect([login.statusCode, login.json().message]).toEqual([422, UNSTORABLE_TEXT_MESSAGE]);
    const lookup = await t.app.inject({ method: 'GET', url: '/api/v1/admin/users/a%00@example.com', headers: { authorization: admin.authorization } });
    expect([lookup.statusCode, lookup.json().message]).toEqual([422, UNSTORABLE_TEXT_MESSAGE]);
    const rename = await t.app.inject({ method: 'PATCH', url: `/api/v1/accounts/update/${accountUid}`, headers: { authorization: user.authorization }, payload: { name: `Main${NUL}` } });
    expect([rename.statusCode, rename.json().message]).toEqual([422, accountMessages.nameCharacters]);
  });

  it('malformed JSON and wrong content types', async () => {
    const failures: string[] = [];
    for (const url of ['/api/v1/users/signup', '/api/v1/users/login', '/api/v1/users/password-reset-request', '/api/v1/accounts/add-account']) {
      for (const [type, payload] of [
        ['application/json', '{"email": '],
        ['application/json', '\u0000'],
        ['application/json', ''],
        ['text/plain', 'hello'],
        ['application/x-www-form-urlencoded', 'email=a%40b.co&password=x'],
        ['multipart/form-data; boundary=x', '--x\r\n'],
      ] as const) {
        const res = await t.app.inject({ method: 'POST', url, headers: { 'content-type': type, authorization: user.authorization }, payload });
        if (res.statusCode >= 500 || res.statusCode < 400) failures.push(`${url} ${type} ${JSON.stringify(payload)} -> ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('a JSON content type with an empty body is a request without a body; poisoned JSON is still refused', async () => {
    const json = { 'content-type': 'application/json' };
    const signedIn = await t.app.inject({ method: 'POST', url: '/api/v1/users/login', payload: { email: user.email, password: user.password } });
    const cookie = signedIn.headers['set-cookie'];
    const refresh = await t.app.inject({ method: 'POST', url: '/api/v1/users/refresh_token', headers: { ...json, cookie: Array.isArray(cookie) ? cookie.join('; ') : String(cookie) }, payload: '' });
    expect([refresh.statusCode, typeof refresh.json().access_token]).toEqual([200, 'string']);
    // A body the route needs, sent empty: the route's own validation answers, not the parser.
    const signup = await t.app.inject({ method: 'POST', url: '/api/v1/users/signup', headers: json, payload: '' });
    expect(signup.statusCode).toBe(422);
    for (const payload of ['{"__proto__": {"admin": true}}', '{"constructor": {"prototype": {"admin": true}}}']) {
      const poisoned = await t.app.inject({ method: 'POST', url: '/api/v1/users/login', headers: json, payload });
      expect([payload, poisoned.statusCode]).toEqual([payload, 400]);
    }
  });

  it('a path answers with or without a trailing slash', async () => {
    for (const url of ['/api/v1/accounts', '/api/v1/accounts/', '/api/v1/strategies', '/api/v1/strategies/', '/api/v1/users/current_user/']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { authorization: user.authorization } });
      expect([url, res.statusCode]).toEqual([url, 200]);
    }
    const login = await t.app.inject({ method: 'POST', url: '/api/v1/users/login/', payload: { email: user.email, password: user.password } });
    expect(login.statusCode).toBe(200);
    const pulse = await t.app.inject({ method: 'GET', url: '/api/v1/trades/tt/', headers: { authorization: user.authorization } });
    expect([pulse.statusCode, pulse.json().message]).toEqual([422, 'Invalid ticker or timeframe']);
  });

  it('authorization headers', async () => {
    const headers = ['', 'Bearer', 'Bearer ', `Bearer ${NUL}`, 'Bearer a.b.c', `Bearer ${'a'.repeat(10_000)}`, 'Bearer \u00e9\u00e9', 'bearer x y', 'Token abc'];
    await expectClientErrors(
      'auth headers',
      headers.flatMap((authorization) =>
        ['/api/v1/users/current_user', '/api/v1/accounts/', '/api/v1/strategies/', '/api/v1/users/request-verification-link', '/api/v1/admin/users/a@b.co'].map((url) => ({
          method: 'GET' as const,
          url,
          headers: { authorization },
        })),
      ),
    );
  });

  it('private identity endpoints', async () => {
    const headers = { authorization: user.authorization };
    await expectClientErrors(
      'private identity',
      garbageBodies(['old_password', 'new_password']).map((payload) => ({ method: 'PATCH' as const, url: '/api/v1/users/update-password', payload, headers })),
    );
  });

  it('account endpoints', async () => {
    const headers = { authorization: user.authorization };
    const fields = ['name', 'broker', 'ac_type', 'broker_commission', 'broker_fee'];
    const uids = ['x', '%00', 'null', '00000000-0000-0000-0000-000000000000', `${accountUid}%00`, 'a'.repeat(500), '..%2F..%2Fetc'];
    await expectClientErrors('accounts', [
      ...garbageBodies(fields).map((payload) => ({ method: 'POST' as const, url: '/api/v1/accounts/add-account', payload, headers })),
      ...garbageBodies(fields).map((payload) => ({ method: 'PATCH' as const, url: `/api/v1/accounts/update/${accountUid}`, payload, headers })),
      ...garbageBodies(['old_default', 'new_default']).map((payload) => ({ method: 'PATCH' as const, url: '/api/v1/accounts/update-default-account', payload, headers })),
      ...garbageBodies(['image', 'image_for']).map((payload) => ({ method: 'POST' as const, url: `/api/v1/accounts/account-image/${accountUid}`, payload, headers })),
      ...uids.flatMap((uid) => [
        { method: 'PATCH' as const, url: `/api/v1/accounts/update/${uid}`, payload: { name: 'X' }, headers },
        { method: 'POST' as const, url: `/api/v1/accounts/account-image/${uid}`, payload: { image: 'aGVsbG8=' }, headers },
        { method: 'PATCH' as const, url: '/api/v1/accounts/update-default-account', payload: { old_default: decodeURIComponent(uid.replace('%00', '\u0000')), new_default: uid }, headers },
        { method: 'GET' as const, url: `/api/v1/uploads/${uid}` },
      ]),
      { method: 'POST', url: `/api/v1/accounts/account-image/${accountUid}`, payload: { image: `data:image/png;base64,${NUL}` }, headers },
      { method: 'POST', url: `/api/v1/accounts/account-image/${accountUid}`, payload: { image: 'A'.repeat(9 * 1024 * 1024) }, headers },
      { method: 'POST', url: `/api/v1/accounts/account-image/${accountUid}`, payload: { image: '====' }, headers },
    ]);
  });

  it('admin lookup', async () => {
    const headers = { authorization: admin.authorization };
    await expectClientErrors(
      'admin',
      ['%00', 'a%00@example.com', '%E0%A4%A', 'x'.repeat(5000), '%20', 'a@b.co%2F..', "'%20or%201=1--"].map((email) => ({ method: 'GET' as const, url: `/api/v1/admin/users/${email}`, headers })),
    );
  });
});
