import { sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { START, type EventStore } from '@oj/infra/eventstore/port';
import type { Projection } from '@oj/projections/runtime/projection';

/**
 * A read model with one formula, for rehearsing a formula change: per stream, the premium collected
 * (sum of `data.premium`) and a return figure `ror` computed from it. Version 1: premium / 10.
 * Version 2 adds a bonus of 1.5 points to streams above 50 of premium, so exactly those rows change.
 */
export const rorV1 = (premium: number) => premium / 10;
export const rorV2 = (premium: number) => premium / 10 + (premium > 50 ? 1.5 : 0);

export function figuresProjection(version: 1 | 2, name = 'ops_figures'): Projection {
  const ror = version === 1 ? rorV1 : rorV2;
  return {
    name,
    version,
    tables: ['stream_figures'],
    streamPrefixes: ['trade-'],
    async createTables(db, t) {
      await sql`create table if not exists ${sql.table(t.stream_figures!)} (
        stream_id text primary key, user_id text not null, rev integer not null, premium numeric not null, ror double precision not null)`.execute(db);
    },
    async apply(ctx, events) {
      const t = ctx.tables.stream_figures!;
      const ids = [...new Set(events.map((e) => e.streamId))];
      const rows = new Map<string, { user_id: string; rev: number; premium: number }>();
      for (const r of (await sql<any>`select stream_id, user_id, rev, premium from ${sql.table(t)} where stream_id = any(${ids})`.execute(ctx.trx)).rows) {
        rows.set(r.stream_id, { user_id: r.user_id, rev: Number(r.rev), premium: Number(r.premium) });
      }
      for (const e of events) {
        const row = rows.get(e.streamId);
        const premium = Number((e.data as { premium?: number }).premium ?? 0);
        if (!row) rows.set(e.streamId, { user_id: e.metadata.userId, rev: e.revision, premium });
        else if (e.revision > row.rev) rows.set(e.streamId, { ...row, rev: e.revision, premium: row.premium + premium });
      }
      if (!rows.size) return;
      await ctx.trx
        .insertInto(t)
        .values([...rows].map(([stream_id, r]) => ({ stream_id, user_id: r.user_id, rev: r.rev, premium: r.premium, ror: ror(r.premium) })))
        .onConflict((oc) => oc.column('stream_id').doUpdateSet((eb) => ({ rev: eb.ref('excluded.rev'), premium: eb.ref('excluded.premium'), ror: eb.ref('excluded.ror') })))
        .execute();
    },
    async deleteUser(ctx, userId) {
      await ctx.trx.deleteFrom(ctx.tables.stream_figures!).where('user_id', '=', userId).execute();
    },
    async countRows(db, t) {
      return { stream_figures: Number((await sql<{ n: number }>`select count(*)::int as n from ${sql.table(t.stream_figures!)}`.execute(db)).rows[0]?.n ?? 0) };
    },
  };
}

/** Appends one `Premium` event per amount to `trade-<user>.<lineage>`. */
export async function appendPremiums(store: EventStore, user: string, lineage: string, premiums: number[]): Promise<void> {
  for (const premium of premiums) {
    await store.append(
      `trade-${user}.${lineage}`,
      [
        {
          id: randomUUID(),
          type: 'Premium',
          schemaVersion: 1,
          data: { premium },
          metadata: { userId: user, actor: { id: user, role: 'trader' }, correlationId: 'c', causationId: null, idempotencyKey: null, recordedAt: new Date().toISOString(), businessDate: '2026-11-20' },
        },
      ],
      'any',
    );
  }
}

/** Readers see a commit once every older transaction on the server ended (other tests run beside this one). */
export async function visible(store: EventStore, n: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((await store.readAll({ after: START, limit: n + 1 })).length >= n) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the log did not show ${n} events`);
}
