import type { EventMetadata } from '@oj/contracts/events';
import type { PackedEvents, PackedReadOptions } from './packed.ts';
import type { ByStreamReadOptions } from './by-stream.ts';

/**
 * The event store port. Two real adapters implement it (PostgreSQL on kysely, for node-postgres and
 * PGlite; EventStoreDB/KurrentDB) and one contract suite (`contract.ts`) must pass on each.
 */

/**
 * A position in the global log. It mirrors EventStoreDB's {commit, prepare}. On PostgreSQL, `commit`
 * is the appending transaction's id (xid8) and `prepare` the row's global sequence: readers order by
 * both and only read transactions older than every one still running, so an event committed late with
 * an early sequence number is never skipped.
 */
export interface LogPosition {
  commit: bigint;
  prepare: bigint;
}

export const START: LogPosition = Object.freeze({ commit: -1n, prepare: -1n });

export function comparePositions(a: LogPosition, b: LogPosition): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

const WIDTH = 20;
/** A fixed-width text form that sorts like the position and holds no `:` (it appears in BullMQ job ids). */
export function positionToString(p: LogPosition): string {
  if (p.commit < 0n) return 'start';
  return `${p.commit.toString().padStart(WIDTH, '0')}-${p.prepare.toString().padStart(WIDTH, '0')}`;
}
export function positionFromString(s: string): LogPosition {
  if (s === 'start') return START;
  const [c, p] = s.split('-');
  if (c === undefined || p === undefined) throw new Error(`Not a log position: ${s}`);
  return { commit: BigInt(c), prepare: BigInt(p) };
}

/** An event to append. Ids are UUIDs chosen by the caller (deterministic for idempotent commands). */
export interface NewEvent<Data = unknown> {
  id: string;
  type: string;
  schemaVersion: number;
  data: Data;
  metadata: EventMetadata;
}

export interface StoredEvent<Data = unknown> extends NewEvent<Data> {
  streamId: string;
  /** 0-based position of the event in its stream. */
  revision: number;
  position: LogPosition;
}

/**
 * Old schema versions of an event to the current one, on read. It reads and rewrites only the type,
 * schema version and data, so it takes an event of any shape and gives back the same shape.
 */
export type Upcast = <E extends ProjectedEvent>(event: E) => E;

/** The metadata a projection reads of an event: whose it is, and when it was recorded. */
export type ProjectedMetadata = Pick<EventMetadata, 'userId' | 'recordedAt'>;

/**
 * An event as a projection reads it (`readAll` with `metadata: 'projected'`): its metadata may hold
 * only `ProjectedMetadata`. Every `StoredEvent` is one.
 */
export interface ProjectedEvent<Data = unknown> extends Omit<StoredEvent<Data>, 'metadata'> {
  metadata: ProjectedMetadata;
}

/**
 * What the caller expects the stream to be before the append: `'no_stream'`, `'any'`, or the revision
 * of its last event.
 */
export type ExpectedRevision = 'no_stream' | 'any' | number;

export interface AppendResult {
  /** Revision of the last event of the stream after the append. */
  nextExpectedRevision: number;
  position: LogPosition;
}

