import { sql, type Kysely } from 'kysely';
import type { MigrationSet } from '@oj/infra/db/database';

// This module's tables. Names are timestamps (YYYYMMDDHHMM_what) so they sort in creation order.
export const migrations: MigrationSet = {
  '202611220900_identity_users': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('users')
        .addColumn('uid', 'uuid', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        // Stored lower-cased (sign-up and sign-in force lower case), so equality is the lookup.
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull().defaultTo('User').check(sql`role in ('Admin', 'Super', 'Moderator', 'User')`))
        .addColumn('account_confirmed', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('agreed_to_terms', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('has_trade_account', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('username', 'text')
        .addColumn('website', 'text')
        .addColumn('bio', 'text')
        .addColumn('avatar', 'text')
        .addColumn('bg_image', 'text')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('users').execute();
    },
  },
  '202611220901_identity_tokens': {
    async up(db: Kysely<any>) {
      // Verification and reset tokens: only a SHA-256 of the random token is kept, so a database leak
      // does not hand out working links. `used_at` makes each single-use.
      await db.schema
        .createTable('user_tokens')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_uid', 'uuid', (c) => c.notNull().references('users.uid').onDelete('cascade'))
        .addColumn('purpose', 'text', (c) => c.notNull().check(sql`purpose in ('verify', 'reset')`))
        .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
        .addColumn('used_at', 'timestamptz')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('user_tokens_user_idx').on('user_tokens').columns(['user_uid', 'purpose']).execute();
      // Refresh tokens rotate inside a family (one sign-in); presenting a rotated one again revokes the family.
      await db.schema
        .createTable('refresh_tokens')
        .addColumn('id', 'uuid', (c) => c.primaryKey())
        .addColumn('user_uid', 'uuid', (c) => c.notNull().references('users.uid').onDelete('cascade'))
        .addColumn('family_id', 'uuid', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('rotated_at', 'timestamptz')
        .addColumn('revoked_at', 'timestamptz')
        .execute();
      await db.schema.createIndex('refresh_tokens_family_idx').on('refresh_tokens').column('family_id').execute();
      await db.schema.createIndex('refresh_tokens_user_idx').on('refresh_tokens').column('user_uid').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('refresh_tokens').execute();
      await db.schema.dropTable('user_tokens').execute();
    },
  },
  '202611220902_identity_subscriptions': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('subscriptions')
        .addColumn('user_uid', 'uuid', (c) => c.primaryKey().references('users.uid').onDelete('cascade'))
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('current_period_start', 'timestamptz')
        .addColumn('current_period_end', 'timestamptz')
        .addColumn('cancel_at_period_end', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('has_payment_method', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('payment_status', 'text')
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('subscriptions').execute();
    },
  },
  '202611231200_identity_principal_notify': {
    async up(db: Kysely<any>) {
      // Gateways keep the users behind access tokens in memory (principal-cache.ts). Every change to a
      // user or a subscription, whoever makes it (a gateway, the admin CLI, psql), tells them which user
      // changed. The trigger's argument names the column that holds the user's uid.
      await sql`
        create function oj_notify_principal() returns trigger language plpgsql as $$
        begin
          perform pg_notify('oj_principals', to_jsonb(coalesce(new, old)) ->> tg_argv[0]);
          return null;
        end $$`.execute(db);
      await sql`create trigger users_notify_principal after update or delete on users for each row execute function oj_notify_principal('uid')`.execute(db);
      await sql`create trigger subscriptions_notify_principal after insert or update or delete on subscriptions for each row execute function oj_notify_principal('user_uid')`.execute(db);
    },
    async down(db: Kysely<any>) {
      await sql`drop trigger subscriptions_notify_principal on subscriptions`.execute(db);
      await sql`drop trigger users_notify_principal on users`.execute(db);
      await sql`drop function oj_notify_principal()`.execute(db);
    },
  },
  '202611241300_identity_support_operator_roles': {
    async up(db: Kysely<any>) {
      // Support (audit replay) and Operator (projections console) join the staff roles.
      await sql`alter table users drop constraint if exists users_role_check`.execute(db);
      await sql`alter table users add constraint users_role_check check (role in ('Admin', 'Super', 'Moderator', 'Support', 'Operator', 'User'))`.execute(db);
    },
    async down(db: Kysely<any>) {
      await sql`alter table users drop constraint if exists users_role_check`.execute(db);
      await sql`alter table users add constraint users_role_check check (role in ('Admin', 'Super', 'Moderator', 'User'))`.execute(db);
    },
  },
  '202612051530_identity_revoked_sessions_notify': {
    async up(db: Kysely<any>) {
      // A sign-in ended (logout, a password reset, a refresh token presented twice) revokes its refresh
      // tokens; the gateways' principal caches hear of it and forget the user, whose next lookup reads the
      // sign-ins ended since, so the access tokens of that sign-in are refused at once.
      await sql`create trigger refresh_tokens_notify_principal after update of revoked_at on refresh_tokens for each row
        when (old.revoked_at is null and new.revoked_at is not null) execute function oj_notify_principal('user_uid')`.execute(db);
    },
    async down(db: Kysely<any>) {
      await sql`drop trigger refresh_tokens_notify_principal on refresh_tokens`.execute(db);
    },
  },
};
