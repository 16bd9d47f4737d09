import { comparePositions, START, type EventStore, type LogPosition, type ProjectedEvent } from './port.ts';

/**
 * Streams read whole, one batch of streams at a time, for a reader that folds each stream on its own
 * and can act on a stream as soon as it has all of it: a one-user recompute folds a user's lineages and
 * writes their rows while the rest are still being read. In log order no stream is known to be whole
 * until the read ends, so nothing can be written before it (a heavy user's 155,000 events: about 2 s).
 */
export interface ByStreamReadOptions {
  /** The streams whose ids start with one of these (escaped as in `readAll`: a prefix, never a pattern). */
  streamPrefixes: string[];
  /** Inclusive: only events at or before this position. */
  upTo?: LogPosition;
  /** Events per read (default 10,000); a batch holds about as many. */
  batch?: number;
}

/** Events per read of `readByStream` unless the caller says. */
export const BY_STREAM_BATCH = 10_000;

/**
 * The visible events of the streams with these prefixes (at or before `upTo`), a batch at a time. Each
 * batch holds whole streams, each stream's events in revision order and together; every stream is in
 * exactly one batch; the streams come in no promised order. The store's own read where it has one
 * (PostgreSQL: one query in stream order, read by a cursor), else the log read in log order and
 * grouped by stream, which can only hand over everything once the read has ended.
 */
export function readByStream(store: EventStore, options: ByStreamReadOptions): AsyncIterable<ProjectedEvent[]> {
  return store.readByStream ? store.readByStream(options) : readByStreamFromLog(store, options);
}

/** `readByStream` from `readAll`: the whole read, grouped by stream, as one batch. */
export async function* readByStreamFromLog(store: Pick<EventStore, 'readAll'>, options: ByStreamReadOptions): AsyncGenerator<ProjectedEvent[]> {
  const limit = options.batch ?? BY_STREAM_BATCH;
  const events: ProjectedEvent[] = [];
  let after = START;
  for (;;) {
    const page = await store.readAll({ after, streamPrefixes: options.streamPrefixes, limit, metadata: 'projected' });
    let past = false;
    for (const e of page) {
      if (options.upTo && comparePositions(e.position, options.upTo) > 0) {
        past = true;
        break;
      }
      events.push(e);
    }
    const last = page.at(-1);
    if (past || !last || page.length < limit) break;
    after = last.position;
  }
  if (events.length) yield groupByStream(events);
}

/** Events in log order regrouped by stream: each stream's events together (in the order of the streams' first events), each in the order given. */
export function groupByStream<E extends ProjectedEvent>(events: readonly E[]): E[] {
  const streams = new Map<string, E[]>();
  for (const e of events) {
    const stream = streams.get(e.streamId);
    if (stream) stream.push(e);
    else streams.set(e.streamId, [e]);
  }
  return [...streams.values()].flat();
}

/**
 * Regroups events read in stream order (each stream's events together, in revision order) into
 * batches of whole streams: a read cut mid-stream keeps that stream's events for the next batch.
 */
export class WholeStreams {
  #tail: ProjectedEvent[] = [];

  /** The whole streams among what was read so far (the last stream is held back: more may follow). */
  take(events: readonly ProjectedEvent[]): ProjectedEvent[] {
    if (!events.length) return [];
    const lastStream = events.at(-1)!.streamId;
    let cut = events.length;
    while (cut > 0 && events[cut - 1]!.streamId === lastStream) cut--;
    const tailContinues = this.#tail.length > 0 && this.#tail[0]!.streamId === lastStream && cut === 0;
    if (tailContinues) {
      this.#tail.push(...events);
      return [];
    }
    const out = this.#tail;
    for (let i = 0; i < cut; i++) out.push(events[i]!);
    this.#tail = events.slice(cut);
    return out;
  }

  /** What is left once the read has ended: the last stream. */
  rest(): ProjectedEvent[] {
    const out = this.#tail;
    this.#tail = [];
    return out;
  }
}
