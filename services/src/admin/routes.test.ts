import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';
import { authMessages } from '../identity/auth-plugin.ts';
import { ADMIN_LOOKUP_REASON } from './routes.ts';
import { runAdminCli } from '../identity/cli.ts';
import { runAuditCli } from '../audit/cli.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ label: 'admin_routes' });
});
afterAll(async () => {
  await t?.close();
});

const lookup = (email: string, authorization?: string) =>
  t.app.inject({ method: 'GET', url: `/api/v1/admin/users/${encodeURIComponent(email)}`, ...(authorization ? { headers: { authorization } } : {}) });

describe('admin user lookup', () => {
  it('returns the part 2 fields to an Admin', async () => {
    const admin = await signInAs(t, { role: 'Admin' });
    const user = await signInAs(t, { name: 'Lookup Target' });
    const res = await lookup(user.email.toUpperCase(), admin.authorization);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      name: 'Lookup Target',
      uid: user.userId,
      email: user.email,
      username: null,
      user_since: '2026-03-02',
      bio: null,
      website: null,
      account_confirmed: true,
      has_trade_account: false,
      agreed_to_terms: true,
      role_uid: 'User',
    });
    // Signed up at 21:00 in New York, 02:00 the next day in UTC: the New York date (QA).
    await sql`update users set created_at = '2026-03-03T02:00:00Z' where uid = ${user.userId}`.execute(t.db.db);
    expect((await lookup(user.email, admin.authorization)).json().user_since).toBe('2026-03-02');
  });

  it("is in the looked-up user's access log (who, when, why, what), before the answer; a refused lookup and an Admin's own are not", async () => {
    const admin = await signInAs(t, { role: 'Admin', name: 'Ada Admin' });
    const user = await signInAs(t, { name: 'Logged Target' });
    const other = await signInAs(t, { name: 'Bystander' });
    const access = async (s: { authorization: string }) => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/users/journal-access', headers: { authorization: s.authorization } });
      expect(res.statusCode).toBe(200);
      return res.json().items as Array<{ by: string; role: string; reason: string; view: string; detail: string; at: string }>;
    };
    expect(await access(user)).toEqual([]);
    expect((await lookup(user.email, admin.authorization)).statusCode).toBe(200);
    const items = await access(user);
    expect(items).toEqual([{ at: expect.any(String), by: 'Ada Admin', role: 'Admin', reason: ADMIN_LOOKUP_REASON, view: 'profile', detail: 'looked up by e-mail' }]);
    // Nobody else's log, not for a refused lookup (404: nothing was shown), not for the Admin's own profile.
    expect(await access(other)).toEqual([]);
    expect((await lookup('nobody.at.all@example.com', admin.authorization)).statusCode).toBe(404);
    expect((await lookup(admin.email, admin.authorization)).statusCode).toBe(200);
    expect(await access(admin)).toEqual([]);
    expect(await access(user)).toHaveLength(1);
    // The Admins' whole access log names the lookup with its target.
    const log = await t.app.inject({ method: 'GET', url: `/api/v1/audit/access-log?user=${user.userId}`, headers: { authorization: admin.authorization } });
    expect(log.statusCode).toBe(200);
    expect(log.json().items).toMatchObject([{ target_uid: user.userId, target_email: user.email, view: 'profile', reason: ADMIN_LOOKUP_REASON, support: { name: 'Ada Admin', role: 'Admin' } }]);
  });

  it('answers 404 for an unknown e-mail and 422 for a blank one', async () => {
    const admin = await signInAs(t, { role: 'Admin' });
    const res = await lookup('nobody@example.com', admin.authorization);
    expect(res.statusCode).toBe(404);
    // The spec's admin screen shows the error's `detail`.
    expect(res.json()).toEqual({ message: 'User not found.', detail: 'User not found.' });
    const blank = await lookup(' ', admin.authorization);
    expect(blank.statusCode).toBe(422);
    expect(blank.json().message).toBe('Email is required.');
  });

  it('is Admin only: 401 without a token, 403 for other roles', async () => {
    expect((await lookup('x@example.com')).statusCode).toBe(401);
    for (const role of ['User', 'Super', 'Moderator'] as const) {
      const s = await signInAs(t, { role });
      const res = await lookup(s.email, s.authorization);
      expect(res.statusCode, role).toBe(403);
      expect(res.json().message).toBe(authMessages.forbidden);
    }
  });
});

