import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';

/**
 * Authentication runs on `onRequest`, before body validation: a caller without a valid token learns
 * nothing about a private route's body rules (401, not 422), and a signed-in caller gets the 422.
 */
describe('authentication before validation', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ label: 'auth_order' });
  });
  afterAll(async () => t?.close());

  const privateWrites = [
    ['POST', '/api/v1/trades/add-trade'],
    ['POST', '/api/v1/accounts/add-account'],
    ['PATCH', '/api/v1/users/update-password'],
  ] as const;

  it.each(privateWrites)('%s %s without a token and with a bad body answers 401', async (method, url) => {
    const res = await t.app.inject({ method, url, payload: { nonsense: true } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ message: 'Not authenticated.', detail: 'Not authenticated.' });
  });

  it.each(privateWrites)('%s %s with a token and a bad body answers 422', async (method, url) => {
    const user = await signInAs(t);
    const res = await t.app.inject({ method, url, payload: { nonsense: true }, headers: { authorization: user.authorization } });
    expect(res.statusCode).toBe(422);
    expect(typeof res.json().message).toBe('string');
  });
});
