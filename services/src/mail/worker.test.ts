import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { FixedClock } from '@oj/infra/clock';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { migrate } from '../platform/migrations.ts';
import { enqueueMail } from './outbox.ts';
import { createMailTransport } from './transport.ts';
import { DEFAULT_LEASE_MS, MailWorker } from './worker.ts';
import { verificationMail } from './templates.ts';
import { latestMailFile, linksInMail } from './testing.ts';

/** A real SMTP server in the test process; `failNext` makes it refuse that many recipients (a 451). */
class TestSmtp {
  received: Array<{ to: string; raw: string }> = [];
  failNext = 0;
  /** Reads the message but never answers the end of DATA (a hung server). */
  stallData = false;
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo: (address, _session, cb) => {
      if (this.failNext > 0) {
        this.failNext--;
        const err = new Error('Mailbox busy, try later') as Error & { responseCode: number };
        err.responseCode = 451;
        return cb(err);
      }
      cb();
    },
    onData: (stream, session, cb) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (this.stallData) return;
        this.received.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), raw: Buffer.concat(chunks).toString('utf8') });
        cb();
      });
    },
  });
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    return `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }
  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let db: TestDatabase;
let smtp: TestSmtp;
let smtpUrl: string;
const clock = new FixedClock('2026-03-02T15:00:00Z');

beforeAll(async () => {
  db = await createTestDatabase('mail_worker');
  await migrate(db.db);
  smtp = new TestSmtp();
  smtpUrl = await smtp.start();
});
afterAll(async () => {
  await smtp?.stop();
  await db?.drop();
});
beforeEach(async () => {
  await db.db.deleteFrom('mail_outbox').execute();
  smtp.received = [];
  smtp.failNext = 0;
  smtp.stallData = false;
});

const from = 'Options Journal <no-reply@journal.test>';
const worker = (options: Partial<ConstructorParameters<typeof MailWorker>[0]> = {}) =>
  new MailWorker({ db: db.db, transport: createMailTransport({ smtpUrl, dataDir: '/nonexistent' }), clock, from, ...options });

const enqueue = (to: string) => enqueueMail(db.db, verificationMail('http://journal.test', to, 'Jane Trader', `tok-${to}`), clock.now());

describe('mail outbox over SMTP', () => {
  it('delivers a committed mail once and marks it sent', async () => {
    const id = await enqueue('jane@example.com');
    const w = worker();
    expect(await w.drain()).toBe(1);
    expect(await w.drain()).toBe(0);
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]!.to).toBe('jane@example.com');
    expect(smtp.received[0]!.raw).toContain(`Message-ID: <${id}@options-journal.local>`);
    expect(linksInMail(smtp.received[0]!.raw)).toContain('http://journal.test/users/account-verify?token=tok-jane%40example.com');
    const row = await db.db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.sent_at).toEqual(clock.now());
    expect(row.attempts).toBe(1);
  });

  it('carries a Reply-To when the mail has one (a contact message answers to its writer), and none otherwise', async () => {
    await enqueueMail(db.db, { kind: 'contact', to: 'help@journal.test', replyTo: 'carol@example.com', subject: '[Contact] Roll question', text: 'How do I roll?' }, clock.now());
    expect(await worker().drain()).toBe(1);
    expect(smtp.received[0]!.raw).toMatch(/^Reply-To: carol@example\.com$/m);
    await enqueue('jane@example.com');
    expect(await worker().drain()).toBe(1);
    expect(smtp.received[1]!.raw).not.toMatch(/^Reply-To:/m);
  });

  it('a mail of a rolled-back transaction never exists, so it is never sent', async () => {
    await db.db
      .transaction()
      .execute(async (trx) => {
        await enqueueMail(trx, verificationMail('http://journal.test', 'ghost@example.com', 'Ghost User', 't'), clock.now());
        throw new Error('sign-up failed after the mail was queued');
      })
      .catch(() => undefined);
    expect(await worker().drain()).toBe(0);
    expect(smtp.received).toHaveLength(0);
  });

  it('retries a refused delivery after the backoff, then delivers', async () => {
    await enqueue('busy@example.com');
    smtp.failNext = 1;
    const w = worker();
    expect(await w.drain()).toBe(0);
    const failed = await db.db.selectFrom('mail_outbox').selectAll().executeTakeFirstOrThrow();
    expect(failed.sent_at).toBeNull();
    expect(failed.last_error).toContain('Mailbox busy');
    // Not due yet.
    expect(await w.drain()).toBe(0);
    clock.advance(30_000);
    try {
      expect(await w.drain()).toBe(1);
    } finally {
      clock.advance(-30_000);
    }
    expect(smtp.received.map((m) => m.to)).toEqual(['busy@example.com']);
  });

  it('gives up after the last attempt and keeps the error', async () => {
    await enqueue('dead@example.com');
    smtp.failNext = 100;
    const w = worker({ maxAttempts: 2 });
    expect(await w.drain()).toBe(0);
    clock.advance(3_600_000);
    try {
      expect(await w.drain()).toBe(0);
      clock.advance(3_600_000);
      expect(await w.drain()).toBe(0);
    } finally {
      clock.advance(-7_200_000);
    }
    const row = await db.db.selectFrom('mail_outbox').selectAll().executeTakeFirstOrThrow();
    expect(row.attempts).toBe(2);
    expect(row.failed_at).not.toBeNull();
  });

  it('concurrent workers send each mail exactly once', async () => {
    const addresses = Array.from({ length: 25 }, (_, i) => `user${i}@example.com`);
    for (const a of addresses) await enqueue(a);
    const workers = [worker({ batchSize: 3 }), worker({ batchSize: 3 }), worker({ batchSize: 3 })];
    const sent = await Promise.all(workers.map((w) => w.drain()));
    expect(sent.reduce((a, b) => a + b, 0)).toBe(25);
    expect(smtp.received.map((m) => m.to).sort()).toEqual([...addresses].sort());
  });

  it('a claim held by a live worker is not taken; a crashed worker\'s claim runs out and the mail is sent (at least once)', async () => {
    await enqueue('crash@example.com');
    const crashed = worker({ leaseMs: 60_000 });
    // The worker claims and dies before sending.
    expect(await crashed.claim()).toHaveLength(1);
    const other = worker();
    expect(await other.drain()).toBe(0);
    clock.advance(60_000);
    try {
      expect(await other.drain()).toBe(1);
    } finally {
      clock.advance(-60_000);
    }
    expect(smtp.received.map((m) => m.to)).toEqual(['crash@example.com']);
  });
});

describe('a hung SMTP server', () => {
  it('fails the send by the transport timeout (so it cannot outlive its lease), releases the claim and sends once on retry', async () => {
    const id = await enqueue('hung@example.com');
    smtp.stallData = true;
    const w = worker({ transport: createMailTransport({ smtpUrl, dataDir: '/nonexistent', timeoutMs: 300 }) });
    expect(await w.drain()).toBe(0);
    const row = await db.db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.sent_at).toBeNull();
    expect(row.claim_token).toBeNull();
    expect(row.last_error).toMatch(/timeout/i);
    expect(smtp.received).toHaveLength(0);
    smtp.stallData = false;
    clock.advance(30_000);
    try {
      expect(await w.drain()).toBe(1);
      expect(await w.drain()).toBe(0);
    } finally {
      clock.advance(-30_000);
    }
    expect(smtp.received.map((m) => m.to)).toEqual(['hung@example.com']);
  });

  it('the default transport timeout is shorter than the default lease', async () => {
    const { SMTP_TIMEOUT_MS } = await import('./transport.ts');
    expect(SMTP_TIMEOUT_MS).toBeLessThan(DEFAULT_LEASE_MS / 2);
  });
});

describe('mail as .eml files', () => {
  it('writes each message into DATA_DIR/mail, and logs its path and subject (QA: nothing said where a mail went)', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'oj-mail-'));
    try {
      await enqueue('file@example.com');
      const lines: Array<Record<string, unknown>> = [];
      const logger = pino(new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(JSON.parse(chunk.toString())), done()) }));
      const w = new MailWorker({ db: db.db, transport: createMailTransport({ dataDir, logger }), clock, from });
      expect(await w.drain()).toBe(1);
      const files = await readdir(join(dataDir, 'mail'));
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/\.eml$/);
      const file = join(dataDir, 'mail', files[0]!);
      expect(lines).toEqual([expect.objectContaining({ level: 30, file, subject: 'Verify your Options Journal account', msg: `mail written to ${file}: Verify your Options Journal account` })]);
      const eml = await readFile(join(dataDir, 'mail', files[0]!), 'utf8');
      expect(eml).toContain('Subject: Verify your Options Journal account');
      const found = await latestMailFile(dataDir, 'file@example.com');
      expect(found?.file).toBe(files[0]);
      expect(found?.links).toContain('http://journal.test/users/account-verify?token=tok-file%40example.com');
      expect(await latestMailFile(dataDir, 'other@example.com')).toBeUndefined();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
