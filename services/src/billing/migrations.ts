import { sql, type Kysely } from 'kysely';
import type { MigrationSet } from '@oj/infra/db/database';

// Billing's tables. Names are timestamps (YYYYMMDDHHMM_what) so they sort in creation order.
export const migrations: MigrationSet = {
  '202611241520_billing_subscription_projection': {
    async up(db: Kysely<any>) {
      // `subscriptions` (identity's table, read by every access check) becomes the projection of the
      // subscription streams. `stream_revision` is the revision of the last event applied: an apply never
      // goes back to an older revision, so a slow writer cannot undo a newer one. Null: a row written at
      // sign-up whose stream does not exist yet (the first command starts it with TrialStarted).
      await sql`alter table subscriptions add column stream_revision integer`.execute(db);
      await sql`alter table subscriptions add column stripe_subscription_id text`.execute(db);
      await sql`alter table subscriptions add column trial_end timestamptz`.execute(db);
      await sql`alter table subscriptions add column grace_ends_at timestamptz`.execute(db);
      await sql`alter table subscriptions add column card_brand text`.execute(db);
      await sql`alter table subscriptions add column card_last4 text`.execute(db);
      await sql`alter table subscriptions add column card_exp_month integer`.execute(db);
      await sql`alter table subscriptions add column card_exp_year integer`.execute(db);
      // One Stripe customer per user, created once (the idempotency key and this primary key both say so).
      await db.schema
        .createTable('billing_customers')
        .addColumn('user_uid', 'uuid', (c) => c.primaryKey().references('users.uid').onDelete('cascade'))
        .addColumn('stripe_customer_id', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .execute();
      // Every Stripe event id handled, so a redelivery is answered without deciding again. Written after
      // the append; a crash in between is caught by the stream itself (its events carry the Stripe id).
      await db.schema
        .createTable('billing_stripe_events')
        .addColumn('event_id', 'text', (c) => c.primaryKey())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('user_uid', 'uuid')
        .addColumn('appended', 'integer', (c) => c.notNull())
        .addColumn('processed_at', 'timestamptz', (c) => c.notNull())
        .execute();
      // Reminder mails sent, one row per reminder key; inserted in the transaction that enqueues the mail.
      await db.schema
        .createTable('billing_reminders')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('user_uid', 'uuid', (c) => c.notNull().references('users.uid').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('sent_at', 'timestamptz', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('billing_reminders').execute();
      await db.schema.dropTable('billing_stripe_events').execute();
      await db.schema.dropTable('billing_customers').execute();
      for (const column of ['card_exp_year', 'card_exp_month', 'card_last4', 'card_brand', 'grace_ends_at', 'trial_end', 'stripe_subscription_id', 'stream_revision']) {
        await sql`alter table subscriptions drop column ${sql.ref(column)}`.execute(db);
      }
    },
  },
  '202612050215_billing_charge_claims': {
    async up(db: Kysely<any>) {
      // One call that may charge (subscribe, reactivate) per user at a time, across gateway
      // processes: two tabs subscribing at once each made a Stripe subscription and both were charged
      // (QA). A row is the claim; one older than a Stripe call can last is taken over (a crashed holder).
      await db.schema
        .createTable('billing_charge_claims')
        .addColumn('user_uid', 'uuid', (c) => c.primaryKey().references('users.uid').onDelete('cascade'))
        .addColumn('claimed_at', 'timestamptz', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('billing_charge_claims').execute();
    },
  },
};
