import { CompiledQuery, sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import type { Database } from '../db/database.ts';
import {
  START,
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type JsonDataEvent,
  type LogPosition,
  type NewEvent,
  type ProjectedEvent,
  type ProjectedMetadata,
  type ReadAllOptions,
  type StoredEvent,
  type SubscribeOptions,
  type Subscription,
  type Upcast,
  type WakeUps,
} from './port.ts';
import { assertEventIds, canonicalUuid } from './event-ids.ts';
import { indexPacked, readAllAsPacked, type PackedEvents, type PackedReadOptions } from './packed.ts';
import { BY_STREAM_BATCH, WholeStreams, type ByStreamReadOptions } from './by-stream.ts';
import { LocalSignal, pollingSubscription, signalWakeUps, type SignalOptions } from './subscription.ts';
import { GroupCommit } from './group-commit.ts';
import { listenChannel, type ChannelListener } from '../db/listen.ts';

/**
 * The event store on PostgreSQL (node-postgres) or PGlite, through kysely. Table: see migrations.ts.
 *
 * Ordering. `global_position` comes from a sequence at insert time, so two concurrent appends can commit
 * in the opposite order of their positions; a reader that followed positions alone would pass the
 * earlier one while it is still invisible and never see it (Marten issue #4952). Readers here order by
 * (transaction_id, global_position) and only read rows whose transaction is older than every
 * transaction still running (`transaction_id < pg_snapshot_xmin(pg_current_snapshot())`, as Emmett's
 * PostgreSQL store does). Anything that commits later has a transaction id at or above that horizon, so
 * it sorts after everything already read. The price: one long transaction anywhere on the server holds
 * readers back until it ends (it never makes them skip).
 */
export interface PostgresEventStoreOptions {
  /** Applied to every event read (old schema versions to the current one). */
  upcast?: Upcast;
  /** How often a subscription looks for new events when no wake-up arrives. */
  pollIntervalMs?: number;
  /**
   * Test seam: runs inside the append transaction after the insert, before commit, so a test can hold a
   * transaction open with its position assigned (the out-of-order commit case).
   */
  afterInsert?: (streamId: string, position: LogPosition) => Promise<void>;
}

const CHANNEL = 'oj_events';
const UNIQUE_VIOLATION = '23505';
const STREAM_REVISION_KEY = 'events_stream_revision_key';
/** An 'any' append that loses a race simply retries on the new last revision; this bounds a livelock. */
const MAX_ANY_RETRIES = 100;

/** Events of transactions older than every one still running: no event can still appear before them in log order. */
export const VISIBLE = sql`transaction_id < pg_snapshot_xmin(pg_current_snapshot())`;
/** The newest visible event's position (`head`): the log-order index read backwards, one entry. */
const HEAD_COLUMNS = sql`transaction_id::text as c, global_position::text as p`;
const HEAD_ORDER = sql`order by transaction_id desc, global_position desc limit 1`;
const POSITION_COLUMNS = sql`transaction_id::text as commit_pos, global_position::text as prepare_pos, stream_id, revision, event_id::text as event_id, type, schema_version`;
const EVENT_COLUMNS = sql`${POSITION_COLUMNS}, data`;
/** A whole stored event's columns: a row of them is an `EventRow` (`rawEvent` makes it an event). */
export const COLUMNS = sql`${EVENT_COLUMNS}, metadata`;
/** Only the metadata a projection reads, as text: no JSON of it to print or to parse. */
const PROJECTED_METADATA = sql`metadata->>'userId' as user_id, metadata->>'recordedAt' as recorded_at`;
const PROJECTED_COLUMNS = sql`${EVENT_COLUMNS}, ${PROJECTED_METADATA}`;
/** `readAllPacked`'s rows, in the order `packed.ts` reads them. */
const PACKED_COLUMNS = sql`stream_id, revision, type, schema_version, data::text, metadata->>'userId', metadata->>'recordedAt', event_id::text, transaction_id, global_position`;
/** `data: 'json'`: the data as text, which the driver hands over as it came. */
const JSON_DATA_COLUMNS = sql`${POSITION_COLUMNS}, data::text as data, ${PROJECTED_METADATA}`;

/**
 * The group commit's write: every append of a write as one JSON array of rows (a fixed statement text,
 * so it can be prepared), inserted in order (one stream's events take positions in revision order) where
 * the row's stream is at its expected revision (-1: no stream). Each guard reads the snapshot the
 * statement started with, so it never sees the rows the statement itself inserts. A JSON null `d` comes
 * out of jsonb_to_recordset as SQL NULL: coalesce keeps it the JSON null it was.
 */
const APPEND_GUARDED_NAME = 'oj_events_append_guarded_v1';
const APPEND_GUARDED = `
  with ins as (
    insert into events (stream_id, revision, event_id, type, schema_version, data, metadata)
    select v.s, v.r, v.id, v.t, v.v, coalesce(v.d, 'null'::jsonb), v.m
    from rows from (jsonb_to_recordset($1::jsonb) as (s text, r int, id uuid, t text, v int, d jsonb, m jsonb, e int))
      with ordinality as v(s, r, id, t, v, d, m, e, ordinal)
    where coalesce((select max(x.revision) from events x where x.stream_id = v.s), -1) = v.e
    order by v.ordinal
    returning stream_id, transaction_id::text as c, global_position::text as p, revision
  )
  select stream_id, c, p, revision from ins`;

interface GuardedRow {
  stream_id: string;
  c: string;
  p: string;
  revision: number;
}

/** An append with an expected revision, as the group commit writes it. */
interface GuardedAppend {
  streamId: string;
  events: NewEvent[];
  expected: number | 'no_stream';
}

export interface EventRow {
  commit_pos: string;
  prepare_pos: string;
  stream_id: string;
  revision: number;
  event_id: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: StoredEvent['metadata'];
}

/** A row of `PROJECTED_COLUMNS`. */
interface ProjectedEventRow extends Omit<EventRow, 'metadata'> {
  user_id: string;
  recorded_at: string;
}

/**
 * Whether the log holds an event whose transaction is at or after the oldest one still running: the
 * newest event's transaction, one entry of the log-order index read backwards. (As `exists (... where
 * transaction_id >= xmin)` it was a scan of the events table whenever the planner had no statistics on it,
 * each poll reading the whole log when nothing was pending.)
 */
const HELD = sql`coalesce((select max(transaction_id) from events) >= pg_snapshot_xmin(pg_current_snapshot()), false)`;
export const pendingQuery = sql<{ pending: boolean }>`select ${HELD} as pending`;

/**
 * `head` and `pendingQuery` in one statement, so in one snapshot (`headAndHeld`): two entries of the
 * log-order index read backwards.
 */
export const headAndHeldQuery = sql<{ c: string | null; p: string | null; held: boolean }>`
  select h.c, h.p, ${HELD} as held
  from (select 1) as one
  left join lateral (select ${HEAD_COLUMNS} from events where ${VISIBLE} ${HEAD_ORDER}) as h on true`;

/** Subscriptions of every store on one database handle share one wake-up signal. */
const signals = new WeakMap<object, LocalSignal>();

export class PostgresEventStore implements EventStore {
  readonly kind: 'postgres' | 'pglite';
  readonly #db: Kysely<any>;
  readonly #pool: pg.Pool | undefined;
  readonly #upcast: Upcast | undefined;
  readonly #afterInsert: PostgresEventStoreOptions['afterInsert'];
  readonly #pollIntervalMs: number;
  readonly #signal: LocalSignal;
  readonly #listener: NotificationListener | undefined;
  /** On a server only (see `#readByStream`). */
  readonly readByStream?: (options: ByStreamReadOptions) => AsyncIterable<ProjectedEvent[]>;
  /** Subscriptions and wake-ups, ended with the store. */
  readonly #subscriptions = new Set<Subscription | WakeUps>();

  constructor(database: Database, options: PostgresEventStoreOptions = {}) {
    this.kind = database.kind;
    this.#db = database.db;
    this.#pool = database.pool;
    const pool = database.pool;
    if (pool) this.readByStream = (options) => this.#readByStream(pool, options);
    this.#upcast = options.upcast;
    this.#afterInsert = options.afterInsert;
    this.#pollIntervalMs = options.pollIntervalMs ?? 500;
    const key: object = database.pool ?? database.pglite ?? database.db;
    let signal = signals.get(key);
    if (!signal) signals.set(key, (signal = new LocalSignal()));
    this.#signal = signal;
    // Other processes append too (gateway, CLI): on a server they wake us through NOTIFY. PGlite lives in
    // this process only, so the in-process signal is the whole story there.
    this.#listener = database.pool ? new NotificationListener(database, signal) : undefined;
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    assertEventIds(streamId, events.map((e) => e.id));
    if (expected !== 'any' && !this.#afterInsert) {
      const fast = await this.#appendGrouped(streamId, events, expected);
      if (fast) return fast;
    }
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await this.#db.transaction().execute(async (trx) => {
          const stored = await this.#alreadyStored(trx, streamId, events, expected);
          if (stored) return stored;
          const current = await currentRevision(trx, streamId);
          if (!matches(expected, current)) throw new WrongExpectedRevisionError(streamId, expected, current ?? 'no_stream');
          const first = current === null ? 0 : current + 1;
          const values = events.map(
            (e, i) =>
              sql`(${streamId}, ${first + i}, ${e.id}::uuid, ${e.type}, ${e.schemaVersion}, ${JSON.stringify(e.data ?? null)}::jsonb, ${JSON.stringify(e.metadata)}::jsonb)`,
          );
          const inserted = await sql<{ c: string; p: string; revision: number }>`
            insert into events (stream_id, revision, event_id, type, schema_version, data, metadata)
            values ${sql.join(values)}
            returning transaction_id::text as c, global_position::text as p, revision`.execute(trx);
          const last = inserted.rows.reduce((a, b) => (b.revision > a.revision ? b : a));
          const position = { commit: BigInt(last.c), prepare: BigInt(last.p) };
          if (this.#afterInsert) await this.#afterInsert(streamId, position);
          return { nextExpectedRevision: last.revision, position, fresh: true };
        });
        if ('fresh' in result) {
          this.#announce();
          return { nextExpectedRevision: result.nextExpectedRevision, position: result.position };
        }
        return result;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // Lost a race. The winner may have been a retry of this very append (then it is done), or
        // another command (then the caller decided on a stale stream).
        const stored = await this.#alreadyStored(this.#db, streamId, events, expected);
        if (stored) return stored;
        if (constraintOf(error) !== STREAM_REVISION_KEY) {
          throw new Error(`Append to ${streamId}: an event id is already stored in another stream or batch`, { cause: error });
        }
        if (expected === 'any' && attempt < MAX_ANY_RETRIES) continue;
        const actual = await currentRevision(this.#db, streamId);
        throw new WrongExpectedRevisionError(streamId, expected, actual ?? 'no_stream');
      }
    }
  }

  /**
   * The common case in one round trip: one statement inserts the events only if the stream is exactly at
   * the expected revision, and concurrent appends share it (group commit, see group-commit.ts): each
   * stream keeps its own guard, so one stale expectation costs only its own append. Any other outcome
   * (a lost race, a retried append of stored ids, a stale expectation, a failed write) answers null and
   * the transactional path above decides what it was, as before; a failed write sends every append of it
   * there, one by one.
   */
  async #appendGrouped(streamId: string, events: NewEvent[], expected: number | 'no_stream'): Promise<AppendResult | null> {
    try {
      return await this.#group.submit({ streamId, events, expected });
    } catch {
      return null;
    }
  }

  readonly #group = new GroupCommit<GuardedAppend, AppendResult | null>(
    (appends) => this.#writeGuarded(appends),
    (a) => a.streamId,
    (a) => a.events.length,
    // One write at a time gathers the most (two measured worse); a write holds at most 1,000 events, so
    // one JSON parameter and one transaction stay small.
    { maxInFlight: 1, maxWeight: 1000 },
  );

  async #writeGuarded(appends: GuardedAppend[]): Promise<(AppendResult | null)[]> {
    const rows = appends.flatMap(({ streamId, events, expected }) => {
      const first = expected === 'no_stream' ? 0 : expected + 1;
      const guard = expected === 'no_stream' ? -1 : expected;
      return events.map((e, i) => ({ s: streamId, r: first + i, id: e.id, t: e.type, v: e.schemaVersion, d: e.data ?? null, m: e.metadata, e: guard }));
    });
    const values = [JSON.stringify(rows)];
    // On a server, a named statement: prepared once per connection, so a write is not parsed and planned
    // again (a third of a small write's time on the server).
    const inserted = this.#pool
      ? await this.#pool.query<GuardedRow>({ name: APPEND_GUARDED_NAME, text: APPEND_GUARDED, values })
      : await this.#db.executeQuery<GuardedRow>(CompiledQuery.raw(APPEND_GUARDED, values));
    const byStream = new Map<string, GuardedRow[]>();
    for (const row of inserted.rows) {
      const rows = byStream.get(row.stream_id);
      if (rows) rows.push(row);
      else byStream.set(row.stream_id, [row]);
    }
    // NOTIFY stays a statement of its own: inside this one it would hold the global notify lock through
    // the commit's WAL flush, and every other process's appends would wait for it.
    if (inserted.rows.length > 0) this.#announce();
    return appends.map(({ streamId, events }) => {
      const rows = byStream.get(streamId);
      if (!rows || rows.length !== events.length) return null;
      const last = rows.reduce((a, b) => (b.revision > a.revision ? b : a));
      return { nextExpectedRevision: last.revision, position: { commit: BigInt(last.c), prepare: BigInt(last.p) } };
    });
  }

  /**
   * A retried command appends the same event ids. When every one of them is already in this stream, in
   * this order, the append happened: answer what it answered. A partial overlap is not a retry.
   */
  async #alreadyStored(
    db: Kysely<any> | Transaction<any>,
    streamId: string,
    events: NewEvent[],
    expected: ExpectedRevision,
  ): Promise<AppendResult | null> {
    const ids = events.map((e) => e.id);
    const found = await sql<{ event_id: string; stream_id: string; revision: number; c: string; p: string }>`
      select event_id::text as event_id, stream_id, revision, transaction_id::text as c, global_position::text as p
      from events where event_id in (${sql.join(ids.map((id) => sql`${id}::uuid`))})`.execute(db);
    if (found.rows.length === 0) return null;
    const byId = new Map(found.rows.map((r) => [r.event_id, r]));
    const rows = ids.map((id) => byId.get(canonicalUuid(id)));
    const first = rows[0];
    const consecutive =
      first !== undefined && rows.every((r, i) => r !== undefined && r.stream_id === streamId && r.revision === first.revision + i);
    if (!consecutive) {
      const actual = await currentRevision(db, streamId);
      throw new WrongExpectedRevisionError(streamId, expected, actual ?? 'no_stream');
    }
    const last = rows.at(-1)!;
    return { nextExpectedRevision: last.revision, position: { commit: BigInt(last.c), prepare: BigInt(last.p) } };
  }

  /** The NOTIFY loop in flight, if any (see #announce). */
  #notifying: Promise<void> | null = null;
  #notifyAgain = false;

  /**
   * Wakes subscribers after an append committed. In process through the signal at once; other processes
   * through NOTIFY, which is only a wake-up, so concurrent appends share one: while one is in flight,
   * later appends ask for one more after it. The append does not wait for it: under steady load the loop
   * runs back to back, and the append that started it would wait for every NOTIFY of the appends after
   * it (measured: the command latency tail). `close` waits for the loop.
   */
  #announce(): void {
    this.#signal.fire();
    if (!this.#pool) return;
    if (this.#notifying) {
      this.#notifyAgain = true;
      return;
    }
    this.#notifying = (async () => {
      do {
        this.#notifyAgain = false;
        try {
          // A wake-up needs no durability: its commit does not wait for the WAL flush.
          await sql`select set_config('synchronous_commit', 'off', true), pg_notify(${CHANNEL}, '')`.execute(this.#db);
        } catch {
          // Subscribers in other processes fall back to polling; the append itself has committed.
        }
      } while (this.#notifyAgain);
    })().finally(() => {
      this.#notifying = null;
    });
  }

  async readStream(streamId: string, range: { from?: number; to?: number } = {}): Promise<StoredEvent[]> {
    const from = range.from ?? 0;
    const to = range.to === undefined ? sql`true` : sql`revision <= ${range.to}`;
    const rows = await sql<EventRow>`
      select ${COLUMNS} from events
      where stream_id = ${streamId} and revision >= ${from} and ${to}
      order by revision`.execute(this.#db);
    return rows.rows.map((r) => this.#toEvent(r, r.metadata));
  }

  readAll(options: ReadAllOptions & { metadata: 'projected'; data: 'json' }): Promise<JsonDataEvent[]>;
  readAll(options: ReadAllOptions & { metadata: 'projected' }): Promise<ProjectedEvent[]>;
  readAll(options: ReadAllOptions): Promise<StoredEvent[]>;
  async readAll(options: ReadAllOptions): Promise<ProjectedEvent[]> {
    const page = pageOf(options);
    if (options.data === 'json') {
      if (options.metadata !== 'projected') throw new Error("readAll: data: 'json' is read with metadata: 'projected'");
      const rows = await sql<ProjectedEventRow>`select ${JSON_DATA_COLUMNS} from events ${page}`.execute(this.#db);
      // Not upcast: the data is not parsed yet (`JsonDataEvent`).
      return rows.rows.map((r) => rawEvent(r, { userId: r.user_id, recordedAt: r.recorded_at }));
    }
    if (options.metadata === 'projected') {
      const rows = await sql<ProjectedEventRow>`select ${PROJECTED_COLUMNS} from events ${page}`.execute(this.#db);
      return rows.rows.map((r) => this.#toEvent(r, { userId: r.user_id, recordedAt: r.recorded_at }));
    }
    const rows = await sql<EventRow>`select ${COLUMNS} from events ${page}`.execute(this.#db);
    return rows.rows.map((r) => this.#toEvent(r, r.metadata));
  }

  async readAllPacked(options: PackedReadOptions): Promise<PackedEvents> {
    const pool = this.#pool;
    if (!pool) return readAllAsPacked(this, options);
    const query = sql`select ${PACKED_COLUMNS} from events ${pageOf(options)}`.compile(this.#db);
    // COPY takes no parameters: each goes in as a literal.
    const text = query.sql.replace(/\$(\d+)/g, (_, n: string) => pg.escapeLiteral(String(query.parameters[Number(n) - 1])));
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      const parts: Buffer[] = [];
      let size = 0;
      for await (const part of client.query(copyStreams.to(`copy (${text}) to stdout with (format binary)`)) as AsyncIterable<Buffer>) {
        parts.push(part);
        size += part.length;
      }
      // A buffer of its own (`PackedEvents`): the stream's parts are slices of the socket's.
      const bytes = Buffer.allocUnsafeSlow(size);
      let at = 0;
      for (const part of parts) at += part.copy(bytes, at);
      return indexPacked(bytes);
    } catch (error) {
      // A COPY that failed midway can leave the connection mid-protocol: it is not handed back.
      broken = error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /**
   * `readByStream` on PostgreSQL: one query in stream order (`stream_id, revision`), read by a cursor
   * `batch` rows at a time, the next fetch under way while the caller takes a batch. Planned for the
   * whole result, not for its first rows (`cursor_tuple_fraction`): a cursor's default plan walks the
   * `(stream_id, revision)` index over the whole log for a prefix it cannot bound there, about three
   * times the query's time for a heavy user.
   * PGlite (one connection, held by the caller's transaction meanwhile) has no `readByStream`: it reads
   * as any store without it (`by-stream.ts`).
   */
  async *#readByStream(pool: pg.Pool, options: ByStreamReadOptions): AsyncGenerator<ProjectedEvent[]> {
    // Up to START (a lane that has applied nothing yet): nothing. In SQL, START's commit (-1) would be
    // read as the largest xid8 and let every event through.
    if (options.upTo && options.upTo.commit < 0n) return;
    const batch = Math.max(1, Math.floor(options.batch ?? BY_STREAM_BATCH));
    const upTo = options.upTo ? sql`and (transaction_id, global_position) <= (${options.upTo.commit.toString()}::xid8, ${options.upTo.prepare.toString()}::bigint)` : sql``;
    const query = sql`select ${PROJECTED_COLUMNS} from events
      where ${VISIBLE} and ${prefixCondition(options.streamPrefixes)} ${upTo}
      order by stream_id, revision`.compile(this.#db);
    const client = await pool.connect();
    let ended = false;
    let broken: Error | undefined;
    let next: Promise<pg.QueryResult<ProjectedEventRow>> | undefined;
    try {
      await client.query('begin read only');
      await client.query('set local cursor_tuple_fraction = 1');
      await client.query(`declare by_stream no scroll cursor for ${query.sql}`, [...query.parameters]);
      const fetch = () => client.query<ProjectedEventRow>(`fetch forward ${batch} from by_stream`);
      const streams = new WholeStreams();
      next = fetch();
      for (;;) {
        const { rows } = await next;
        const done = rows.length < batch;
        if (!done) next = fetch();
        const whole = streams.take(rows.map((r) => this.#toEvent(r, { userId: r.user_id, recordedAt: r.recorded_at })));
        if (whole.length) yield whole;
        if (done) break;
      }
      await client.query('commit');
      ended = true;
      const rest = streams.rest();
      if (rest.length) yield rest;
    } catch (error) {
      broken = error as Error;
      throw error;
    } finally {
      // A reader that stopped early leaves the cursor open with a fetch perhaps under way: the
      // connection is closed rather than handed back mid-transaction (and the fetch's failure dropped).
      next?.catch(() => {});
      client.release(broken ?? (ended ? undefined : new Error('readByStream ended early')));
    }
  }

  async head(): Promise<LogPosition | null> {
    const rows = await sql<{ c: string; p: string }>`select ${HEAD_COLUMNS} from events where ${VISIBLE} ${HEAD_ORDER}`.execute(this.#db);
    const row = rows.rows[0];
    return row ? { commit: BigInt(row.c), prepare: BigInt(row.p) } : null;
  }

  async headAndHeld(): Promise<{ head: LogPosition | null; held: boolean }> {
    const rows = await headAndHeldQuery.execute(this.#db);
    const row = rows.rows[0]!;
    return { head: row.c === null ? null : { commit: BigInt(row.c), prepare: BigInt(row.p!) }, held: row.held };
  }

  async countAfter(after: LogPosition, streamPrefixes?: string[]): Promise<number> {
    const rows = await sql<{ n: string }>`
      select count(*)::text as n from events
      where ${VISIBLE} and ${afterCondition(after)} and ${prefixCondition(streamPrefixes)}`.execute(this.#db);
    return Number(rows.rows[0]?.n ?? 0);
  }

  subscribe(options: SubscribeOptions): Subscription {
    return this.#listening((signal) =>
      pollingSubscription({
        ...signal,
        after: options.after ?? START,
        read: (after, limit) => this.readAll({ after, limit, ...(options.streamPrefixes ? { streamPrefixes: options.streamPrefixes } : {}) }),
        // On PGlite nothing runs beside a read, so nothing is ever held back.
        ...(this.#pool ? { pending: () => this.#pending() } : {}),
      }),
    );
  }

  wakeUps(): WakeUps {
    return this.#listening((signal) => signalWakeUps(signal));
  }

  /**
   * A subscription or wake-ups on this store's signal, with the LISTEN session held while it is open;
   * ended with the store.
   */
  #listening<T extends Subscription | WakeUps>(open: (signal: SignalOptions) => T): T {
    const listener = this.#listener;
    listener?.acquire();
    const opened = open({
      signal: this.#signal,
      pollIntervalMs: this.#pollIntervalMs,
      onClose: async () => {
        this.#subscriptions.delete(opened);
        await listener?.release();
      },
    });
    this.#subscriptions.add(opened);
    return opened;
  }

  /** Committed events that readers cannot see yet: their transaction is newer than one still running. */
  async #pending(): Promise<boolean> {
    const rows = await pendingQuery.execute(this.#db);
    return rows.rows[0]?.pending === true;
  }

  /** Ends this store's subscriptions. The database handle belongs to the caller and stays open. */
  async close(): Promise<void> {
    await this.#group.idle();
    await this.#notifying;
    await Promise.all([...this.#subscriptions].map((s) => s.close()));
  }

  /** A row as an event with `metadata` (the whole, or only what a projection reads), upcast. */
  #toEvent<M extends ProjectedMetadata>(r: Omit<EventRow, 'metadata'>, metadata: M): Omit<StoredEvent, 'metadata'> & { metadata: M } {
    const event = rawEvent(r, metadata);
    return this.#upcast ? this.#upcast(event) : event;
  }
}

/** A row as an event, as stored. */
export function rawEvent<M extends ProjectedMetadata, D>(r: Omit<EventRow, 'metadata' | 'data'> & { data: D }, metadata: M): Omit<StoredEvent<D>, 'metadata'> & { metadata: M } {
  return {
    id: r.event_id,
    type: r.type,
    schemaVersion: r.schema_version,
    data: r.data,
    metadata,
    streamId: r.stream_id,
    revision: r.revision,
    position: { commit: BigInt(r.commit_pos), prepare: BigInt(r.prepare_pos) },
  };
}

async function currentRevision(db: Kysely<any> | Transaction<any>, streamId: string): Promise<number | null> {
  const rows = await sql<{ r: number | null }>`select max(revision) as r from events where stream_id = ${streamId}`.execute(db);
  const r = rows.rows[0]?.r;
  return r === null || r === undefined ? null : Number(r);
}

function matches(expected: ExpectedRevision, current: number | null): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return current === null;
  return current === expected;
}

/** A page of the log: visible events after a position, of the prefixes, in log order. */
const pageOf = (options: Pick<ReadAllOptions, 'after' | 'streamPrefixes' | 'limit'>): RawBuilder<unknown> =>
  sql`where ${VISIBLE} and ${afterCondition(options.after)} and ${prefixCondition(options.streamPrefixes)}
    order by transaction_id, global_position
    limit ${options.limit}`;

function afterCondition(after: LogPosition | undefined): RawBuilder<unknown> {
  if (!after || after.commit < 0n) return sql`true`;
  return sql`(transaction_id, global_position) > (${after.commit.toString()}::xid8, ${after.prepare.toString()}::bigint)`;
}

function prefixCondition(prefixes: string[] | undefined): RawBuilder<unknown> {
  if (!prefixes || prefixes.length === 0) return sql`true`;
  const likes = prefixes.map((p) => sql`stream_id like ${`${p.replace(/[\\%_]/g, '\\$&')}%`}`);
  return sql`(${sql.join(likes, sql` or `)})`;
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === UNIQUE_VIOLATION;
}

function constraintOf(error: unknown): string | undefined {
  const c = (error as { constraint?: unknown }).constraint;
  return typeof c === 'string' ? c : undefined;
}

/**
 * One LISTEN session per store, held only while it has subscriptions (see listenChannel: a dedicated
 * session, reopened after it breaks). Meanwhile subscriptions carry on with their fallback poll. Each
 * (re)connect fires the signal: whatever was appended while no session listened was announced to nobody.
 */
class NotificationListener {
  readonly #database: Database;
  readonly #signal: LocalSignal;
  #refs = 0;
  #channel: ChannelListener | null = null;

  constructor(database: Database, signal: LocalSignal) {
    this.#database = database;
    this.#signal = signal;
  }

  acquire(): void {
    this.#refs += 1;
    if (this.#channel) return;
    const fire = () => this.#signal.fire();
    this.#channel = listenChannel(this.#database, CHANNEL, { notify: fire, live: fire });
  }

  async release(): Promise<void> {
    this.#refs -= 1;
    if (this.#refs > 0) return;
    const channel = this.#channel;
    this.#channel = null;
    await channel?.close();
  }
}
