import { sql, type Kysely } from 'kysely';
import type { MigrationSet } from '@oj/infra/db/database';

// This module's tables. Names are timestamps (YYYYMMDDHHMM_what) so they sort in creation order.
export const migrations: MigrationSet = {
  '202611241600_events_user_log': {
    async up(db: Kysely<any>) {
      // Audit replay reads one user's events in log order (infra/src/eventstore/user-log.ts). The
      // prefix index finds a user's rows but leaves them to be sorted (250,000 for a heavy user on
      // every timeline page); this one hands them out already in log order. split_part is immutable,
      // and the first part of `trade-<userId>.<lineageId>` is the user.
      await sql`create index if not exists events_user_log_idx on events (split_part(stream_id, '.', 1), transaction_id, global_position)`.execute(db);
    },
    async down(db: Kysely<any>) {
      await sql`drop index if exists events_user_log_idx`.execute(db);
    },
  },
};
