import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailTransport } from '../mail/transport.ts';
import { MailWorker } from '../mail/worker.ts';
import { latestMailFile } from '../mail/testing.ts';
import { createTestApp, type TestApp } from './testing.ts';

/**
 * The whole access flow through the API with mail as .eml files, on real Postgres and on PGlite (the
 * embedded mode `npm start` uses): sign up, verify from the mail, sign in, add an account, reset the
 * password from the mail, sign in with the new one.
 */
describe.each([
  ['postgres', false],
  ['pglite', true],
])('access flow on %s', (_name, pglite) => {
  let t: TestApp;
  let worker: MailWorker;
  beforeAll(async () => {
    t = await createTestApp({ label: 'identity_flow', pglite });
    worker = new MailWorker({ db: t.db.db, transport: createMailTransport({ dataDir: t.dataDir }), clock: t.clock, from: t.config.MAIL_FROM });
  });
  afterAll(async () => {
    await t?.close();
  });

  const linkParams = async (to: string, path: string) => {
    await worker.drain();
    const mail = await latestMailFile(t.dataDir, to, path);
    const link = mail?.links.find((l) => l.startsWith(`http://journal.test${path}?`));
    expect(link, `a ${path} link to ${to}`).toBeDefined();
    return new URL(link!).searchParams;
  };

  it('signs up, verifies, signs in, adds an account and resets the password', async () => {
    const email = `flow-${pglite ? 'lite' : 'pg'}@example.com`;
    const signup = await t.app.inject({ method: 'POST', url: '/api/v1/users/signup', payload: { name: 'Flow Tester', email, password: 'Flow1!x', agreed_to_terms: true } });
    expect(signup.statusCode).toBe(201);

    const verifyToken = (await linkParams(email, '/users/account-verify')).get('token')!;
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/users/verify/${verifyToken}` })).statusCode).toBe(200);

    const login = await t.app.inject({ method: 'POST', url: '/api/v1/users/login', payload: { email, password: 'Flow1!x' } });
    expect(login.json().user?.uac, login.body).toBe(true);
    const authorization = `Bearer ${login.json().access_token}`;
    const add = await t.app.inject({ method: 'POST', url: '/api/v1/accounts/add-account', headers: { authorization }, payload: { name: 'Main', broker: 'ibkr', ac_type: 1 } });
    expect(add.json().default_account, add.body).toBe(true);
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/users/current_user', headers: { authorization } });
    expect(me.json(), me.body).toMatchObject({ email, has_trade_account: true, user_since: t.clock.now().toISOString() });
    const sub = await t.app.inject({ method: 'GET', url: '/api/v1/subscription/current', headers: { authorization } });
    expect(sub.json(), sub.body).toMatchObject({ status: 1, cps: t.clock.now().toISOString(), cape: false, pm: false });

    await t.app.inject({ method: 'POST', url: '/api/v1/users/password-reset-request', payload: { email } });
    const reset = await linkParams(email, '/users/password-reset-link');
    expect(reset.get('email')).toBe(email);
    const set = await t.app.inject({ method: 'POST', url: `/api/v1/users/password-reset/${reset.get('token')}`, payload: { email: reset.get('email'), new_password: 'Fresh2@y' } });
    expect(set.statusCode).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/users/login', payload: { email, password: 'Fresh2@y' } })).statusCode).toBe(200);
  });
});
