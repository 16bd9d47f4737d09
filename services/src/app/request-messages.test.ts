import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';

/**
 * The messages of refused requests name what is wrong (QA's list): query parameters, a date that does
 * not exist, Stripe ids, a reset password's unmet rules, operations versions that are not numbers, and a
 * body that is not a JSON object, holds a forbidden key, or is not JSON at all.
 */
let t: TestApp;
let user: Awaited<ReturnType<typeof signInAs>>;
let admin: Awaited<ReturnType<typeof signInAs>>;
beforeAll(async () => {
  t = await createTestApp({ label: 'request_messages' });
  user = await signInAs(t);
  admin = await signInAs(t, { role: 'Admin' });
});
afterAll(async () => {
  await t?.close();
});

const call = async (method: 'GET' | 'POST', path: string, payload?: string, headers: Record<string, string> = {}, who = user) => {
  const r = await t.app.inject({ method, url: `/api/v1${path}`, headers: { authorization: who.authorization, ...headers }, ...(payload !== undefined ? { payload } : {}) });
  return [r.statusCode, r.json().message] as const;
};
const json = { 'content-type': 'application/json' };

describe('messages of refused requests', () => {
  it('list query parameters: named, with their rule (QA: "expected number, received NaN")', async () => {
    for (const list of ['/trades/status/open', '/trades/expiring']) {
      expect(await call('GET', `${list}?page=abc`)).toEqual([422, 'page must be a whole number from 1 to 1000000.']);
      expect(await call('GET', `${list}?page=1&page=2`)).toEqual([422, 'page must be given once.']);
      expect(await call('GET', `${list}?page=1e20`)).toEqual([422, 'page must be a whole number from 1 to 1000000.']);
      expect(await call('GET', `${list}?size=0`)).toEqual([422, 'size must be a whole number from 1 to 100.']);
      expect(await call('GET', `${list}?size=2.5`)).toEqual([422, 'size must be a whole number from 1 to 100.']);
      expect(await call('GET', `${list}?au=`)).toEqual([422, 'au must be the uid of an account: leave it out for all of them.']);
      expect(await call('GET', `${list}?su=`)).toEqual([422, 'su must be the uid of a strategy: leave it out for all of them.']);
      expect(await call('GET', `${list}?au=a&au=b`)).toEqual([422, 'au must be given once.']);
      // Valid parameters pass validation (here the read models are not built: the query answers 503).
      expect((await call('GET', `${list}?page=2&size=5&au=x`))[0]).not.toBe(422);
    }
  });

  it('a list date not in the format is said once, not also "Date is invalid." (QA)', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/v1/trades/status/closed?sd=2026-1-05&ed=2026-02-27', headers: { authorization: user.authorization } });
    expect([r.statusCode, r.json().detail]).toEqual([422, [{ field: 'querystring.sd', message: 'Date must be in YYYY-MM-DD format.' }]]);
  });

  it('trades by date: a well-formed date that does not exist says so', async () => {
    expect(await call('GET', '/trades/trade-by-date/2026-02-30')).toEqual([422, 'Date 2026-02-30 does not exist on the calendar.']);
    expect(await call('GET', '/trades/trade-by-date/2026-2-3')).toEqual([422, 'Date must be in YYYY-MM-DD format.']);
    expect((await call('GET', '/trades/trade-by-date/2026-02-27'))[0]).not.toBe(422);
  });

  it('paymentMethodId: full sentences naming the field', async () => {
    for (const path of ['/auth/update-payment-method', '/auth/create-subscription']) {
      expect(await call('POST', path, JSON.stringify({ paymentMethodId: '', priceId: 'price_1' }), json)).toEqual([422, 'paymentMethodId is required.']);
      expect(await call('POST', path, JSON.stringify({ paymentMethodId: 'abc', priceId: 'price_1' }), json)).toEqual([422, 'paymentMethodId must be a Stripe id starting with pm_.']);
      expect(await call('POST', path, JSON.stringify({ priceId: 'price_1' }), json)).toEqual([422, 'paymentMethodId is required.']);
    }
  });

  it('password reset: lists every unmet rule, as a password change does', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/api/v1/users/password-reset/some-token', payload: { email: 'a@example.com', new_password: 'abc' } });
    expect(r.statusCode).toBe(422);
    expect(r.json().detail.map((d: { field: string; message: string }) => [d.field, d.message])).toEqual([
      ['body.new_password', 'At least 6 characters'],
      ['body.new_password', 'At least one uppercase letter'],
      ['body.new_password', 'At least one number'],
      ['body.new_password', 'At least one special character (!@#$%^&*())'],
    ]);
    expect(r.json().message).toBe('At least 6 characters');
  });

  it('operations: a version is a JSON whole number from 1 in a body, digits in a query (QA: `true` was version 1)', async () => {
    for (const action of ['switch', 'rollback', 'retire', 'abandon']) {
      for (const version of [true, '2', 0, 1.5, null]) {
        expect([action, version, ...(await call('POST', `/operations/projections/trades/${action}`, JSON.stringify({ version }), json, admin))]).toEqual([
          action,
          version,
          422,
          'Version must be a whole number.',
        ]);
      }
    }
    expect(await call('POST', '/operations/projections/trades/rollback', JSON.stringify({ version: 1, from: true }), json, admin)).toEqual([422, 'Version must be a whole number.']);
    expect(await call('GET', '/operations/projections/trades/diff?version=true', undefined, {}, admin)).toEqual([422, 'Version must be a whole number.']);
    expect(await call('GET', '/operations/projections/trades/diff?version=1e1', undefined, {}, admin)).toEqual([422, 'Version must be a whole number.']);
    // A number (body) or digits (query) reach the operation, which answers about the version itself.
    expect(await call('POST', '/operations/projections/trades/switch', JSON.stringify({ version: 7 }), json, admin)).toEqual([404, 'trades has no version 7.']);
    expect((await call('GET', '/operations/projections/trades/diff?version=7', undefined, {}, admin))[0]).not.toBe(422);
  });

  it('a JSON body with a __proto__ or constructor.prototype key: says the key is not allowed, not that the JSON is invalid', async () => {
    expect(await call('POST', '/accounts/add-account', '{"name":"x","__proto__":{"admin":true}}', json)).toEqual([400, 'A JSON body cannot contain a key named "__proto__".']);
    expect(await call('POST', '/accounts/add-account', '{"name":"x","nested":[{"__proto__":{}}]}', json)).toEqual([400, 'A JSON body cannot contain a key named "__proto__".']);
    expect(await call('POST', '/accounts/add-account', '{"name":"x","constructor":{"prototype":{"admin":true}}}', json)).toEqual([
      400,
      'A JSON body cannot contain a key named "constructor" holding a "prototype".',
    ]);
    expect(await call('POST', '/accounts/add-account', '{"name":"x",', json)).toEqual([400, "Body is not valid JSON but content-type is set to 'application/json'"]);
  });

  it('an unknown route repeats at most 120 characters of its path (QA: a 10,000-character path came back whole)', async () => {
    const long = `/api/v1/nope/${'x'.repeat(10_000)}`;
    const r = await t.app.inject({ method: 'GET', url: long });
    expect([r.statusCode, r.json().message]).toEqual([404, `Route GET ${long.slice(0, 120)}… not found.`]);
    const short = await t.app.inject({ method: 'GET', url: '/api/v1/nope?x=1' });
    expect(short.json().message).toBe('Route GET /api/v1/nope not found.');
  });

  it('a body that is not JSON is a 415; one that is not a JSON object is a 422 saying so', async () => {
    expect(await call('POST', '/accounts/add-account', 'name=x', { 'content-type': 'text/plain' })).toEqual([415, 'This route takes a JSON body: send it with Content-Type: application/json.']);
    expect(await call('POST', '/trades/add-trade', '{"trade_data":{}}', { 'content-type': 'text/plain; charset=utf-8' })).toEqual([
      415,
      'This route takes a JSON body: send it with Content-Type: application/json.',
    ]);
    for (const body of ['null', '[]', '"x"', '42', '']) {
      expect([body, ...(await call('POST', '/accounts/add-account', body, json))]).toEqual([body, 422, 'The request body must be a JSON object.']);
      expect([body, ...(await call('POST', '/trades/add-trade', body, json))]).toEqual([body, 422, 'The request body must be a JSON object.']);
    }
    expect(await call('POST', '/accounts/add-account')).toEqual([422, 'The request body must be a JSON object.']);
    expect(await t.app.inject({ method: 'GET', url: '/api/v1/accounts', headers: { authorization: user.authorization } }).then((r) => r.statusCode)).toBeLessThan(500);
  });
});
