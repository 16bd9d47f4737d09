import { sql, type Kysely } from 'kysely';
import type { MigrationSet } from '@oj/infra/db/database';

// This module's tables. Names are timestamps (YYYYMMDDHHMM_what) so they sort in creation order.
export const migrations: MigrationSet = {
  '202611241580_profile_username_unique': {
    async up(db: Kysely<any>) {
      // Usernames are stored lower case (the rule refuses capitals), so plain equality is unique enough;
      // the index is what makes two concurrent claims of one name end in a single winner.
      await sql`create unique index users_username_key on users (username) where username is not null`.execute(db);
    },
    async down(db: Kysely<any>) {
      await sql`drop index users_username_key`.execute(db);
    },
  },
  '202611241581_profile_changes': {
    async up(db: Kysely<any>) {
      // Support's record of every profile edit. No foreign key on purpose: the history outlives the row
      // it describes, and a cascade would be a delete the trigger below refuses anyway.
      await db.schema
        .createTable('profile_changes')
        .addColumn('id', 'uuid', (c) => c.primaryKey())
        .addColumn('user_uid', 'uuid', (c) => c.notNull())
        .addColumn('field', 'text', (c) => c.notNull().check(sql`field in ('name', 'username', 'website', 'avatar', 'cover')`))
        .addColumn('old_value', 'text')
        .addColumn('new_value', 'text')
        .addColumn('changed_by', 'uuid', (c) => c.notNull())
        .addColumn('changed_at', 'timestamptz', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('profile_changes_user_idx').on('profile_changes').columns(['user_uid', 'changed_at']).execute();
      // Append-only for every writer (application, admin CLI, psql): history that can be edited is not history.
      await sql`
        create function oj_append_only() returns trigger language plpgsql as $$
        begin
          raise exception '% is append-only', tg_table_name;
        end $$`.execute(db);
      await sql`create trigger profile_changes_append_only before update or delete on profile_changes for each row execute function oj_append_only()`.execute(db);
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('profile_changes').execute();
      await sql`drop function oj_append_only()`.execute(db);
    },
  },
  '202611241582_contact_messages': {
    async up(db: Kysely<any>) {
      // The sender's e-mail and name are copied at sending time: support reads what the user was then.
      await db.schema
        .createTable('contact_messages')
        .addColumn('id', 'uuid', (c) => c.primaryKey())
        .addColumn('user_uid', 'uuid', (c) => c.notNull().references('users.uid').onDelete('cascade'))
        .addColumn('user_email', 'text', (c) => c.notNull())
        .addColumn('user_name', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('message', 'text', (c) => c.notNull())
        .addColumn('mail_id', 'uuid')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('contact_messages_created_idx').on('contact_messages').column('created_at').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('contact_messages').execute();
    },
  },
};
