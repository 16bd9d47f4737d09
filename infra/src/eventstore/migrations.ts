import { sql, type Kysely } from 'kysely';
import type { MigrationSet } from '../db/database.ts';

// This module's tables. Names are timestamps (YYYYMMDDHHMM_what) so they sort in creation order.
export const migrations: MigrationSet = {
  '202611221000_events': {
    async up(db: Kysely<any>) {
      // global_position is handed out at insert, not at commit, so it alone cannot order readers: a
      // transaction that inserts first may commit last. Readers therefore order by the appending
      // transaction's id (xid8, never wraps) and then global_position, and only read transactions older
      // than every one still running (see postgres.ts).
      await sql`
        create table events (
          global_position bigserial primary key,
          transaction_id xid8 not null default pg_current_xact_id(),
          stream_id text not null,
          revision integer not null check (revision >= 0),
          event_id uuid not null constraint events_event_id_key unique,
          type text not null,
          schema_version integer not null check (schema_version >= 1),
          data jsonb not null,
          metadata jsonb not null,
          recorded_at timestamptz not null default now(),
          constraint events_stream_revision_key unique (stream_id, revision)
        )`.execute(db);
      await sql`create index events_log_order_idx on events (transaction_id, global_position)`.execute(db);
      // Stream-prefix filters (`trade-<userId>.`) are LIKE 'prefix%' queries: text_pattern_ops lets them
      // use the index whatever the database collation.
      await sql`create index events_stream_prefix_idx on events (stream_id text_pattern_ops)`.execute(db);
    },
    async down(db: Kysely<any>) {
      await sql`drop table events`.execute(db);
    },
  },
};
