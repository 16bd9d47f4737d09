import { sql, type Kysely } from 'kysely';
import type { MigrationSet } from '@oj/infra/db/database';

// This module's tables. Names are timestamps (YYYYMMDDHHMM_what) so they sort in creation order.
export const migrations: MigrationSet = {
  '202611241500_operator_actions': {
    async up(db: Kysely<any>) {
      // Who did what to the read models, and when: rebuilds, switches, rollbacks, retires, abandons,
      // including refused attempts. Append-only (the triggers below refuse UPDATE, DELETE and TRUNCATE,
      // whoever connects), so the log is evidence rather than a table anyone can tidy up.
      await sql`create table if not exists operator_actions (
        id uuid primary key,
        at timestamptz not null,
        actor_id text not null,
        actor_email text not null,
        actor_role text not null,
        action text not null,
        projection text not null,
        version integer,
        user_id text,
        outcome text not null check (outcome in ('ok', 'queued', 'refused', 'failed')),
        message text not null
      )`.execute(db);
      await sql`create index if not exists operator_actions_at on operator_actions (at desc, id desc)`.execute(db);
      await sql`create or replace function operator_actions_append_only() returns trigger language plpgsql as $$
        begin
          raise exception 'operator_actions is append-only';
        end
      $$`.execute(db);
      await sql`drop trigger if exists operator_actions_no_change on operator_actions`.execute(db);
      await sql`create trigger operator_actions_no_change before update or delete on operator_actions
        for each row execute function operator_actions_append_only()`.execute(db);
      await sql`drop trigger if exists operator_actions_no_truncate on operator_actions`.execute(db);
      await sql`create trigger operator_actions_no_truncate before truncate on operator_actions
        for each statement execute function operator_actions_append_only()`.execute(db);
    },
    async down(db: Kysely<any>) {
      await sql`drop table if exists operator_actions`.execute(db);
      await sql`drop function if exists operator_actions_append_only()`.execute(db);
    },
  },
  '202612051800_operator_actions_ref': {
    async up(db: Kysely<any>) {
      // An entry written once whoever writes it: a rebuild's end is seen by every gateway's console and
      // by the CLI following it, and each appends it with the same ref (`on conflict do nothing`).
      await sql`alter table operator_actions add column if not exists ref text`.execute(db);
      await sql`create unique index if not exists operator_actions_ref on operator_actions (ref) where ref is not null`.execute(db);
    },
    async down(db: Kysely<any>) {
      await sql`drop index if exists operator_actions_ref`.execute(db);
      await sql`alter table operator_actions drop column if exists ref`.execute(db);
    },
  },
};
