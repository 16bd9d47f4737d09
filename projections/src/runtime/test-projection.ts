import { sql, type Kysely } from 'kysely';
import { comparePositions, type StoredEvent } from '@oj/infra/eventstore/port';
import type { Projection, ProjectionContext } from './projection.ts';
import { posParams, rowPosition } from './lanes.ts';

/**
 * A small read model for the runtime's tests and benchmarks: per-stream event counts, and per user
 * the ordered concatenation of event types. The concatenation is guarded by log position, so an event
 * applied out of order is dropped and shows as a difference: it exposes any reordering in a lane.
 */
export function countingProjection(options: { name?: string; version?: number; streamPrefixes?: string[] } = {}): Projection {
  return {
    name: options.name ?? 'test_counts',
    version: options.version ?? 1,
    tables: ['stream_counts', 'user_sequences'],
    streamPrefixes: options.streamPrefixes ?? ['trade-'],
    async createTables(db, t) {
      await sql`create table if not exists ${sql.table(t.stream_counts!)} (
        stream_id text primary key, user_id text not null, events integer not null, last_revision integer not null)`.execute(db);
      await sql`create index if not exists ${sql.id(`${t.stream_counts}_user`)} on ${sql.table(t.stream_counts!)} (user_id)`.execute(db);
      await sql`create table if not exists ${sql.table(t.user_sequences!)} (
        user_id text primary key, types text not null, events integer not null, last_commit numeric(20) not null, last_prepare numeric(20) not null)`.execute(db);
    },
    async apply(ctx: ProjectionContext, events: readonly StoredEvent[]) {
      const t = ctx.tables;
      const streamIds = [...new Set(events.map((e) => e.streamId))];
      const userIds = [...new Set(events.map((e) => e.metadata.userId))];
      const streams = new Map<string, { user_id: string; events: number; last_revision: number }>();
      for (const r of (await sql<any>`select stream_id, user_id, events, last_revision from ${sql.table(t.stream_counts!)} where stream_id = any(${streamIds})`.execute(ctx.trx)).rows) {
        streams.set(r.stream_id, { user_id: r.user_id, events: Number(r.events), last_revision: Number(r.last_revision) });
      }
      const users = new Map<string, { types: string; events: number; last: { commit: bigint; prepare: bigint } }>();
      for (const r of (await sql<any>`select user_id, types, events, last_commit::text as commit, last_prepare::text as prepare from ${sql.table(t.user_sequences!)} where user_id = any(${userIds})`.execute(ctx.trx)).rows) {
        users.set(r.user_id, { types: r.types, events: Number(r.events), last: rowPosition(r) });
      }
      for (const e of events) {
        const s = streams.get(e.streamId);
        if (!s) streams.set(e.streamId, { user_id: e.metadata.userId, events: 1, last_revision: e.revision });
        else if (e.revision > s.last_revision) streams.set(e.streamId, { ...s, events: s.events + 1, last_revision: e.revision });
        const u = users.get(e.metadata.userId);
        if (!u) users.set(e.metadata.userId, { types: e.type, events: 1, last: e.position });
        else if (comparePositions(e.position, u.last) > 0) users.set(e.metadata.userId, { types: `${u.types},${e.type}`, events: u.events + 1, last: e.position });
      }
      if (streams.size) {
        await ctx.trx
          .insertInto(t.stream_counts!)
          .values([...streams].map(([stream_id, s]) => ({ stream_id, ...s })))
          .onConflict((oc) => oc.column('stream_id').doUpdateSet((eb) => ({ events: eb.ref('excluded.events'), last_revision: eb.ref('excluded.last_revision') })))
          .execute();
      }
      if (users.size) {
        await ctx.trx
          .insertInto(t.user_sequences!)
          .values([...users].map(([user_id, u]) => ({ user_id, types: u.types, events: u.events, last_commit: posParams(u.last).commit, last_prepare: posParams(u.last).prepare })))
          .onConflict((oc) =>
            oc.column('user_id').doUpdateSet((eb) => ({ types: eb.ref('excluded.types'), events: eb.ref('excluded.events'), last_commit: eb.ref('excluded.last_commit'), last_prepare: eb.ref('excluded.last_prepare') })),
          )
          .execute();
      }
    },
    async deleteUser(ctx, userId) {
      await ctx.trx.deleteFrom(ctx.tables.stream_counts!).where('user_id', '=', userId).execute();
      await ctx.trx.deleteFrom(ctx.tables.user_sequences!).where('user_id', '=', userId).execute();
    },
    async countRows(db: Kysely<any>, t) {
      const n = async (table: string) => Number((await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(db)).rows[0]?.n ?? 0);
      return { stream_counts: await n(t.stream_counts!), user_sequences: await n(t.user_sequences!) };
    },
  };
}

/** What the counting projection must hold after applying `events` (the log, in order) exactly once. */
export function expectedCounts(events: readonly StoredEvent[]) {
  const streams: Record<string, { user_id: string; events: number; last_revision: number }> = {};
  const users: Record<string, { types: string; events: number }> = {};
  for (const e of events) {
    const s = streams[e.streamId];
    streams[e.streamId] = s ? { ...s, events: s.events + 1, last_revision: e.revision } : { user_id: e.metadata.userId, events: 1, last_revision: e.revision };
    const u = users[e.metadata.userId];
    users[e.metadata.userId] = u ? { types: `${u.types},${e.type}`, events: u.events + 1 } : { types: e.type, events: 1 };
  }
  return { streams, users };
}

/** The counting projection's rows in one version, in the shape of `expectedCounts`. */
export async function readCounts(db: Kysely<any>, tables: Record<string, string>) {
  const streams: Record<string, { user_id: string; events: number; last_revision: number }> = {};
  const users: Record<string, { types: string; events: number }> = {};
  for (const r of (await db.selectFrom(tables.stream_counts!).selectAll().execute()) as any[]) {
    streams[r.stream_id] = { user_id: r.user_id, events: Number(r.events), last_revision: Number(r.last_revision) };
  }
  for (const r of (await db.selectFrom(tables.user_sequences!).select(['user_id', 'types', 'events']).execute()) as any[]) {
    users[r.user_id] = { types: r.types, events: Number(r.events) };
  }
  return { streams, users };
}
