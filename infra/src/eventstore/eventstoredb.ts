import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START as ESDB_START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type JSONType,
  type Position,
  type ResolvedEvent,
} from '@eventstore/db-client';
import type { EventMetadata } from '@oj/contracts/events';
import { assertEventIds, canonicalUuid } from './event-ids.ts';
import { assertSupported, filteredReadAll } from './eventstoredb-filtered-read.ts';
import {
  WrongExpectedRevisionError,
  comparePositions,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type JsonDataEvent,
  type LogPosition,
  type NewEvent,
  type ProjectedEvent,
  type ReadAllOptions,
  type StoredEvent,
  type SubscribeOptions,
  type Subscription,
  type Upcast,
} from './port.ts';

/**
 * The event store on EventStoreDB / KurrentDB (production, clusters). Its log positions are ours
 * ({commit, prepare}); its optimistic concurrency is ours (expected revision); and because our event ids
 * are passed as its event ids, a retried command's append is recognised by the server and not written
 * twice. Our schema version and metadata ride in the event's metadata.
 */
export interface EventStoreDbOptions {
  upcast?: Upcast;
}

interface StoredMetadata extends EventMetadata {
  schemaVersion: number;
  $correlationId?: string;
  $causationId?: string;
}

export class EventStoreDbEventStore implements EventStore {
  readonly kind = 'eventstoredb' as const;
  readonly #client: EventStoreDBClient;
  readonly #upcast: Upcast | undefined;
  readonly #subscriptions = new Set<Subscription>();

  constructor(client: EventStoreDBClient, options: EventStoreDbOptions = {}) {
    this.#client = client;
    this.#upcast = options.upcast;
  }

