import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailTransport } from '../../src/mail/transport.ts';
import { MailWorker, retryDelayMs } from '../../src/mail/worker.ts';
import { createTestApp, type TestApp } from '../../src/identity/testing.ts';

/**
 * Fault: the SMTP server is down while traders sign up and ask for password resets (each queues a mail
 * through the outbox in the same transaction as its cause), then comes back on the same address. Every
 * mail is delivered, each exactly once, and none was lost while the server was away.
 */
let t: TestApp;
let server: SMTPServer | undefined;
let port = 0;
const received: string[] = [];

function startSmtp(listenPort: number): Promise<number> {
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData: (stream, session, cb) => {
      stream.on('data', () => undefined);
      stream.on('end', () => {
        received.push(session.envelope.rcptTo.map((r) => r.address).join(','));
        cb();
      });
    },
  });
  return new Promise((resolve) => server!.listen(listenPort, '127.0.0.1', () => resolve((server!.server.address() as AddressInfo).port)));
}

const stopSmtp = () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));

beforeAll(async () => {
  t = await createTestApp({ label: 'fault_smtp', env: { RATE_LIMIT_AUTH_PER_MINUTE: '10000' } });
  port = await startSmtp(0);
}, 60_000);

afterAll(async () => {
  await stopSmtp();
  await t?.close();
});

describe('the SMTP server down, then back', () => {
  it('sends every mail once', async () => {
    const worker = new MailWorker({ db: t.db.db, transport: createMailTransport({ smtpUrl: `smtp://127.0.0.1:${port}`, dataDir: '/nonexistent' }), clock: t.clock, from: 'Options Journal <no-reply@journal.test>' });
    const signUp = async (i: number) => {
      const r = await t.app.inject({ method: 'POST', url: '/api/v1/users/signup', payload: { name: 'Jane Trader', email: `smtp-fault-${i}@example.com`, password: 'Abc12!', agreed_to_terms: true } });
      expect(r.statusCode, r.body).toBe(201);
    };
    for (let i = 0; i < 3; i++) await signUp(i);
    expect(await worker.drain()).toBe(3);

    await stopSmtp();
    // While it is away: sign-ups and reset requests still succeed; their mails wait in the outbox.
    for (let i = 3; i < 9; i++) await signUp(i);
    for (const i of [0, 4]) {
      const r = await t.app.inject({ method: 'POST', url: '/api/v1/users/password-reset-request', payload: { email: `smtp-fault-${i}@example.com` } });
      expect(r.statusCode, r.body).toBeLessThan(300);
    }
    expect(await worker.drain()).toBe(0);
    const waiting = await t.db.db.selectFrom('mail_outbox').select(['attempts', 'last_error']).where('sent_at', 'is', null).execute();
    expect(waiting).toHaveLength(8);
    expect(waiting.every((w) => w.attempts === 1 && /ECONNREFUSED|connect/i.test(String(w.last_error)))).toBe(true);

    // A second try, still down, backs off further; then the server is back on the same address.
    t.clock.advance(retryDelayMs(1));
    expect(await worker.drain()).toBe(0);
    expect(await startSmtp(port)).toBe(port);
    expect(await worker.drain()).toBe(0); // not due yet: the backoff holds
    t.clock.advance(retryDelayMs(2));
    expect(await worker.drain()).toBe(8);
    expect(await worker.drain()).toBe(0);

    const expected = [...Array.from({ length: 9 }, (_, i) => `smtp-fault-${i}@example.com`), 'smtp-fault-0@example.com', 'smtp-fault-4@example.com'].sort();
    expect([...received].sort()).toEqual(expected);
    const unsent = await t.db.db.selectFrom('mail_outbox').select('id').where('sent_at', 'is', null).execute();
    expect(unsent).toEqual([]);
  }, 120_000);
});
