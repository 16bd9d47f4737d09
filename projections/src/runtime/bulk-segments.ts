import { sql, type Kysely } from 'kysely';
import { bulkTransaction, compareKeys } from '@oj/infra/db/bulk';
import type { Database } from '@oj/infra/db/database';
import type { EventStore, JsonDataEvent, LogPosition } from '@oj/infra/eventstore/port';
import { readPacked, unpackEvent, type PackedEvents } from '@oj/infra/eventstore/packed';
import type { BulkRun, Projection } from './projection.ts';
import { guardRevisions, guardRowsOf, StreamRevisionError } from './apply.ts';
import { posParams } from './lanes.ts';

/** Events a segment folds in memory by default: about 0.5 GB of heap for the trades projection. */
export const DEFAULT_SEGMENT_EVENTS = 500_000;

/** The bulk pass of a rebuild: the version being built, from its checkpoint to the end of the log. */
export interface BulkPass {
  database: Database;
  eventStore: EventStore;
  projection: Projection;
  version: number;
  tables: Record<string, string>;
  guarded: { name: string; version: number; revisionGuard: boolean };
  prefixes: string[];
  batchSize: number;
  /** The rebuild's checkpoint: everything up to it is applied. */
  from: LogPosition;
  /** A killed rebuild is being resumed. */
  resumed: boolean;
  /** Events read (for progress). */
  onRead(events: number): void;
}

/** A segment's (or batch's) end as the rebuild's checkpoint, in the transaction that wrote it. */
export async function recordCheckpoint(trx: Kysely<any>, run: BulkPass, last: LogPosition, events: number): Promise<void> {
  const p = posParams(last);
  await sql`update projection_rebuilds set commit = ${p.commit}, prepare = ${p.prepare}, events_done = events_done + ${events}, updated_at = now()
    where projection = ${run.projection.name} and version = ${run.version}`.execute(trx);
}

/**
 * The bulk run of a projection that folds in memory (`bulkRun`): the log is read in batches (the
 * next one read while the last is folded) and folded a segment at a time. Each segment is written in ONE
 * transaction with its checkpoint, so a killed rebuild resumes at a segment's end with nothing of a later
 * segment written: the streams that begin in a segment have no rows yet, and the segment appends theirs
 * (COPY) with their guard rows, while the events of streams begun in an earlier segment are applied by
 * the segment on top of what was written, behind the stream guard. A segment is written while the next one is read and
 * folded (a write's transaction holds the store's visibility horizon back, so a short read during it is
 * read again after it). Returns the events applied.
 */
