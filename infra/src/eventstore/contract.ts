import { randomUUID, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { EventMetadata } from '@oj/contracts/events';
import { readPacked, unpackEvent, unpackFoldEvent } from './packed.ts';
import { readByStream } from './by-stream.ts';
import { START, WrongExpectedRevisionError, comparePositions, type EventStore, type LogPosition, type JsonDataEvent, type NewEvent, type ProjectedEvent, type StoredEvent, type Upcast } from './port.ts';

/**
 * The contract every event store adapter passes (PostgreSQL on node-postgres, PostgreSQL on PGlite,
 * EventStoreDB). Each test works in streams under its own run prefix, so the suite also runs against a
 * log shared with other test files (an EventStoreDB server).
 *
 * Reads after an append wait until the log's head has reached the append: on PostgreSQL readers only see
 * transactions older than every running one on the whole server, and other people's tests run there.
 */
export interface ContractAdapter {
  /** A store on the log under test; `upcast` as the adapters take it. */
  open(options?: { upcast?: Upcast }): Promise<EventStore>;
  /** Frees what `open` made (after every store was closed). */
  teardown?(): Promise<void>;
  /** The log is empty when the suite starts (a fresh database). */
  freshLog: boolean;
  /**
   * A second store on the same log whose appends stop after their insert, transaction still open, until
   * `afterInsert` resolves. Only where two appends' transactions can interleave (not PGlite, whose one
   * connection runs transactions one after the other; not EventStoreDB, which orders at commit).
   */
  openPausing?: (afterInsert: (streamId: string, position: LogPosition) => Promise<void>) => Promise<EventStore>;
  /**
   * Whether an event id already stored in one stream is refused in another (PostgreSQL: a unique index
   * on the id). EventStoreDB dedupes ids per stream only: the same id in another stream is a new event
   * there, and the contract holds it to exactly that. Nothing in the app relies on more: command event
   * ids come from the Idempotency-Key, whose claim binds the key to one request and so to one stream.
   */
  uniqueIdsAcrossStreams: boolean;
}

const metadata = (userId = 'u-1'): EventMetadata => ({
  userId,
  actor: { id: userId, role: 'trader' },
  correlationId: randomUUID(),
  causationId: null,
  idempotencyKey: null,
  recordedAt: '2026-11-20T15:00:00.000Z',
  businessDate: '2026-11-20',
  command: 'Test',
});

const event = (type = 'Tested', data: unknown = { n: 1 }, schemaVersion = 1): NewEvent => ({
  id: randomUUID(),
  type,
  schemaVersion,
  data,
  metadata: metadata(),
});

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Waits until readers see the log up to `position` (bounded by the test timeout). */
async function settle(store: EventStore, position: LogPosition): Promise<void> {
  for (;;) {
    const head = await store.head();
    if (head && comparePositions(head, position) >= 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function readEverything(store: EventStore, prefixes: string[], after: LogPosition = START, limit = 1000): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for (;;) {
    const batch = await store.readAll({ after, streamPrefixes: prefixes, limit });
    out.push(...batch);
    if (batch.length === 0) return out;
    after = batch.at(-1)!.position;
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

export function eventStoreContract(name: string, adapter: ContractAdapter): void {
  describe(`event store contract: ${name}`, () => {
    let store: EventStore;
    const extra: EventStore[] = [];
    // Letters only: the run prefix must not itself contain LIKE wildcards.
    const run = `ct${randomBytes(5).toString('hex')}`;

    beforeAll(async () => {
      store = await adapter.open();
    });
    afterAll(async () => {
      for (const s of extra) await s.close();
      await store?.close();
      await adapter.teardown?.();
    });

    it.runIf(adapter.freshLog)('has no head while the log is empty', async () => {
      expect(await store.head()).toBeNull();
      expect(await store.readAll({ limit: 10 })).toEqual([]);
    });

    describe('append with an expected revision', () => {
      it('no_stream creates the stream and fails once it exists', async () => {
        const stream = `${run}-exp.a`;
        const first = await store.append(stream, [event(), event()], 'no_stream');
        expect(first.nextExpectedRevision).toBe(1);
        const error = await rejection(store.append(stream, [event()], 'no_stream'));
        expect(error).toBeInstanceOf(WrongExpectedRevisionError);
        expect(error).toMatchObject({ streamId: stream, expected: 'no_stream', actual: 1 });
        expect((await store.readStream(stream)).map((e) => e.revision)).toEqual([0, 1]);
      });

      it('an exact revision appends only on that revision', async () => {
        const stream = `${run}-exp.b`;
        const missing = await rejection(store.append(stream, [event()], 0));
        expect(missing).toBeInstanceOf(WrongExpectedRevisionError);
        expect(missing).toMatchObject({ expected: 0, actual: 'no_stream' });
        await store.append(stream, [event()], 'no_stream');
        const second = await store.append(stream, [event(), event()], 0);
        expect(second.nextExpectedRevision).toBe(2);
        const stale = await rejection(store.append(stream, [event()], 1));
        expect(stale).toBeInstanceOf(WrongExpectedRevisionError);
        expect(stale).toMatchObject({ streamId: stream, expected: 1, actual: 2 });
        expect((await store.append(stream, [event()], 2)).nextExpectedRevision).toBe(3);
      });

      it('any appends whatever the stream holds', async () => {
        const stream = `${run}-exp.c`;
        expect((await store.append(stream, [event()], 'any')).nextExpectedRevision).toBe(0);
        expect((await store.append(stream, [event(), event()], 'any')).nextExpectedRevision).toBe(2);
      });

      it('positions grow with every append and the append answers the last event’s position', async () => {
        const stream = `${run}-exp.d`;
        const a = await store.append(stream, [event(), event()], 'no_stream');
        const b = await store.append(stream, [event()], 1);
        expect(comparePositions(a.position, b.position)).toBeLessThan(0);
        await settle(store, b.position);
        const stored = await store.readStream(stream);
        expect(stored.map((e) => e.position)).toEqual([stored[0]!.position, a.position, b.position]);
        expect(comparePositions(stored[0]!.position, a.position)).toBeLessThan(0);
      });

      it('of 20 concurrent appends on the same expected revision exactly one wins', async () => {
        const stream = `${run}-race.a`;
        await store.append(stream, [event()], 'no_stream');
        const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => store.append(stream, [event('Raced', { i })], 0)));
        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(19);
        for (const r of lost) {
          expect(r.reason).toBeInstanceOf(WrongExpectedRevisionError);
          expect(r.reason).toMatchObject({ expected: 0, actual: 1 });
        }
        const stored = await store.readStream(stream);
        expect(stored).toHaveLength(2);
        expect(stored[1]!.data).toEqual({ i: (results.indexOf(won[0]!) as number) });
      });

      it('concurrent appends to many streams are each judged on their own stream', async () => {
        // Stores may write concurrent appends together (group commit): a stale expectation, a retry of
        // stored events or an id stored elsewhere must fail or answer for its own append only.
        const streams = Array.from({ length: 24 }, (_, i) => `${run}-many.s${i}`);
        const firsts = await Promise.all(streams.map((s) => store.append(s, [event()], 'no_stream')));
        const retried = [event(), event()];
        const retriedAt = await store.append(`${run}-many.retried`, retried, 'no_stream');
        const stolen = event();
        await store.append(`${run}-many.owner`, [stolen], 'no_stream');
        const outcomes = await Promise.allSettled([
          ...streams.map((s, i) => (i % 6 === 5 ? store.append(s, [event()], 'no_stream') : store.append(s, [event(), event()], 0))),
          store.append(`${run}-many.retried`, retried, 'no_stream'),
          store.append(`${run}-many.thief`, [stolen], 'no_stream'),
          store.append(`${run}-many.fresh`, [event()], 'no_stream'),
        ]);
        streams.forEach((s, i) => {
          const outcome = outcomes[i]!;
          if (i % 6 === 5) {
            expect(outcome.status).toBe('rejected');
            expect((outcome as PromiseRejectedResult).reason).toMatchObject({ streamId: s, expected: 'no_stream', actual: 0 });
          } else {
            expect(outcome).toMatchObject({ status: 'fulfilled', value: { nextExpectedRevision: 2 } });
          }
        });
        expect(outcomes[24]).toEqual({ status: 'fulfilled', value: retriedAt });
        if (adapter.uniqueIdsAcrossStreams) expect(outcomes[25]!.status).toBe('rejected');
        else expect(outcomes[25]).toMatchObject({ status: 'fulfilled', value: { nextExpectedRevision: 0 } });
        expect(outcomes[26]).toMatchObject({ status: 'fulfilled', value: { nextExpectedRevision: 0 } });
        const lengths = await Promise.all(streams.map(async (s) => (await store.readStream(s)).length));
        expect(lengths).toEqual(streams.map((_, i) => (i % 6 === 5 ? 1 : 3)));
        expect(await store.readStream(`${run}-many.retried`)).toHaveLength(2);
        expect((await store.readStream(`${run}-many.thief`)).map((e) => e.id)).toEqual(adapter.uniqueIdsAcrossStreams ? [] : [stolen.id]);
        expect(firsts.every((f) => f.nextExpectedRevision === 0)).toBe(true);
      });

      it('20 concurrent appends with any all land, one revision each', async () => {
        const stream = `${run}-race.b`;
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.append(stream, [event('Raced', { i })], 'any')));
        expect(results.map((r) => r.nextExpectedRevision).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i));
        const stored = await store.readStream(stream);
        expect(stored.map((e) => e.revision)).toEqual(Array.from({ length: 20 }, (_, i) => i));
        expect(new Set(stored.map((e) => (e.data as { i: number }).i)).size).toBe(20);
      });
    });

    describe('retried appends', () => {
      it('appending events whose ids are all stored answers the stored result and writes nothing', async () => {
        const stream = `${run}-idem.a`;
        const batch = [event(), event()];
        const first = await store.append(stream, batch, 'no_stream');
        expect(await store.append(stream, batch, 'no_stream')).toEqual(first);
        expect(await store.append(stream, batch, 'any')).toEqual(first);
        // The stream moved on: the retry of the first command still answers what it answered.
        await store.append(stream, [event()], 1);
        expect(await store.append(stream, batch, 'no_stream')).toEqual(first);
        expect((await store.readStream(stream)).map((e) => e.id)).toEqual([...batch.map((e) => e.id), expect.any(String)]);
      });

      it('a partial overlap with stored events is not a retry', async () => {
        const stream = `${run}-idem.b`;
        const batch = [event(), event()];
        await store.append(stream, batch, 'no_stream');
        const error = await rejection(store.append(stream, [batch[0]!, event()], 'no_stream'));
        expect(error).toBeInstanceOf(WrongExpectedRevisionError);
        expect((await store.readStream(stream)).map((e) => e.id)).toEqual(batch.map((e) => e.id));
      });
    });

    describe('readStream', () => {
      const stream = `${run}-rs.a`;
      let written: NewEvent[];
      beforeAll(async () => {
        written = Array.from({ length: 5 }, (_, i) => event(`Step${i}`, { i, nested: { list: [i, 'x'] } }));
        await store.append(stream, written, 'no_stream');
      });

      it('returns the events as appended, in revision order', async () => {
        const stored = await store.readStream(stream);
        expect(stored.map((e) => e.revision)).toEqual([0, 1, 2, 3, 4]);
        expect(stored.map(({ id, type, schemaVersion, data, metadata }) => ({ id, type, schemaVersion, data, metadata }))).toEqual(written);
        expect(stored.every((e) => e.streamId === stream)).toBe(true);
      });

      it('reads from and to, both inclusive', async () => {
        const revisions = async (range: { from?: number; to?: number }) => (await store.readStream(stream, range)).map((e) => e.revision);
        expect(await revisions({ from: 2 })).toEqual([2, 3, 4]);
        expect(await revisions({ to: 1 })).toEqual([0, 1]);
        expect(await revisions({ from: 1, to: 3 })).toEqual([1, 2, 3]);
        expect(await revisions({ from: 3, to: 3 })).toEqual([3]);
        expect(await revisions({ from: 5 })).toEqual([]);
        expect(await revisions({ from: 3, to: 2 })).toEqual([]);
      });

      it('is empty for a stream that does not exist', async () => {
        expect(await store.readStream(`${run}-rs.missing`)).toEqual([]);
      });
    });

    describe('readAll', () => {
      const p1 = `${run}-u1.`;
      const p2 = `${run}-u_.`;
      const expected: string[] = [];
      let last: LogPosition;
      beforeAll(async () => {
        // Interleaved users; `-u1x` shares the text `-u1` but not the prefix `-u1.`; `-uX.` would match
        // `-u_.` if the prefix were used as a LIKE pattern unescaped.
        const streams = [`${p1}a`, `${run}-u1x.a`, `${p2}a`, `${run}-uX.a`, `${p1}b`, `${run}-u3.a`];
        for (let i = 0; i < 24; i++) {
          const streamId = streams[i % streams.length]!;
          const e = event('Paged', { i });
          const result = await store.append(streamId, [e], 'any');
          if (streamId.startsWith(p1) || streamId.startsWith(p2)) expected.push(e.id);
          last = result.position;
        }
        await settle(store, last);
      });

      it('pages through a prefix filter: every event exactly once, in log order', async () => {
        for (const limit of [1, 3, 5, 100]) {
          const seen = await readEverything(store, [p1, p2], START, limit);
          expect(seen.map((e) => e.id)).toEqual(expected);
          for (let i = 1; i < seen.length; i++) expect(comparePositions(seen[i - 1]!.position, seen[i]!.position)).toBeLessThan(0);
        }
      });

      it('honours the limit and reads strictly after the given position', async () => {
        const firstPage = await store.readAll({ streamPrefixes: [p1], limit: 2 });
        expect(firstPage).toHaveLength(2);
        const next = await store.readAll({ after: firstPage[0]!.position, streamPrefixes: [p1], limit: 1 });
        expect(next.map((e) => e.id)).toEqual([firstPage[1]!.id]);
        const all = await readEverything(store, [p1]);
        expect(all.every((e) => e.streamId.startsWith(p1))).toBe(true);
        expect(all).toHaveLength(8);
        expect(await store.readAll({ after: all.at(-1)!.position, streamPrefixes: [p1], limit: 10 })).toEqual([]);
      });

      it("reads with only a projection's metadata: the same events, whose userId and recordedAt are the stored ones", async () => {
        const whole = await readEverything(store, [p1, p2], START, 100);
        const projected: ProjectedEvent[] = [];
        let after = START;
        for (;;) {
          const page = await store.readAll({ after, streamPrefixes: [p1, p2], limit: 5, metadata: 'projected' });
          projected.push(...page);
          if (page.length < 5) break;
          after = page.at(-1)!.position;
        }
        const strip = ({ metadata, ...rest }: ProjectedEvent) => ({ ...rest, metadata: { userId: metadata.userId, recordedAt: metadata.recordedAt } });
        expect(projected.map(strip)).toEqual(whole.map(strip));
        expect(projected.map((e) => e.metadata.userId).every((u) => typeof u === 'string' && u.length > 0)).toBe(true);
      });

      it("reads with the data as its JSON text: the same events, each one's data the stored JSON", async () => {
        const whole = await readEverything(store, [p1, p2], START, 100);
        const json: JsonDataEvent[] = [];
        let after = START;
        for (;;) {
          const page = await store.readAll({ after, streamPrefixes: [p1, p2], limit: 5, metadata: 'projected', data: 'json' });
          json.push(...page);
          if (page.length < 5) break;
          after = page.at(-1)!.position;
        }
        expect(json.every((e) => typeof e.data === 'string')).toBe(true);
        const parsed = json.map(({ metadata, data, ...rest }) => ({ ...rest, data: JSON.parse(data) as unknown, metadata: { userId: metadata.userId, recordedAt: metadata.recordedAt } }));
        expect(parsed).toEqual(whole.map(({ metadata, ...rest }) => ({ ...rest, metadata: { userId: metadata.userId, recordedAt: metadata.recordedAt } })));
      });

      it('reads packed (readPacked): the same events as with the data as JSON text, each row decoded whole, the read indexed by stream and revision', async () => {
        // A stream of its own (outside the `-u` streams the other cases count) with data and metadata past ASCII.
        const pk = `${run}-pk.`;
        const odd = { ...event('Paged', { notes: 'Straddle on ÉTF — 💹 twice', n: -0.5 }), metadata: { ...metadata(), userId: 'usér-✓' } };
        const appended = await store.append(`${pk}z`, [odd], 'no_stream');
        await settle(store, appended.position);
        for (const limit of [1, 4, 100]) {
          const json: JsonDataEvent[] = [];
          const packed: JsonDataEvent[] = [];
          let after = START;
          for (;;) {
            const [page, rows] = await Promise.all([
              store.readAll({ after, streamPrefixes: [p1, p2, pk], limit, metadata: 'projected', data: 'json' }),
              readPacked(store, { after, streamPrefixes: [p1, p2, pk], limit }),
            ]);
            json.push(...page);
            const unpacked = Array.from(rows.offsets, (o) => unpackEvent(rows.bytes, o));
            packed.push(...unpacked);
            expect(rows.streamIds).toEqual(unpacked.map((e) => e.streamId));
            expect([...rows.revisions]).toEqual(unpacked.map((e) => e.revision));
            expect(rows.last).toEqual(unpacked.at(-1)?.position ?? null);
            expect(Array.from(rows.offsets, (o) => unpackFoldEvent(rows.bytes, o))).toEqual(unpacked.map(({ id: _, position: __, ...fold }) => fold));
            if (page.length < limit) break;
            after = page.at(-1)!.position;
          }
          const projected = ({ metadata, ...rest }: JsonDataEvent) => ({ ...rest, metadata: { userId: metadata.userId, recordedAt: metadata.recordedAt } });
          expect(packed).toEqual(json.map(projected));
          expect(packed.at(-1)).toMatchObject({ id: odd.id, streamId: `${pk}z`, metadata: { userId: 'usér-✓' } });
          expect(JSON.parse(packed.at(-1)!.data)).toEqual(odd.data);
        }
      });

      it('reads by stream (readByStream): each stream whole, its events together in revision order, in one batch; every event once; up to a position', async () => {
        const log = await readEverything(store, [p1, p2], START, 100);
        const projected = ({ metadata, ...rest }: ProjectedEvent) => ({ ...rest, metadata: { userId: metadata.userId, recordedAt: metadata.recordedAt } });
        // Each stream's events in the log's order (which is its revisions' order), streams sorted by id.
        const byStream = (events: readonly ProjectedEvent[]) => {
          const streams = new Map<string, ReturnType<typeof projected>[]>();
          for (const e of events) streams.set(e.streamId, [...(streams.get(e.streamId) ?? []), projected(e)]);
          return [...streams].sort(([a], [b]) => (a < b ? -1 : 1));
        };
        for (const batch of [1, 3, 100]) {
          // START: before every event (a lane that has applied nothing yet reads nothing).
          for (const upTo of [undefined, log[8]!.position, START]) {
            const want = upTo ? log.filter((e) => comparePositions(e.position, upTo) <= 0) : log;
            const batches: ProjectedEvent[][] = [];
            for await (const b of readByStream(store, { streamPrefixes: [p1, p2], batch, ...(upTo ? { upTo } : {}) })) batches.push(b);
            if (upTo === START) expect(batches).toEqual([]);
            const done = new Set<string>();
            for (const b of batches) {
              expect(b.length).toBeGreaterThan(0);
              for (let i = 0; i < b.length; i++) {
                const e = b[i]!;
                if (i > 0 && b[i - 1]!.streamId === e.streamId) {
                  expect(e.revision).toBe(b[i - 1]!.revision + 1);
                  continue;
                }
                expect(done.has(e.streamId)).toBe(false); // a stream already seen (cut, or apart)
                expect(e.revision).toBe(0);
                done.add(e.streamId);
              }
            }
            expect(byStream(batches.flat())).toEqual(byStream(want));
            // A store with its own read hands streams over as they are read, not all at the end.
            if (store.readByStream && batch < 4 && upTo !== START) expect(batches.length).toBeGreaterThan(1);
          }
        }
        // A reader that stops after the first batch leaves the store as it was.
        for await (const b of readByStream(store, { streamPrefixes: [p1, p2], batch: 1 })) {
          expect(b.length).toBeGreaterThan(0);
          break;
        }
        expect((await readEverything(store, [p1, p2], START, 100)).map((e) => e.id)).toEqual(log.map((e) => e.id));
      });

      it('reads the whole log without a filter', async () => {
        const everything = await readEverything(store, [], START, 50);
        const ours = everything.filter((e) => e.streamId.startsWith(`${run}-u`)).map((e) => e.id);
        expect(ours.filter((id) => expected.includes(id))).toEqual(expected);
        expect(ours).toHaveLength(24);
      });

      it('knows its head and, where it can, how many events follow a position', async () => {
        const head = await store.head();
        expect(head).not.toBeNull();
        expect(comparePositions(head!, last)).toBeGreaterThanOrEqual(0);
        // Where the store has it, the same head with nothing held back (nothing else runs here).
        if (store.headAndHeld) expect(await store.headAndHeld()).toEqual({ head, held: false });
        if (!store.countAfter) return;
        expect(await store.countAfter(START, [p1, p2])).toBe(expected.length);
        const seen = await readEverything(store, [p1, p2]);
        expect(await store.countAfter(seen[9]!.position, [p1, p2])).toBe(expected.length - 10);
      });
    });

    describe('subscribe', () => {
      it('catches up, then delivers events appended after it started, until closed', async () => {
        const prefix = `${run}-sub.`;
        const before = [event('Before', { n: 0 }), event('Before', { n: 1 })];
        await store.append(`${prefix}a`, before, 'no_stream');
        const subscription = store.subscribe({ streamPrefixes: [prefix] });
        const received: StoredEvent[] = [];
        let want = 0;
        let reached = deferred();
        const consumer = (async () => {
          for await (const e of subscription) {
            received.push(e);
            if (received.length >= want) reached.resolve();
          }
        })();
        want = 2;
        await reached.promise;
        expect(received.map((e) => e.id)).toEqual(before.map((e) => e.id));

        reached = deferred();
        want = 5;
        const live = [event('Live', { n: 2 }), event('Live', { n: 3 }), event('Live', { n: 4 })];
        await store.append(`${run}-elsewhere.a`, [event('Elsewhere')], 'no_stream');
        await store.append(`${prefix}b`, [live[0]!], 'no_stream');
        await store.append(`${prefix}a`, live.slice(1), 1);
        await reached.promise;
        expect(received.map((e) => e.id)).toEqual([...before, ...live].map((e) => e.id));
        for (let i = 1; i < received.length; i++) expect(comparePositions(received[i - 1]!.position, received[i]!.position)).toBeLessThan(0);

        await subscription.close();
        await consumer; // the loop ends once closed
        await store.append(`${prefix}a`, [event('AfterClose')], 3);
        expect(received).toHaveLength(5);
      });

      it('starts strictly after the given position', async () => {
        const prefix = `${run}-suba.`;
        const written = [event(), event(), event()];
        const first = await store.append(`${prefix}a`, written.slice(0, 1), 'no_stream');
        await store.append(`${prefix}a`, written.slice(1), 0);
        const subscription = store.subscribe({ after: first.position, streamPrefixes: [prefix] });
        const received: string[] = [];
        for await (const e of subscription) {
          received.push(e.id);
          if (received.length === 2) break; // leaving the loop ends the subscription too
        }
        expect(received).toEqual(written.slice(1).map((e) => e.id));
        await subscription.close();
      });

      it('close ends a subscription that is waiting for events', async () => {
        const subscription = store.subscribe({ streamPrefixes: [`${run}-nothing.`] });
        const iterator = subscription[Symbol.asyncIterator]();
        const next = iterator.next();
        await subscription.close();
        expect(await next).toEqual({ done: true, value: undefined });
      });
    });

    describe('upcasting', () => {
      it('applies the upcaster to every read, never to what is stored', async () => {
        const upcaster = <E extends ProjectedEvent>(e: E): E =>
          e.type === 'Versioned' && e.schemaVersion === 1 ? { ...e, schemaVersion: 2, data: { ...(e.data as object), added: true } } : e;
        const upcasting = await adapter.open({ upcast: upcaster });
        extra.push(upcasting);
        const stream = `${run}-up.a`;
        const result = await upcasting.append(stream, [event('Versioned', { n: 1 }, 1), event('Other', { n: 2 }, 1)], 'no_stream');
        await settle(upcasting, result.position);
        const fromStream = await upcasting.readStream(stream);
        expect(fromStream.map((e) => [e.schemaVersion, e.data])).toEqual([
          [2, { n: 1, added: true }],
          [1, { n: 2 }],
        ]);
        const fromLog = await upcasting.readAll({ streamPrefixes: [`${run}-up.`], limit: 10 });
        expect(fromLog.map((e) => e.schemaVersion)).toEqual([2, 1]);
        // Data read as JSON text is as stored: whoever parses it upcasts it.
        const asJson = await upcasting.readAll({ streamPrefixes: [`${run}-up.`], limit: 10, metadata: 'projected', data: 'json' });
        expect(asJson.map((e) => [e.schemaVersion, JSON.parse(e.data)])).toEqual([
          [1, { n: 1 }],
          [1, { n: 2 }],
        ]);
        const subscription = upcasting.subscribe({ streamPrefixes: [`${run}-up.`] });
        for await (const e of subscription) {
          expect(e.schemaVersion).toBe(2);
          break;
        }
        expect((await store.readStream(stream))[0]!.schemaVersion).toBe(1);
      });
    });

    describe.runIf(adapter.openPausing !== undefined)('a commit that lands out of position order', () => {
      it('is never skipped: readers wait for the earlier position, then read both in order', async () => {
        const prefix = `${run}-ooo.`;
        const release = deferred();
        const insertedA = deferred<LogPosition>();
        const pausing = await adapter.openPausing!(async (streamId, position) => {
          if (!streamId.startsWith(prefix)) return;
          insertedA.resolve(position);
          await release.promise;
        });
        extra.push(pausing);
        const cursor = (await store.head()) ?? START;
        const subscription = store.subscribe({ after: cursor, streamPrefixes: [prefix] });
        const delivered: StoredEvent[] = [];
        const consumer = (async () => {
          for await (const e of subscription) {
            delivered.push(e);
            if (delivered.length === 2) break;
          }
        })();

        const eventA = event('A');
        const eventB = event('B');
        // A failed expectation must not leave A's transaction (and the teardown) hanging.
        onTestFinished(() => release.resolve());
        const appendingA = pausing.append(`${prefix}a`, [eventA], 'no_stream');
        const positionA = await insertedA.promise;
        const b = await store.append(`${prefix}b`, [eventB], 'no_stream'); // commits while A is open
        expect(b.position.prepare).toBeGreaterThan(positionA.prepare); // B has the later sequence number

        // A reader polling in the gap sees neither event: seeing B would mean passing A.
        for (let i = 0; i < 3; i++) {
          expect(await store.readAll({ after: cursor, streamPrefixes: [prefix], limit: 10 })).toEqual([]);
          const head = await store.head();
          expect(head === null || comparePositions(head, positionA) < 0).toBe(true);
        }
        expect(delivered).toEqual([]);

        release.resolve();
        const a = await appendingA;
        expect(comparePositions(a.position, b.position)).toBeLessThan(0);
        await settle(store, b.position);
        const after = await store.readAll({ after: cursor, streamPrefixes: [prefix], limit: 10 });
        expect(after.map((e) => e.id)).toEqual([eventA.id, eventB.id]);
        await consumer;
        expect(delivered.map((e) => e.id)).toEqual([eventA.id, eventB.id]);
        await subscription.close();
      });
    });
  });
}
