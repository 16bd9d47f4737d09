import { sql } from 'kysely';
import type { MigrationSet } from '@oj/infra/db/database';

/**
 * The projector's own bookkeeping. Log positions are stored as two numeric(20) columns (commit,
 * prepare): xid8 and the global sequence both fit, and comparisons stay in SQL. Readers cast them to
 * text so no precision is lost on the way to bigint (the database layer parses numerics as numbers).
 */
export const migrations: MigrationSet = {
  '202611220900_projector_runtime': {
    async up(db) {
      // One row per physical version of a read model. `version` names its tables (`<table>_v<version>`);
      // `code_version` is the Projection.version whose formulas built it.
      await sql`create table if not exists projection_registry (
        name text not null,
        version integer not null,
        code_version integer not null,
        status text not null check (status in ('live', 'building', 'retired')),
        lanes integer not null,
        tables jsonb not null,
        counts jsonb not null default '{}'::jsonb,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        live_since timestamptz,
        retired_at timestamptz,
        primary key (name, version)
      )`.execute(db);
      // At most one live and one building version per read model: a switch is one transaction that
      // flips both, so readers never see two live versions.
      await sql`create unique index if not exists projection_registry_one_live on projection_registry (name) where status = 'live'`.execute(db);
      await sql`create unique index if not exists projection_registry_one_building on projection_registry (name) where status = 'building'`.execute(db);
      // Per (projection, version, lane): the last log position applied. Written in the same
      // transaction as the rows, which is what makes at-least-once delivery exactly-once in effect.
      await sql`create table if not exists projection_checkpoints (
        projection text not null,
        version integer not null,
        lane integer not null,
        commit numeric(20) not null,
        prepare numeric(20) not null,
        events_applied bigint not null default 0,
        updated_at timestamptz not null default now(),
        primary key (projection, version, lane)
      )`.execute(db);
      // The dispatcher's read position in the global log and the lane count it routes with.
      await sql`create table if not exists projector_dispatcher (
        id text primary key,
        commit numeric(20) not null,
        prepare numeric(20) not null,
        lanes integer not null,
        updated_at timestamptz not null default now()
      )`.execute(db);
      // Per lane: the position of the last event handed to it. A job carries the lane's previous value
      // so a worker can tell a gap (an earlier job not applied yet) from a duplicate.
      await sql`create table if not exists projector_lanes (
        lane integer primary key,
        commit numeric(20) not null,
        prepare numeric(20) not null,
        updated_at timestamptz not null default now()
      )`.execute(db);
      // A rebuild's progress; its checkpoint is what a killed rebuild resumes from.
      await sql`create table if not exists projection_rebuilds (
        projection text not null,
        version integer not null,
        commit numeric(20) not null,
        prepare numeric(20) not null,
        events_done bigint not null default 0,
        events_total bigint,
        started_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        finished_at timestamptz,
        primary key (projection, version)
      )`.execute(db);
    },
  },
  '202611241400_rebuild_built_at': {
    async up(db) {
      // Set once a rebuild's bulk run and finishing step are complete (cleared when a run starts): only
      // then may its version be switched live. A version killed before it would serve missing rows.
      await sql`alter table projection_rebuilds add column if not exists built_at timestamptz`.execute(db);
    },
  },
  '202611241410_dispatcher_term': {
    async up(db) {
      // Fencing: each election takes the next term; the dispatcher's writes apply only while the row
      // still holds its term, so a leader that lost its lock unnoticed cannot write stale positions.
      await sql`alter table projector_dispatcher add column if not exists term bigint not null default 0`.execute(db);
    },
  },
  '202611241420_stream_revisions': {
    async up(db) {
      // The per-lineage guard: per (projection, version, stream) the last revision applied. An event
      // must be the next revision of its stream (a gap is an error) or one already applied (skipped).
      await sql`create table if not exists projection_stream_revisions (
        projection text not null,
        version integer not null,
        stream_id text not null,
        revision integer not null,
        primary key (projection, version, stream_id)
      )`.execute(db);
      // Versions built since the guard exist hold every stream's row: a stream with no row must start
      // at revision 0. Older versions learn their streams as events arrive.
      await sql`alter table projection_registry add column if not exists revision_guard boolean not null default false`.execute(db);
    },
  },
  '202612051400_versions_issued': {
    async up(db) {
      // Per read model, the last version number handed out. Registry rows go when a build is abandoned
      // (or a retired version dropped), and a number taken again from the registry's max would let an
      // operator's abandon or switch that names v<n> (chosen on a screen a minute ago) act on a later
      // build that took the same number. Numbers are never handed out twice.
      await sql`create table if not exists projection_versions_issued (
        name text primary key,
        last_version integer not null
      )`.execute(db);
      await sql`insert into projection_versions_issued (name, last_version)
        select name, max(version) from projection_registry group by name
        on conflict (name) do update set last_version = greatest(projection_versions_issued.last_version, excluded.last_version)`.execute(db);
    },
  },
};
