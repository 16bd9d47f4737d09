import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { comparePositions, type EventStore } from '@oj/infra/eventstore/port';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { openDatabase } from '@oj/infra/db/database';
import { countingProjection, expectedCounts } from './test-projection.ts';
import { readDispatcher } from './registry.ts';
import { runtimeTestBed, sleep, tradeEvent, until } from './testing.ts';

/**
 * An append committed while an older transaction is still running is held back from readers until that
 * transaction ends, and nothing wakes the dispatcher when it does (the older transaction appended
 * nothing, so nothing notifies). The dispatcher asks the store before each read whether anything is held
 * back, and reads again shortly while it is. Here neither the store's fallback poll nor the dispatcher's
 * poll comes within the test's time, so only that check can find the event.
 */
const NEVER = 3_600_000;

describe.each([{ bullmq: false }, { bullmq: true }])('an append held back behind an older transaction (BullMQ lanes: $bullmq)', ({ bullmq }) => {
  const projection = countingProjection({ name: `held_back_${bullmq ? 'bull' : 'proc'}` });
  const t = runtimeTestBed(`held_back_${bullmq ? 'bull' : 'proc'}`, { projection, lanes: 2, bullmq, user: (n) => `h-${n % 3}`, projector: { pollMs: NEVER } });

  /**
   * A projector on a store that only its wake-ups reach in time. `onRead` is called as each read of the
   * log starts, and what it returns runs once that read has returned, before the reader sees it.
   */
  async function start(onRead: () => () => Promise<void> = () => async () => {}) {
    const store = new PostgresEventStore(t.database, { pollIntervalMs: NEVER });
    const readAll = async (...args: Parameters<EventStore['readAll']>) => {
      const after = onRead();
      const events = await (store.readAll as (...a: typeof args) => Promise<unknown[]>)(...args);
      await after();
      return events;
    };
    // The store's methods run on the store itself (its fields are private), but for its reads.
    const watched = new Proxy(store, {
      get(target, key) {
        if (key === 'readAll') return readAll;
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const projector = await t.start({ eventStore: watched });
    return { store, projector };
  }

  /** A transaction on its own connection that holds the visibility horizon until `end`. */
  async function olderTransaction() {
    const client = await t.database.pool!.connect();
    await client.query('begin');
    await client.query('select pg_current_xact_id()');
    let ended = false;
    return {
      get ended() {
        return ended;
      },
      end: async () => {
        if (ended) return;
        ended = true;
        await client.query('commit');
        client.release();
      },
    };
  }

  const dispatchedUpTo = async () => (await readDispatcher(t.database.db)).checkpoint;
  /**
   * Until the read model holds the whole log, watched from outside: the projector's `waitFor` would
   * nudge its dispatcher, which is the wake-up these tests must do without.
   */
  const projected = async (timeoutMs: number) => {
    const expected = expectedCounts(await t.wholeLog());
    await until(async () => isDeepStrictEqual(await t.current(), expected), { what: 'the read model to hold the held-back event', timeoutMs, everyMs: 20 });
  };

  it('is projected soon after the older transaction ends, though that end wakes nobody', async () => {
    const { store, projector } = await start();
    await t.append(3);
    await projector.waitFor(t.last, 20_000);
    const older = await olderTransaction();
    try {
      t.last = (await t.store.append('trade-h-1.held', [tradeEvent('h-1', 'Held')], 'any')).position;
      await sleep(300);
      // Woken by the append's NOTIFY, the dispatcher could not read it yet.
      expect(comparePositions(await dispatchedUpTo(), t.last)).toBeLessThan(0);
      const ended = Date.now();
      await older.end();
      // Re-read at most 250 ms apart while held; the polls are an hour away.
      await projected(5_000);
      expect(Date.now() - ended).toBeLessThan(2_000);
    } finally {
      await older.end();
      await projector.stop();
      await store.close();
    }
  }, 60_000);

  it('is projected when the older transaction ends just after a read that missed it', async () => {
    let older: Awaited<ReturnType<typeof olderTransaction>> | null = null;
    let appended = false;
    let missed = 0;
    // The older transaction ends right after the dispatcher's first read begun once the append had
    // committed (so it was held back from that read): the one moment where a check for held-back
    // events made after the read finds none.
    const { store, projector } = await start(() => {
      const afterAppend = appended;
      return async () => {
        if (afterAppend && older && !older.ended) {
          missed += 1;
          await older.end();
        }
      };
    });
    await t.append(3, 10);
    await projector.waitFor(t.last, 20_000);
    // Appended through another pool, as by another process: its NOTIFY is the one wake-up (through
    // the test bed's store, the append would also wake the projector's in process, a second time).
    const elsewhere = await openDatabase({ url: t.database.url, poolSize: 1 });
    older = await olderTransaction();
    try {
      t.last = (await new PostgresEventStore(elsewhere).append('trade-h-2.held', [tradeEvent('h-2', 'Held')], 'any')).position;
      appended = true;
      await until(() => older!.ended, { what: 'a read while the append was held back', timeoutMs: 5_000 });
      await projected(5_000);
      expect(missed).toBe(1);
    } finally {
      await older.end();
      await elsewhere.close();
      await projector.stop();
      await store.close();
    }
  }, 60_000);
});
