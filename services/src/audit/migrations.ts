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
  '202611260100_audit_replay_states': {
    async up(db: Kysely<any>) {
      // Stored replay states (stored-states.ts): a heavy user's journal folded by the maintenance job,
      // a chunk of the user's log at a time, so a view reads the states and folds only the events
      // after them. One row per chunk (`seq`) and part (`part` 0..n-1: the lineages of one partition;
      // -1: every day record at the chunk's end). A row is only ever read under the key it was written
      // with: the code that folded it (`code_key`) and the cluster and database the log's positions come
      // from (`log_origin`). Positions are text, not numeric commit/prepare columns: the restamp of a
      // copied log (log-origin.ts) rewrites every numeric commit/prepare pair, and states of a copied
      // log must not survive it (their origin differs anyway). `sha256` covers the header columns and
      // the payload, checked on every read.
      await sql`create table if not exists audit_replay_states (
        user_id text not null,
        code_key text not null,
        log_origin text not null,
        seq integer not null check (seq >= 0),
        part smallint not null check (part >= -1),
        after_position text,
        upto_position text not null,
        events integer not null check (events > 0),
        anchor_event_id uuid not null,
        first_business_date text not null,
        last_business_date text not null,
        projection_version integer not null,
        formulas_version integer not null,
        entries integer not null,
        bytes integer not null,
        sha256 bytea not null,
        payload bytea not null,
        created_at timestamptz not null default now(),
        primary key (user_id, code_key, log_origin, seq, part)
      )`.execute(db);
      // The payload is gzip already: PostgreSQL's own compression would only spend time failing.
      await sql`alter table audit_replay_states alter column payload set storage external`.execute(db);
    },
    async down(db: Kysely<any>) {
      await sql`drop table if exists audit_replay_states`.execute(db);
    },
  },
};
