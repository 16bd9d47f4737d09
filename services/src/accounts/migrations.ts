import { sql, type Kysely } from 'kysely';
import type { MigrationSet } from '@oj/infra/db/database';

// This module's tables. Names are timestamps (YYYYMMDDHHMM_what) so they sort in creation order.
export const migrations: MigrationSet = {
  '202611220920_trade_accounts': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('trade_accounts')
        .addColumn('uid', 'uuid', (c) => c.primaryKey())
        .addColumn('user_uid', 'uuid', (c) => c.notNull().references('users.uid').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('broker', 'text', (c) => c.notNull())
        .addColumn('ac_type', 'integer', (c) => c.notNull().check(sql`ac_type between 1 and 6`))
        .addColumn('broker_commission', 'numeric(12, 4)', (c) => c.notNull())
        .addColumn('broker_fee', 'numeric(12, 4)', (c) => c.notNull())
        .addColumn('bg_image', 'text')
        .addColumn('default_account', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('trade_accounts_user_idx').on('trade_accounts').columns(['user_uid', 'created_at']).execute();
      // At most one default per user, whatever the races.
      await db.schema.createIndex('trade_accounts_one_default').on('trade_accounts').column('user_uid').unique().where(sql.ref('default_account'), '=', true).execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('trade_accounts').execute();
    },
  },
};