describe('admin CLI', () => {
  const quiet = { log: () => undefined, error: () => undefined } as unknown as Console;
  const env = () => ({ DATABASE_URL: t.db.url, DATA_DIR: t.dataDir, JWT_SECRET: t.config.JWT_SECRET, LOG_LEVEL: 'silent' });

  it('create-admin makes a verified Admin who can sign in and look users up', async () => {
    const code = await runAdminCli(['create-admin', '--email', 'Boss@Example.com', '--name', 'Big Boss', '--password', 'Admin1!pass'], env(), quiet);
    expect(code).toBe(0);
    const login = await t.app.inject({ method: 'POST', url: '/api/v1/users/login', payload: { email: 'boss@example.com', password: 'Admin1!pass' } });
    expect(login.json().user).toMatchObject({ role: 'Admin', uac: true });
    expect((await lookup('boss@example.com', `Bearer ${login.json().access_token}`)).statusCode).toBe(200);
    // Same e-mail again: refused.
    expect(await runAdminCli(['create-admin', '--email', 'boss@example.com', '--name', 'Big Boss', '--password', 'Admin1!pass'], env(), quiet)).toBe(1);
  });

  it('promote gives an existing user a role; bad input gives usage', async () => {
    const s = await signInAs(t);
    expect(await runAdminCli(['promote', '--email', s.email], env(), quiet)).toBe(0);
    expect((await lookup(s.email, s.authorization)).statusCode).toBe(200);
    expect(await runAdminCli(['promote', '--email', 'ghost@example.com'], env(), quiet)).toBe(1);
    expect(await runAdminCli(['create-admin', '--email', 'a@b.co', '--name', 'x', '--password', 'weak'], env(), quiet)).toBe(2);
    expect(await runAdminCli(['explode'], env(), quiet)).toBe(2);
  });

  it('grant-role gives the Support and Operator roles (staff, never locked out); it needs --role', async () => {
    const s = await signInAs(t);
    expect(await runAdminCli(['grant-role', '--email', s.email], env(), quiet)).toBe(2);
    expect(await runAdminCli(['grant-role', '--email', s.email, '--role', 'Janitor'], env(), quiet)).toBe(2);
    expect(await runAdminCli(['grant-role', '--email', s.email, '--role', 'Support'], env(), quiet)).toBe(0);
    const login = await t.app.inject({ method: 'POST', url: '/api/v1/users/login', payload: { email: s.email, password: s.password } });
    expect(login.json().user).toMatchObject({ role: 'Support' });
    // Support is not Admin: the admin lookup stays closed to it.
    expect((await lookup(s.email, `Bearer ${login.json().access_token}`)).statusCode).toBe(403);
    expect(await runAdminCli(['grant-role', '--email', s.email, '--role', 'Operator'], env(), quiet)).toBe(0);
  });

  it('refuses an embedded data directory that a running server holds, in one line (QA: it wrote beside `npm start`)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oj-admin-cli-'));
    try {
      // A live process other than this one holds it: the parent of this test process stands in for `npm start`.
      writeFileSync(join(dir, 'pglite.pid'), String(process.ppid));
      const errors: string[] = [];
      const out = { log: () => undefined, error: (m: string) => errors.push(m) } as unknown as Console;
      const embedded = { DATA_DIR: dir, JWT_SECRET: t.config.JWT_SECRET, LOG_LEVEL: 'silent' };
      expect(await runAdminCli(['create-admin', '--email', 'side@example.com', '--name', 'Side Door', '--password', 'Admin1!pass'], embedded, out)).toBe(1);
      expect(await runAuditCli(['overview', 'someone', '--as', 'side@example.com', '--reason', 'x'], embedded, out)).toBe(1);
      expect(errors).toEqual([expect.stringContaining(`is in use by process ${process.ppid}`), expect.stringContaining(`is in use by process ${process.ppid}`)]);
      expect(existsSync(join(dir, 'pg'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
