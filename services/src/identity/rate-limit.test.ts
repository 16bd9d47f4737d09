import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './testing.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ label: 'identity_rate_limit', env: { RATE_LIMIT_AUTH_PER_MINUTE: '3' } });
});
afterAll(async () => {
  await t?.close();
});

/** Each test comes from its own address: the limit is per client IP and per route. */

describe('rate limits on auth routes', () => {
  it.each([
    ['login', 'POST', '/api/v1/users/login', { email: 'a@example.com', password: 'x' }],
    ['sign-up', 'POST', '/api/v1/users/signup', { name: 'Jane Trader', email: 'not-an-email', password: 'x', agreed_to_terms: true }],
    ['reset request', 'POST', '/api/v1/users/password-reset-request', { email: 'a@example.com' }],
  ] as const)('%s allows the configured number per minute, then 429', async (name, method, url, payload) => {
    const ip = `10.0.0.${name.length}`;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await t.app.inject({ method, url, payload, remoteAddress: ip })).statusCode);
    expect(statuses.slice(0, 3)).not.toContain(429);
    expect(statuses[3]).toBe(429);
    const limited = await t.app.inject({ method, url, payload, remoteAddress: ip });
    expect(limited.json().message).toEqual(expect.any(String));
    // Another client is not affected.
    expect((await t.app.inject({ method, url, payload, remoteAddress: '10.0.1.1' })).statusCode).not.toBe(429);
  });
});
