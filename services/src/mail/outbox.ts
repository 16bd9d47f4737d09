import type { Kysely } from 'kysely';
import { uuidv7 } from '@oj/infra/ids';

export interface OutgoingMail {
  kind: string;
  to: string;
  /** Where an answer goes, when not to the sender (a contact message: the user who wrote it). */
  replyTo?: string;
  subject: string;
  text: string;
  html?: string;
}

/**
 * Commits a mail to the outbox. Call it with the transaction of the change that causes the mail (a
 * sign-up, a reset request): the mail exists exactly when that change committed.
 */
export async function enqueueMail(trx: Kysely<any>, mail: OutgoingMail, now: Date): Promise<string> {
  const id = uuidv7(now.getTime());
  await trx
    .insertInto('mail_outbox')
    .values({
      id,
      kind: mail.kind,
      to_address: mail.to,
      reply_to: mail.replyTo ?? null,
      subject: mail.subject,
      text_body: mail.text,
      html_body: mail.html ?? null,
      created_at: now,
      next_attempt_at: now,
    })
    .execute();
  return id;
}
