import { parentPort } from 'node:worker_threads';
import { BinaryChunks, type BinaryChunk, type BinaryType } from '@oj/infra/db/copy-binary';
import { unpackFoldEvent } from '@oj/infra/eventstore/packed';
import { transferable, type FromWorker, type ToWorker } from './fold-thread.ts';
import { SegmentFold, segmentColumns, segmentTables, type FoldEvent, type SegmentRows, type SegmentTable } from './segment-fold.ts';
import type { CountDelta } from './tables.ts';

/**
 * The rebuild's fold worker (`fold-thread.ts` starts it and says why): folds each segment's events as
 * they come, and when a segment is written encodes its rows for COPY, a chunk per credit.
 */

const port = parentPort!;
const folds = new Map<number, SegmentFold>();
/** Segments being written: their chunks still to encode, and the credits (chunks the reader may be sent now). */
const writing = new Map<number, { chunks: Generator<Encoded, CountDelta[]>; credits: number }>();

interface Encoded {
  table: number;
  chunk: BinaryChunk;
  last: boolean;
}

/**
 * Messages not handled yet, in order. The earliest segment's go first, and a credit is handled as it
 * comes: a segment being written waits for its rows, while the next segment's fold can wait (the log is
 * read ahead while a segment is written, and its events would otherwise hold each chunk back).
 */
const queue: Exclude<ToWorker, { t: 'credit' }>[] = [];
let scheduled = false;

port.on('message', (m: ToWorker) => {
  if (m.t === 'credit') return guarded(() => send(m.seg, 1));
  queue.push(m);
  if (!scheduled) {
    scheduled = true;
    setImmediate(handleNext);
  }
});

/** Handles one queued message of the earliest segment, then lets the credits that came meanwhile in before the next. */
function handleNext(): void {
  let first = 0;
  for (let i = 1; i < queue.length; i++) if (queue[i]!.seg < queue[first]!.seg) first = i;
  const [m] = queue.splice(first, 1);
  if (m) guarded(() => handle(m));
  scheduled = queue.length > 0;
  if (scheduled) setImmediate(handleNext);
}

function handle(m: Exclude<ToWorker, { t: 'credit' }>): void {
  if (m.t === 'add') return foldOf(m.seg).add(eventsOf(m));
  const fold = foldOf(m.seg);
  folds.delete(m.seg);
  writing.set(m.seg, { chunks: encode(fold.rows(), m.types), credits: 0 });
  send(m.seg, m.window);
}

function guarded(f: () => void): void {
  try {
    f();
  } catch (e) {
    const error = e instanceof Error ? e : new Error(String(e));
    post({ t: 'error', name: error.name, message: error.message, ...(error.stack ? { stack: error.stack } : {}) });
  }
}

function foldOf(seg: number): SegmentFold {
  let fold = folds.get(seg);
  if (!fold) folds.set(seg, (fold = new SegmentFold()));
  return fold;
}

function* eventsOf(m: Extract<ToWorker, { t: 'add' }>): Generator<FoldEvent> {
  const bytes = Buffer.from(m.bytes, 0, m.length);
  for (const offset of m.offsets) yield unpackFoldEvent(bytes, offset);
}

/** Sends up to `credits` more chunks of a segment being written; its counts after its last chunk. */
function send(seg: number, credits: number): void {
  const w = writing.get(seg);
  // Credits for chunks taken after the last one was sent.
  if (!w) return;
  w.credits += credits;
  while (w.credits > 0) {
    const next = w.chunks.next();
    if (next.done) {
      writing.delete(seg);
      post({ t: 'done', seg, counts: next.value });
      return;
    }
    const { table, chunk, last } = next.value;
    // A chunk has a buffer of its own (`BinaryRows.take`): handed over, not copied.
    const bytes = transferable(chunk.bytes);
    post({ t: 'chunk', seg, table, bytes, length: chunk.bytes.byteLength, last }, [bytes]);
    w.credits--;
  }
}

function* encode(rows: SegmentRows, types: Record<SegmentTable, BinaryType[]>): Generator<Encoded, CountDelta[]> {
  // A chunk names its table by its place in `segmentTables`, the order the reading thread takes them in.
  for (const [table, name] of segmentTables.entries()) yield* encodeTable(table, rows[name], segmentColumns[name], types[name]);
  return rows.counts();
}

/** A table's rows, read by column name (`segmentColumns` names each table's). */
function* encodeTable(table: number, rows: Iterable<object>, columns: readonly string[], types: readonly BinaryType[]): Generator<Encoded> {
  const chunks = new BinaryChunks<Record<string, unknown>>(columns, types);
  for (const chunk of chunks.add(rows as Iterable<Record<string, unknown>>)) yield { table, chunk, last: false };
  yield { table, chunk: chunks.end(), last: true };
}

function post(message: FromWorker, transfer?: ArrayBuffer[]): void {
  port.postMessage(message, transfer);
}
