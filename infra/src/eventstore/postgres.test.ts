import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/postgres.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { eventStoreContract } from './contract.ts';
import { migrations } from './migrations.ts';
import { PostgresEventStore, headAndHeldQuery, pendingQuery } from './postgres.ts';
import { WrongExpectedRevisionError, type NewEvent } from './port.ts';

let database: TestDatabase | undefined;
async function opened(): Promise<TestDatabase> {
  if (!database) {
    database = await createTestDatabase('eventstore');
    await migrateToLatest(database.db, [migrations]);
  }
  return database;
}

eventStoreContract('PostgreSQL (node-postgres)', {
  freshLog: true,
  uniqueIdsAcrossStreams: true,
  open: async (options) => new PostgresEventStore(await opened(), { ...options, pollIntervalMs: 200 }),
  openPausing: async (afterInsert) => new PostgresEventStore(await opened(), { afterInsert }),
  teardown: async () => database?.drop(),
});

describe('group commit (node-postgres)', () => {
  let own: TestDatabase;
  let store: PostgresEventStore;
  beforeAll(async () => {
    own = await createTestDatabase('eventstore_group');
    await migrateToLatest(own.db, [migrations]);
    store = new PostgresEventStore(own);
  });
  afterAll(async () => {
    await store?.close();
    await own?.drop();
  });

  const event = (n: number): NewEvent => ({
    id: randomUUID(),
    type: 'Grouped',
    schemaVersion: 1,
    data: { n },
    metadata: { userId: 'u', actor: { id: 'u', role: 'system' }, correlationId: 'c', causationId: null, idempotencyKey: null, recordedAt: '2026-11-20T15:00:00.000Z', businessDate: '2026-11-20' },
  });

  it('writes concurrent appends together, each stream in revision order, each answer its own', async () => {
    const streams = Array.from({ length: 40 }, (_, i) => `group-${i}`);
    const answers = await Promise.all(streams.map((s, i) => store.append(s, [event(i), event(i), event(i)], 'no_stream')));
    // Shared transactions: far fewer commits than appends (the first goes alone, the rest wait for it).
    const commits = new Set(answers.map((a) => a.position.commit));
    expect(commits.size).toBeLessThan(streams.length / 2);
    for (const [i, s] of streams.entries()) {
      const stored = await store.readStream(s);
      expect(stored.map((e) => e.revision)).toEqual([0, 1, 2]);
      expect(stored.every((e) => (e.data as { n: number }).n === i)).toBe(true);
      // Positions follow revisions, and the answer is the last event's.
      expect(stored[0]!.position.prepare < stored[1]!.position.prepare && stored[1]!.position.prepare < stored[2]!.position.prepare).toBe(true);
      expect(stored[2]!.position).toEqual(answers[i]!.position);
      expect(answers[i]!.nextExpectedRevision).toBe(2);
    }
  });

  it('writes JSON null data in the shared write, as written', async () => {
    const nullData = { ...event(0), data: null };
    // The first append goes alone; the two after it wait and share the next write, unless one fails there.
    const [, withNull, beside] = await Promise.all([
      store.append('group-null-first', [event(1)], 'no_stream'),
      store.append('group-null', [nullData, event(2)], 'no_stream'),
      store.append('group-null-beside', [event(3)], 'no_stream'),
    ]);
    expect(withNull.position.commit).toBe(beside.position.commit);
    expect(withNull.nextExpectedRevision).toBe(1);
    const stored = await store.readStream('group-null');
    expect(stored.map((e) => e.data)).toEqual([null, { n: 2 }]);
    expect(stored[0]!.metadata).toEqual(nullData.metadata);
  });

  it('a write that fails as a whole sends each append on its own, and only the bad one fails', async () => {
    const taken = event(0);
    await store.append('group-owner', [taken], 'no_stream');
    // The reused id makes the shared statement fail (a unique violation); the others must still land.
    const outcomes = await Promise.allSettled([
      store.append('group-a', [event(1)], 'no_stream'),
      store.append('group-b', [event(2)], 'no_stream'),
      store.append('group-thief', [event(3), taken], 'no_stream'),
      store.append('group-c', [event(4)], 'no_stream'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    // Judged alone, as before group commit: a partial overlap with stored events is not a retry.
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
    expect(await store.readStream('group-thief')).toEqual([]);
    for (const s of ['group-a', 'group-b', 'group-c']) expect(await store.readStream(s)).toHaveLength(1);
  });
});

/**
 * Every poll of a subscription asks whether committed events are still held back (`pendingQuery`), and
 * the projector's dispatcher asks it with the head before each read (`headAndHeld`). Asked
 * as `exists (... where transaction_id >= xmin)` on a table without statistics (autovacuum off), the
 * planner scanned the events table, the whole log when nothing was pending.
 */
describe('the pending check of a subscription, and headAndHeld (node-postgres)', () => {
  let own: TestDatabase;
  let store: PostgresEventStore;
  beforeAll(async () => {
    own = await createTestDatabase('eventstore_pending');
    await migrateToLatest(own.db, [migrations]);
    store = new PostgresEventStore(own);
    // Analyzed while empty, then 30,000 events, as a deployment's log grows with autovacuum off.
    await sql`analyze events`.execute(own.db);
    await sql`insert into events (stream_id, revision, event_id, type, schema_version, data, metadata)
      select 'trade-u' || (i % 300) || '.l' || i, 0, gen_random_uuid(), 'Filled', 1, '{}'::jsonb, '{}'::jsonb from generate_series(1, 30000) as g(i)`.execute(own.db);
  });
  afterAll(async () => {
    await store?.close();
    await own?.drop();
  });

  const later = (stream: string) =>
    store.append(stream, [{ id: randomUUID(), type: 'Later', schemaVersion: 1, data: {}, metadata: { userId: 'u1', actor: { id: 'u1', role: 'trader' }, correlationId: 'c', causationId: null, idempotencyKey: null, recordedAt: '2026-11-20T15:00:00.000Z', businessDate: '2026-11-20' } }], 'no_stream');

  /** Runs `f` while a transaction older than anything `f` appends still runs on another connection. */
  async function besideOlder(f: () => Promise<void>): Promise<void> {
    const older = new pg.Client({ connectionString: own.url });
    await older.connect();
    try {
      await older.query('begin');
      await older.query('select pg_current_xact_id()');
      await f();
      await older.query('commit');
    } finally {
      await older.end();
    }
  }

  it('says pending exactly while an older transaction still runs beside a committed event', async () => {
    const pending = async () => (await pendingQuery.execute(own.db)).rows[0]!.pending;
    expect(await pending()).toBe(false);
    await besideOlder(async () => {
      await later('trade-u1.later');
      expect(await pending()).toBe(true);
    });
    expect(await pending()).toBe(false);
  });

  it('headAndHeld: the head readers see, and held exactly while an event is held back from them', async () => {
    const before = await store.head();
    expect(await store.headAndHeld()).toEqual({ head: before, held: false });
    let appended!: Awaited<ReturnType<typeof later>>;
    await besideOlder(async () => {
      appended = await later('trade-u1.held');
      // Committed, but readers may not see it yet: the head stays where it was.
      expect(await store.headAndHeld()).toEqual({ head: before, held: true });
    });
    expect(await store.headAndHeld()).toEqual({ head: appended.position, held: false });
    expect(await store.head()).toEqual(appended.position);
  });

  for (const [name, query] of [['pendingQuery', pendingQuery], ['headAndHeldQuery', headAndHeldQuery]] as const) {
    it(`${name} reads entries of the log-order index, not the events table`, async () => {
      const { rows } = await sql<{ 'QUERY PLAN': unknown }>`explain (analyze, format json) ${query}`.execute(own.db);
      const plan = JSON.stringify(rows[0]!['QUERY PLAN']);
      expect(plan).toContain('"Scan Direction":"Backward"');
      expect(plan).toContain('events_log_order_idx');
      expect(plan).not.toContain('Seq Scan');
    });
  }
});