export async function bulkSegments(run: BulkPass, bulk: BulkRun, segmentEvents: number): Promise<BulkPassEnd> {
  const { database, eventStore, projection, version, tables, guarded, prefixes, batchSize } = run;
  // Only the metadata a projection reads, and the data unparsed, packed (`BulkSegment`).
  const read = (after: LogPosition) => readPacked(eventStore, { after, streamPrefixes: prefixes, limit: batchSize });
  let cursor = run.from;
  let next: Promise<PackedEvents> | null = null;
  let writing: Promise<void> | null = null;
  // A version resumed from a kill may hold rows past its checkpoint (partitions of an older rebuild's
  // batch committed apart from the checkpoint): until the first segment is written, a stream that looks
  // new is looked up in the guard, and one that has a row is continued, behind the guard.
  let mayHoldLater = run.resumed;
  let applied = 0;
  let ended = false;
  try {
    while (!ended) {
      const segment = bulk.segment();
      // Streams begun in this segment, by their last revision; the others' events, in log order.
      const begun = new Map<string, number>();
      const continued = new Set<string>();
      const carried: JsonDataEvent[] = [];
      let count = 0;
      let last: LogPosition | undefined;
      while (count < segmentEvents) {
        let events = next ? await next : await read(cursor);
        next = null;
        if (events.offsets.length < batchSize && writing) {
          await writing;
          writing = null;
          events = await read(cursor);
        }
        const tail = events.last;
        if (!tail) {
          ended = true;
          break;
        }
        const n = events.offsets.length;
        if (n === batchSize) {
          next = read(tail);
          next.catch(() => {}); // awaited next round; a failure first must not be unhandled
        } else ended = true;
        const { streamIds, revisions } = events;
        const held = mayHoldLater ? await heldStreams(run, events, begun, continued) : null;
        // The rows of the streams begun here go to the segment as they are (`BulkSegment.add`); the
        // others' are decoded here.
        const fresh = new Int32Array(n);
        let freshCount = 0;
        for (let i = 0; i < n; i++) {
          const streamId = streamIds[i]!;
          const revision = revisions[i]!;
          const r = begun.get(streamId);
          if (r !== undefined) {
            if (revision !== r + 1) throw new StreamRevisionError(projection.name, version, streamId, r + 1, revision);
            begun.set(streamId, revision);
            fresh[freshCount++] = events.offsets[i]!;
          } else if (revision === 0 && !continued.has(streamId) && !held?.has(streamId)) {
            begun.set(streamId, 0);
            fresh[freshCount++] = events.offsets[i]!;
          } else {
            continued.add(streamId);
            carried.push(unpackEvent(events.bytes, events.offsets[i]!));
          }
        }
        if (freshCount) segment.add({ bytes: events.bytes, offsets: fresh.subarray(0, freshCount) });
        count += n;
        last = tail;
        cursor = tail;
        run.onRead(n);
        // PGlite runs every statement on this thread and answers in microtasks: without a turn of the
        // event loop here, a console rebuild on the embedded default held every request (and its own
        // progress events) until the segment was written (QA: about 10 s for 37,830 events).
        if (database.kind === 'pglite') await new Promise<void>((resolve) => setImmediate(resolve));
        if (ended) break;
      }
      if (!last) break;
      const end = last;
      const events = count;
      if (writing) await writing;
      writing = bulkTransaction(
        database,
        async (t) => {
          const unapplied = await guardRevisions(t.trx, guarded, carried);
          await segment.write(t, tables, unapplied);
          await t.load(
            'projection_stream_revisions',
            ['projection', 'version', 'stream_id', 'revision'],
            // In the guard's key order (see `compareKeys`).
            [...begun].sort(([a], [b]) => compareKeys(a, b)).map(([stream_id, revision]) => ({ projection: projection.name, version, stream_id, revision })),
          );
          await recordCheckpoint(t.trx, run, end, events);
          applied += eventsOf(begun) + unapplied.length;
        },
        // Not live yet: a commit lost in a crash is written again from the checkpoint before it.
        { synchronousCommit: 'off' },
      );
      writing.catch(() => {}); // awaited before the next segment's write, or below
      mayHoldLater = false;
      if (database.kind === 'pglite') {
        // One connection: a read beside the write would wait for it anyway.
        await writing;
        writing = null;
      }
    }
    if (writing) await writing;
  } finally {
    // Nothing may outlive the rebuild's lock: a read-ahead or a write still in flight settles first.
    await Promise.allSettled([next, writing]);
  }
  return { applied, end: cursor };
}

/** What a bulk pass did: the events it applied, and the position it read the log to. */
export interface BulkPassEnd {
  applied: number;
  end: LogPosition;
}

/** Events of the streams begun in a segment: each stream's revisions from 0 to its last. */
const eventsOf = (begun: ReadonlyMap<string, number>): number => {
  let n = 0;
  for (const r of begun.values()) n += r + 1;
  return n;
};

/** Streams of a batch that look new to a resumed run but have a guard row in the version already. */
async function heldStreams(run: BulkPass, events: PackedEvents, begun: ReadonlyMap<string, number>, continued: ReadonlySet<string>): Promise<Set<string>> {
  const ids = [...new Set(events.streamIds.filter((s, i) => events.revisions[i] === 0 && !begun.has(s) && !continued.has(s)))];
  if (!ids.length) return new Set();
  const rows = await guardRowsOf(run.guarded, ids).execute(run.database.db);
  return new Set(rows.rows.map((r) => r.stream_id));
}

