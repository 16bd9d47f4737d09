import { sql, type Kysely } from 'kysely';
import type { MigrationSet } from '@oj/infra/db/database';

// This module's tables. Names are timestamps (YYYYMMDDHHMM_what) so they sort in creation order.
export const migrations: MigrationSet = {
  '202611220910_mail_outbox': {
    async up(db: Kysely<any>) {
      // The transactional outbox: a row is inserted in the same transaction as the change that causes
      // the mail, and the worker delivers it. `claim_token`/`claimed_until` are the worker's lease.
      await db.schema
        .createTable('mail_outbox')
        .addColumn('id', 'uuid', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('to_address', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('text_body', 'text', (c) => c.notNull())
        .addColumn('html_body', 'text')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('claim_token', 'uuid')
        .addColumn('claimed_until', 'timestamptz')
        .addColumn('sent_at', 'timestamptz')
        .addColumn('failed_at', 'timestamptz')
        .addColumn('last_error', 'text')
        .execute();
      await db.schema.createIndex('mail_outbox_due_idx').on('mail_outbox').column('next_attempt_at').where(sql.ref('sent_at'), 'is', null).execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('mail_outbox').execute();
    },
  },
  '202612050530_mail_outbox_reply_to': {
    async up(db: Kysely<any>) {
      // A contact message's copy answers to the user who wrote it, not to the journal's no-reply sender.
      await db.schema.alterTable('mail_outbox').addColumn('reply_to', 'text').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.alterTable('mail_outbox').dropColumn('reply_to').execute();
    },
  },
};
