import { sql, type Kysely } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { Clock } from '@oj/infra/clock';
import type { Logger } from 'pino';
import type { MailTransport } from './transport.ts';

/**
 * Delivers the outbox.
 *
 * Guarantees:
 * - Never lost: a row exists iff the causing transaction committed; it stays until marked sent, and a
 *   worker that dies mid-send leaves a lease that simply runs out, after which any worker retries it.
 * - Not sent twice in the normal path: a batch is claimed with `FOR UPDATE SKIP LOCKED` and a lease
 *   (`claim_token`, `claimed_until`), so concurrent workers never pick the same row while the lease
 *   holds, and the row is marked sent (guarded by the claim token) right after the transport accepts it.
 * - The honest edge (at-least-once): if the process dies after the SMTP server accepted a message but
 *   before the `sent_at` update commits, the mail is sent again after the lease expires. (A send cannot
 *   outlive its lease: the SMTP timeouts in transport.ts are far shorter.) Each outbox row keeps one
 *   Message-ID across attempts, so clients can fold duplicates.
 * Failed sends are retried with exponential backoff (30 s doubling, capped at 1 h), and given up after
 * `maxAttempts` (`failed_at` set, error kept in `last_error`).
 */
export interface MailWorkerOptions {
  db: Kysely<any>;
  transport: MailTransport;
  clock: Clock;
  from: string;
  logger?: Logger;
  /** Message-ID domain. */
  domain?: string;
  batchSize?: number;
  leaseMs?: number;
  maxAttempts?: number;
  pollMs?: number;
}

interface ClaimedRow {
  id: string;
  to_address: string;
  reply_to: string | null;
  subject: string;
  text_body: string;
  html_body: string | null;
  attempts: number;
  claim_token: string;
}

/** A claim's lease; the SMTP transport's timeouts (transport.ts) stay well below it. */
export const DEFAULT_LEASE_MS = 60_000;

export const retryDelayMs = (attempts: number): number => Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 3_600_000);

export class MailWorker {
  readonly #o: Required<Omit<MailWorkerOptions, 'logger'>> & { logger: Logger | undefined };
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  #stopped = false;

  constructor(options: MailWorkerOptions) {
    this.#o = {
      batchSize: 10,
      leaseMs: DEFAULT_LEASE_MS,
      maxAttempts: 8,
      pollMs: 1_000,
      domain: 'options-journal.local',
      ...options,
      logger: options.logger,
    };
  }

  /** Claims due mails (up to one batch) for this worker. Exposed for tests of the claim itself. */
  async claim(): Promise<ClaimedRow[]> {
    const now = this.#o.clock.now();
    const token = randomUUID();
    const until = new Date(now.getTime() + this.#o.leaseMs);
    const result = await sql<ClaimedRow>`
      update mail_outbox set claim_token = ${token}, claimed_until = ${until}, attempts = attempts + 1
      where id in (
        select id from mail_outbox
        where sent_at is null and failed_at is null and next_attempt_at <= ${now}
          and (claimed_until is null or claimed_until <= ${now})
        order by next_attempt_at, id
        limit ${this.#o.batchSize}
        for update skip locked
      )
      returning id, to_address, reply_to, subject, text_body, html_body, attempts, claim_token`.execute(this.#o.db);
    return result.rows;
  }

  /** Sends one claimed mail and records the outcome. */
  async deliver(row: ClaimedRow): Promise<boolean> {
    const { db, transport, clock } = this.#o;
    try {
      await transport.send({
        messageId: `<${row.id}@${this.#o.domain}>`,
        from: this.#o.from,
        to: row.to_address,
        replyTo: row.reply_to,
        subject: row.subject,
        text: row.text_body,
        html: row.html_body,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const now = clock.now();
      const giveUp = row.attempts >= this.#o.maxAttempts;
      await db
        .updateTable('mail_outbox')
        .set({
          claim_token: null,
          claimed_until: null,
          last_error: message.slice(0, 1000),
          next_attempt_at: new Date(now.getTime() + retryDelayMs(row.attempts)),
          ...(giveUp ? { failed_at: now } : {}),
        })
        .where('id', '=', row.id)
        .where('claim_token', '=', row.claim_token)
        .execute();
      this.#o.logger?.warn({ mailId: row.id, attempts: row.attempts, giveUp, err: message }, 'mail delivery failed');
      return false;
    }
    await db
      .updateTable('mail_outbox')
      .set({ sent_at: clock.now(), claim_token: null, claimed_until: null, last_error: null })
      .where('id', '=', row.id)
      .where('claim_token', '=', row.claim_token)
      .execute();
    return true;
  }

  /** One pass: claim a batch and deliver it. Returns how many were sent. */
  async runOnce(): Promise<number> {
    const rows = await this.claim();
    let sent = 0;
    for (const row of rows) if (await this.deliver(row)) sent++;
    return sent;
  }

  /** Passes until nothing due is left (tests, and a busy outbox). */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const rows = await this.claim();
      if (rows.length === 0) return total;
      for (const row of rows) if (await this.deliver(row)) total++;
    }
  }

  start(): void {
    const tick = async () => {
      if (this.#stopped) return;
      this.#running = this.drain().catch((err) => this.#o.logger?.error({ err }, 'mail worker pass failed'));
      await this.#running;
      if (!this.#stopped) this.#timer = setTimeout(() => void tick(), this.#o.pollMs);
    };
    void tick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
    this.#o.transport.close();
  }
}
