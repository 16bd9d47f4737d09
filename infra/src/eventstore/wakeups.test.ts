import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { createPGliteDatabase, createTestDatabase, type TestDatabase } from '../testing/postgres.ts';
import { migrations } from './migrations.ts';
import { START, type EventStore, type NewEvent, type StoredEvent, type WakeUps } from './port.ts';
import { PostgresEventStore, pendingQuery } from './postgres.ts';
import { LocalSignal, pollingSubscription } from './subscription.ts';

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

/** Each call resolves with the next wake-up, or with 'none' if none comes within `ms` (then still awaited by the next call). */
function wakes(wakeUps: WakeUps): (ms: number) => Promise<'woken' | 'none'> {
  const iterator = wakeUps[Symbol.asyncIterator]();
  let next: Promise<unknown> | null = null;
  return async (ms) => {
    next ??= iterator.next();
    const r = await Promise.race([next.then(() => 'woken' as const), new Promise<'none'>((resolve) => setTimeout(() => resolve('none'), ms))]);
    if (r === 'woken') next = null;
    return r;
  };
}

/** Takes wake-ups until none comes for `ms` (a LISTEN session's first connection wakes once: appends it may have missed). */
async function quiet(wake: (ms: number) => Promise<'woken' | 'none'>, ms = 300): Promise<void> {
  while ((await wake(ms)) === 'woken');
}

/**
 * A reader's wake-ups (`wakeUps`, the dispatcher's): woken by an append, and not otherwise (the fallback
 * poll is an hour away). They carry no events: the reader reads them itself.
 */
async function wakesOnAppend(subscriber: PostgresEventStore, appender: EventStore, stream: string): Promise<void> {
  const wakeUps = subscriber.wakeUps();
  const wake = wakes(wakeUps);
  await quiet(wake);
  await appender.append(stream, [event()], 'no_stream');
  expect(await wake(5_000)).toBe('woken');
  await quiet(wake);
  await appender.append(stream, [event()], 0);
  expect(await wake(5_000)).toBe('woken');
  await wakeUps.close();
  expect(await (wakeUps[Symbol.asyncIterator]().next())).toEqual({ done: true, value: undefined });
}

/** Both kinds of reader a store wakes, each checked by its own function (and on its own streams). */
const readers = [
  { reader: 'a subscription', woken: deliversLive, prefix: 'wake' },
  { reader: "a reader's wake-ups (wakeUps)", woken: wakesOnAppend, prefix: 'wakeups' },
] as const;

/** `woken` on a store that only a wake-up can reach within the test, with appends through another store on `appendThrough`. */
async function wokenBy(database: Database, appendThrough: Database, woken: (subscriber: PostgresEventStore, appender: EventStore, stream: string) => Promise<void>, stream: string): Promise<void> {
  const subscriber = new PostgresEventStore(database, { pollIntervalMs: NEVER });
  await woken(subscriber, new PostgresEventStore(appendThrough), stream);
  await subscriber.close();
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

  for (const { reader, woken, prefix } of readers) {
    it(`wakes ${reader} on NOTIFY from an append through another connection pool`, () => wokenBy(database, other, woken, `${prefix}-notify.a`));
  }

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

  it('delivers an event whose hiding transaction ended right after the read that missed it', async () => {
    // A subscription on its own signal, which nothing fires: after its first read, only its check of
    // held-back events (asked before each read) can bring it back before the hour's poll.
    const store = new PostgresEventStore(database);
    const stream = 'wake-missed.a';
    const holder = await database.pool!.connect();
    let holding = false;
    let missed = 0;
    const subscription = pollingSubscription({
      after: START,
      signal: new LocalSignal(),
      pollIntervalMs: NEVER,
      pending: async () => (await pendingQuery.execute(database.db)).rows[0]!.pending,
      read: async (after, limit) => {
        const events = await store.readAll({ after, streamPrefixes: [stream], limit });
        // The read could not see the append: the older transaction ends now, and nothing notifies.
        if (holding) {
          holding = false;
          missed += 1;
          await holder.query('commit');
        }
        return events;
      },
      onClose: async () => {},
    });
    try {
      await holder.query('begin');
      await holder.query('select pg_current_xact_id()');
      const appended = event();
      await new PostgresEventStore(other).append(stream, [appended], 'no_stream');
      holding = true;
      const received = (await subscription[Symbol.asyncIterator]().next()).value as StoredEvent;
      expect(received.id).toBe(appended.id);
      expect(missed).toBe(1);
    } finally {
      if (holding) await holder.query('commit');
      holder.release();
      await subscription.close();
    }
  }, 15_000);

  for (const { reader, woken, prefix } of readers) {
    it(`wakes ${reader} in process from an append through the same pool`, () => wokenBy(database, database, woken, `${prefix}-local.a`));
  }
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

  for (const { reader, woken, prefix } of readers) {
    it(`wakes ${reader} in process from an append by another store on the same PGlite`, () => wokenBy(database, database, woken, `${prefix}-pglite.a`));
  }
});