  static connect(url: string, options: EventStoreDbOptions = {}): EventStoreDbEventStore {
    const client = EventStoreDBClient.connectionString(clientUrl(url));
    assertSupported(client);
    return new EventStoreDbEventStore(client, options);
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    assertEventIds(streamId, events.map((e) => e.id));
    const expectedRevision: AppendExpectedRevision = expected === 'any' ? ANY : expected === 'no_stream' ? NO_STREAM : BigInt(expected);
    const data = events.map((e) => {
      const metadata: StoredMetadata = {
        ...e.metadata,
        schemaVersion: e.schemaVersion,
        // The server's own correlation conventions ($by_correlation_id and friends).
        $correlationId: e.metadata.correlationId,
        ...(e.metadata.causationId ? { $causationId: e.metadata.causationId } : {}),
      };
      return jsonEvent({ id: canonicalUuid(e.id), type: e.type, data: (e.data ?? null) as JSONType, metadata });
    });
    let revision: bigint;
    let reported: Position | undefined;
    try {
      const result = await this.#client.appendToStream(streamId, data, { expectedRevision });
      revision = result.nextExpectedRevision;
      reported = result.position;
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const reported = error.actualVersion;
        const actual = typeof reported === 'bigint' && reported >= 0n ? Number(reported) : reported === NO_STREAM || reported === -1n ? 'no_stream' : await this.#lastRevision(streamId);
        throw new WrongExpectedRevisionError(streamId, expected, actual);
      }
      throw error;
    }
    // Answer the last event's own revision and position, as readers will see it. A fresh append of one
    // event is answered exactly by the server: the write's commit position is that event's log position,
    // and an event written alone is its own transaction, so readers see it at (p, p). A batch's reported
    // position is the write's, not its last event's (WriteEvents answers its commit position twice), and
    // an idempotent retry reports none: then read the one event at the answered revision.
    if (reported && events.length === 1) return { nextExpectedRevision: Number(revision), position: { commit: reported.commit, prepare: reported.prepare } };
    const lastId = canonicalUuid(events.at(-1)!.id);
    const last = await this.#locate(streamId, revision, lastId);
    if (!last?.position) throw new Error(`Append to ${streamId}: event ${lastId} is not at revision ${revision} where the server answered it`);
    return { nextExpectedRevision: Number(last.revision), position: { commit: last.position.commit, prepare: last.position.prepare } };
  }

  async #lastRevision(streamId: string): Promise<number | 'no_stream'> {
    try {
      const read = this.#client.readStream(streamId, { fromRevision: END, direction: BACKWARDS, maxCount: 1 });
      for await (const resolved of read as AsyncIterable<ResolvedEvent>) {
        if (resolved.event) return Number(resolved.event.revision);
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return 'no_stream';
  }

  /**
   * The event at `revision` when it has this id. The server answers an append (fresh or idempotent) with
   * the revision of its last event, so one event is read, not a page.
   */
  async #locate(streamId: string, revision: bigint, id: string): Promise<RecordedWithPosition | undefined> {
    const [event] = await this.#readStreamRaw(streamId, revision, 1);
    return event && event.id === id ? event : undefined;
  }

  async readStream(streamId: string, range: { from?: number; to?: number } = {}): Promise<StoredEvent[]> {
    const from = range.from ?? 0;
    if (range.to !== undefined && range.to < from) return [];
    const count = range.to === undefined ? undefined : range.to - from + 1;
    const recorded = await this.#readStreamRaw(streamId, BigInt(from), count);
    return recorded.map((r) => this.#toEvent(r));
  }

  async #readStreamRaw(streamId: string, from: bigint, count: number | undefined): Promise<RecordedWithPosition[]> {
    const out: RecordedWithPosition[] = [];
    try {
      const read = this.#client.readStream(streamId, { fromRevision: from, direction: FORWARDS, ...(count !== undefined ? { maxCount: count } : {}) });
      for await (const resolved of read as AsyncIterable<ResolvedEvent>) {
        if (resolved.event) out.push(resolved.event as RecordedWithPosition);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return out;
  }

  readAll(options: ReadAllOptions & { metadata: 'projected'; data: 'json' }): Promise<JsonDataEvent[]>;
  readAll(options: ReadAllOptions & { metadata: 'projected' }): Promise<ProjectedEvent[]>;
  readAll(options: ReadAllOptions): Promise<StoredEvent[]>;
  async readAll(options: ReadAllOptions): Promise<ProjectedEvent<unknown>[]> {
    if (options.data === 'json' && options.metadata !== 'projected') throw new Error("readAll: data: 'json' is read with metadata: 'projected'");
    // The client has parsed the data already: `data: 'json'` prints it again, as stored (not upcast).
    const toEvent = options.data === 'json' ? (e: RecordedWithPosition) => this.#asStored(e, 'json') : (e: RecordedWithPosition) => this.#toEvent(e);
    const prefixes = options.streamPrefixes && options.streamPrefixes.length > 0 ? { streamPrefixes: options.streamPrefixes } : {};
    let after = options.after && options.after.commit >= 0n ? options.after : null;
    const out: StoredEvent[] = [];
    // Filtered on the server (stream-name prefixes, or no system event types), so a poll reads what it
    // returns. $all reads include their start position: one more is asked for and the event at `after`
    // is dropped. A record the server let through and this side drops (a `$`-stream event whose type has
    // no `$`, such as $settings') must not make the page look short, which readers take for the end: then
    // the read goes on from it.
    for (;;) {
      const maxCount = options.limit - out.length + (after ? 1 : 0);
      const read = filteredReadAll(this.#client, { from: after ? { commit: after.commit, prepare: after.prepare } : 'start', direction: 'forwards', maxCount, ...prefixes });
      let returned = 0;
      let dropped = false;
      for await (const resolved of read) {
        returned += 1;
        const event = resolved.event;
        if (!event) continue;
        if (!event.position) throw new Error(`Event ${event.id} in ${event.streamId}: the server reported no position (EventStoreDB 22.6 or later is needed)`);
        if (after && comparePositions(event.position, after) <= 0) continue;
        after = { commit: event.position.commit, prepare: event.position.prepare };
        if (isSystem(event.streamId, event.type) || !matchesPrefixes(event.streamId, options.streamPrefixes)) dropped = true;
        else if (out.length < options.limit) out.push(toEvent(event));
      }
      if (!dropped || returned < maxCount || out.length >= options.limit) return out;
    }
  }

  async head(): Promise<LogPosition | null> {
    // The newest non-system event, found by the server (a backwards filtered read of one).
    const read = filteredReadAll(this.#client, { from: 'end', direction: 'backwards', maxCount: 1 });
    for await (const resolved of read) {
      const event = resolved.event;
      if (!event || isSystem(event.streamId, event.type)) continue;
      if (!event.position) throw new Error(`Event ${event.id} in ${event.streamId}: the server reported no position (EventStoreDB 22.6 or later is needed)`);
      return { commit: event.position.commit, prepare: event.position.prepare };
    }
    return null;
  }

  subscribe(options: SubscribeOptions): Subscription {
    const after = options.after && options.after.commit >= 0n ? options.after : null;
    const prefixes = options.streamPrefixes;
    const filter = prefixes && prefixes.length > 0 ? streamNameFilter({ prefixes }) : excludeSystemEvents();
    // fromPosition is exclusive for subscriptions: delivery starts with the event after it.
    const source = this.#client.subscribeToAll({ fromPosition: after ? { commit: after.commit, prepare: after.prepare } : ESDB_START, filter });
    let closing: Promise<void> | null = null;
    const close = (): Promise<void> => {
      closing ??= source
        .unsubscribe()
        .catch(() => {})
        .finally(() => this.#subscriptions.delete(subscription));
      return closing;
    };
    const toEvent = (e: AllStreamResolvedEvent['event'] & object) => this.#toEvent(e);
    async function* run(): AsyncGenerator<StoredEvent> {
      let last = after;
      try {
        for await (const resolved of source as AsyncIterable<AllStreamResolvedEvent>) {
          const event = resolved.event;
          if (!event) continue;
          if (last && comparePositions(event.position, last) <= 0) continue;
          last = event.position;
          if (isSystem(event.streamId, event.type) || !matchesPrefixes(event.streamId, prefixes)) continue;
          yield toEvent(event);
        }
      } finally {
        await close();
      }
    }
    const iterator = run();
    const subscription: Subscription = { [Symbol.asyncIterator]: () => iterator, close };
    this.#subscriptions.add(subscription);
    return subscription;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#subscriptions].map((s) => s.close()));
    await this.#client.dispose();
  }

  #toEvent(recorded: RecordedWithPosition): StoredEvent {
    const event = this.#asStored(recorded);
    return this.#upcast ? this.#upcast(event) : event;
  }

  /** The event as stored (`data: 'json'`: its data as JSON text). */
  #asStored(recorded: RecordedWithPosition): StoredEvent;
  #asStored(recorded: RecordedWithPosition, json: 'json'): StoredEvent<string>;
  #asStored(recorded: RecordedWithPosition, json?: 'json'): StoredEvent<unknown> {
    const { schemaVersion, $correlationId: _c, $causationId: _k, ...metadata } = (recorded.metadata ?? {}) as Partial<StoredMetadata>;
    if (!recorded.position) throw new Error(`Event ${recorded.id} in ${recorded.streamId}: the server reported no position (EventStoreDB 22.6 or later is needed)`);
    const event: StoredEvent = {
      id: recorded.id,
      type: recorded.type,
      schemaVersion: typeof schemaVersion === 'number' ? schemaVersion : 1,
      data: json ? JSON.stringify(recorded.data) : recorded.data,
      metadata: metadata as EventMetadata,
      streamId: recorded.streamId,
      revision: Number(recorded.revision),
      position: { commit: recorded.position.commit, prepare: recorded.position.prepare },
    };
    return event;
  }
}

type RecordedWithPosition = NonNullable<ResolvedEvent['event']>;

/** System records ($-streams: metadata, stats, projections' links) are the server's, never ours. */
function isSystem(streamId: string, type: string): boolean {
  return streamId.startsWith('$') || type.startsWith('$');
}

function matchesPrefixes(streamId: string, prefixes: string[] | undefined): boolean {
  return !prefixes || prefixes.length === 0 || prefixes.some((p) => streamId.startsWith(p));
}

/** KurrentDB's URL schemes name the same protocol; this client only parses the esdb ones. */
function clientUrl(url: string): string {
  return url.replace(/^(kurrentdb|kdb)(\+discover)?:\/\//, (_m, _s: string, discover: string | undefined) => `esdb${discover ?? ''}://`);
}
