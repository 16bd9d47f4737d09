import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createTestApp, type TestApp } from '../identity/testing.ts';
import { startMailWorker } from './start.ts';
import { latestMailFile } from './testing.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ label: 'mail_start' });
});
afterAll(async () => {
  await t?.close();
});

describe('the process mail worker', () => {
  it('picks up a sign-up mail by itself and writes it to DATA_DIR/mail; stops cleanly', async () => {
    const worker = startMailWorker(t.deps);
    try {
      const email = 'started@example.com';
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/users/signup', payload: { name: 'Started Worker', email, password: 'Start1!x', agreed_to_terms: true } });
      expect(res.statusCode).toBe(201);
      let mail: Awaited<ReturnType<typeof latestMailFile>>;
      for (let i = 0; i < 100 && !mail; i++) {
        mail = await latestMailFile(t.dataDir, email, '/users/account-verify');
        if (!mail) await new Promise((r) => setTimeout(r, 100));
      }
      expect(mail?.links.some((l) => l.startsWith('http://journal.test/users/account-verify?token='))).toBe(true);
    } finally {
      await worker.stop();
    }
    const row = await t.db.db.selectFrom('mail_outbox').select(['sent_at']).executeTakeFirstOrThrow();
    expect(row.sent_at).not.toBeNull();
  });

  it('without SMTP_URL, says once at start where the mail files go', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino(new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(JSON.parse(chunk.toString())), done()) }));
    const worker = startMailWorker({ ...t.deps, logger });
    await worker.stop();
    const dir = join(t.dataDir, 'mail');
    expect(lines.filter((l) => l.msg === `mail outbox worker started: no SMTP_URL, mail is written as .eml files to ${dir}`)).toEqual([expect.objectContaining({ level: 30, transport: 'files', dir })]);
  });
});
