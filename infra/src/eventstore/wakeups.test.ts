import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { createPGliteDatabase, createTestDatabase, type TestDatabase } from '../testing/postgres.ts';
import { migrations } from './migrations.ts';
import type { EventStore, NewEvent, StoredEvent } from './port.ts';
import { PostgresEventStore } from './postgres.ts';

/**
 * A live subscription must be woken by an append, not found by its fallback poll: these subscribers poll
 * once an hour, so only the wake-up can deliver within the test's time. On a server the append comes
 * through another pool (another process, as far as PostgreSQL can tell), so only NOTIFY reaches it.
 */
const NEVER = 3_600_000;

const event = (): NewEvent => ({
  id: randomUUID(),
  type: 'Woken',
  schemaVersion: 1,
  data: {},
  metadata: { userId: 'u', actor: { id: 'u', role: 'system' }, correlationId: 'c', causationId: null, idempotencyKey: null, recordedAt: '2026-11-20T15:00:00.000Z', businessDate: '2026-11-20' },
});

async function deliversLive(subscriber: EventStore, appender: EventStore, stream: string): Promise<void> {
  const subscription = subscriber.subscribe({ streamPrefixes: [stream] });
  const iterator = subscription[Symbol.asyncIterator]();
  const first = event();
  await appender.append(stream, [first], 'no_stream');
  const received = (await iterator.next()).value as StoredEvent;
  expect(received.id).toBe(first.id);
  // Now certainly idle and waiting: the next event can only arrive through a wake-up.
  const pending = iterator.next();
  const second = event();
  await appender.append(stream, [second], 0);
  expect(((await pending).value as StoredEvent).id).toBe(second.id);
  await subscription.close();
}

describe('subscription wake-ups: node-postgres', () => {
  let database: TestDatabase;
  let other: Database;
  beforeAll(async () => {
    database = await createTestDatabase('eventstore_wake');
    await migrateToLatest(database.db, [migrations]);
    other = await openDatabase({ url: database.url, poolSize: 2 });
  });
  afterAll(async () => {
    await other?.close();
    await database?.drop();
  });

  it('wakes on NOTIFY from an append through another connection pool', async () => {
    const subscriber = new PostgresEventStore(database, { pollIntervalMs: NEVER });
    const appender = new PostgresEventStore(other);
    await deliversLive(subscriber, appender, 'wake-notify.a');
    await subscriber.close();
  });

  it('delivers an event whose wake-up came while an older transaction still hid it', async () => {
    const subscriber = new PostgresEventStore(database, { pollIntervalMs: NEVER });
    const appender = new PostgresEventStore(other);
    const stream = 'wake-held.a';
    const subscription = subscriber.subscribe({ streamPrefixes: [stream] });
    const iterator = subscription[Symbol.asyncIterator]();
    const first = event();
    await appender.append(stream, [first], 'no_stream');
    expect(((await iterator.next()).value as StoredEvent).id).toBe(first.id);
    const pending = iterator.next();
    // An older transaction with an id holds the visibility horizon: the append commits and notifies,
    // but readers may not read it until this transaction ends.
    const holder = await database.pool!.connect();
    try {
      await holder.query('begin');
      await holder.query('select pg_current_xact_id()');
      const second = event();
      const appended = await appender.append(stream, [second], 0);
      expect(await subscriber.readAll({ after: { commit: appended.position.commit - 1n, prepare: 0n }, streamPrefixes: [stream], limit: 1 })).toEqual([]);
      await holder.query('commit');
      expect(((await pending).value as StoredEvent).id).toBe(second.id);
    } finally {
      holder.release();
    }
    await subscription.close();
    await subscriber.close();
  });

  it('wakes in process from an append through the same pool', async () => {
    const subscriber = new PostgresEventStore(database, { pollIntervalMs: NEVER });
    const appender = new PostgresEventStore(database);
    await deliversLive(subscriber, appender, 'wake-local.a');
    await subscriber.close();
  });
});

describe('subscription wake-ups: PGlite', () => {
  let database: Database;
  beforeAll(async () => {
    database = await createPGliteDatabase();
    await migrateToLatest(database.db, [migrations]);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('wakes in process from an append by another store on the same PGlite', async () => {
    const subscriber = new PostgresEventStore(database, { pollIntervalMs: NEVER });
    const appender = new PostgresEventStore(database);
    await deliversLive(subscriber, appender, 'wake-pglite.a');
    await subscriber.close();
  });
});