export class WrongExpectedRevisionError extends Error {
  readonly streamId: string;
  readonly expected: ExpectedRevision;
  readonly actual: number | 'no_stream';
  constructor(streamId: string, expected: ExpectedRevision, actual: number | 'no_stream') {
    super(`Stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
    this.streamId = streamId;
    this.expected = expected;
    this.actual = actual;
  }
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. */
  after?: LogPosition;
  /** Only streams whose id starts with one of these prefixes. */
  streamPrefixes?: string[];
  limit: number;
  /**
   * `'projected'`: the reader uses only the metadata a projection reads (`ProjectedMetadata`), and an
   * adapter may leave the rest out. PostgreSQL does: a rebuild reads the whole log, and the events'
   * whole metadata was a third of the JSON it parsed.
   */
  metadata?: 'projected';
  /**
   * `'json'` (with `metadata: 'projected'`): each event's data as the JSON text stored, neither parsed nor
   * upcast (`JsonDataEvent`), for a reader that parses it elsewhere: a rebuild hands the events of a
   * whole log to a worker thread, whose parse would otherwise be the reading thread's (2.3 s of a
   * million events).
   */
  data?: 'json';
}

/**
 * An event read with `data: 'json'`: its type, schema version and data as stored. Whoever parses the
 * data upcasts it (`Upcast`) before anything reads it as the current schema.
 */
export type JsonDataEvent = ProjectedEvent<string>;

export interface SubscribeOptions {
  after?: LogPosition;
  streamPrefixes?: string[];
}

export interface Subscription extends AsyncIterable<StoredEvent> {
  close(): Promise<void>;
}

/**
 * Wake-ups without the events, for a reader that reads the log itself from its own checkpoint (the
 * projector's dispatcher): one after each append committed (here, or announced by another process) and
 * one after each fallback poll. A wake-up says "read now"; it promises nothing new. An append hidden
 * from readers behind an older transaction gets no second wake-up when that transaction ends: the
 * reader asks `headAndHeld` before it reads, and reads again shortly while events are held back.
 */
export interface WakeUps extends AsyncIterable<void> {
  close(): Promise<void>;
}

export interface EventStore {
  readonly kind: 'postgres' | 'pglite' | 'eventstoredb';
  /**
   * Appends atomically. Throws WrongExpectedRevisionError on a revision conflict. Appending events
   * whose ids are all already stored in that stream is a no-op that answers the stored result. Ids are
   * unique per stream on every adapter; across streams only on PostgreSQL (EventStoreDB takes an id
   * stored in another stream as a new event there; see the contract's `uniqueIdsAcrossStreams`).
   */
  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /** Events of one stream, forwards, revisions `from`..`to` inclusive. Empty for a missing stream. */
  readStream(streamId: string, range?: { from?: number; to?: number }): Promise<StoredEvent[]>;
  /** The global log, forwards, after a position. */
  readAll(options: ReadAllOptions & { metadata: 'projected'; data: 'json' }): Promise<JsonDataEvent[]>;
  readAll(options: ReadAllOptions & { metadata: 'projected' }): Promise<ProjectedEvent[]>;
  readAll(options: ReadAllOptions): Promise<StoredEvent[]>;
  /**
   * `readAll` with `metadata: 'projected'` and `data: 'json'`, packed as binary rows for a reader that
   * decodes them on another thread (`packed.ts`; `readPacked` packs `readAll`'s events for a store
   * without it). PostgreSQL has it: COPY writes the rows, nothing parses them on the reading thread.
   */
  readAllPacked?(options: PackedReadOptions): Promise<PackedEvents>;
  /**
   * The visible events of the streams with these prefixes, whole streams a batch at a time
   * (`by-stream.ts`; `readByStream` groups `readAll`'s events for a store without it). PostgreSQL has
   * it: one query in stream order, read by a cursor, so a reader acts on the first streams while the
   * rest are read.
   */
  readByStream?(options: ByStreamReadOptions): AsyncIterable<ProjectedEvent[]>;
  /** Catch-up then live: every matching event after `after`, in log order, until closed. */
  subscribe(options: SubscribeOptions): Subscription;
  /**
   * Where the store can wake a reader without reading for it (PostgreSQL, PGlite): what a subscription
   * would wake it with, without the subscription's read of every new event. Without it, a reader
   * subscribes and takes each event as its wake-up.
   */
  wakeUps?(): WakeUps;
  /** Position of the last event of the global log, or null when it is empty. */
  head(): Promise<LogPosition | null>;
  /**
   * `head`, and whether committed events are held back from readers behind an older transaction still
   * running (PostgreSQL's visibility rule), both in one snapshot. A reader that asks before it reads,
   * and finds nothing held, reads every event committed until then; one held back at the ask is its cue
   * to read again shortly (no wake-up comes when the older transaction ends). Stores that hold nothing
   * back (EventStoreDB) need not have it.
   */
  headAndHeld?(): Promise<{ head: LogPosition | null; held: boolean }>;
  /** Number of events after a position (lag in events). */
  countAfter?(after: LogPosition, streamPrefixes?: string[]): Promise<number>;
  close(): Promise<void>;
}
