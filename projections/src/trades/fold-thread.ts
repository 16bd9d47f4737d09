import { Worker } from 'node:worker_threads';
import type { BinaryType } from '@oj/infra/db/copy-binary';
import type { JsonDataEvent } from '@oj/infra/eventstore/port';
import { segmentTables, type SegmentTable } from './segment-fold.ts';
import type { CountDelta } from './tables.ts';

/**
 * The rebuild's fold worker, as the reading thread sees it (`fold-worker.ts` is the other side). The
 * reading thread reads the log and sorts its events into segments (`bulkSegments`); the worker parses
 * each event's data, folds the segments' lineages and encodes their rows for COPY. So the costliest parts
 * of a rebuild's building (the parse, the fold, the rows and their encoding, with their garbage: about 11
 * of the 16 s it took on one thread for a million events) run beside the read and the writes instead of
 * after them (`docs/performance.md` has the figures).
 *
 * Messages keep their order, and every one names its segment: the next segment's events may reach the
 * worker before the last segment is written (the log is read while a segment is written). A segment's
 * chunks come back one at a time, each encoded when the reading thread has taken the one before it (a
 * window of `WINDOW` chunks), so that no more than that waits in memory for the COPY.
 */

/** Chunks encoded ahead of the COPY: 16 of about 256 KiB. */
export const WINDOW = 16;

/** A batch of a segment's events as columns (what the fold reads of each): a few arrays to clone, not an object per event. */
export interface EventColumns {
  streamId: string[];
  revision: number[];
  type: string[];
  schemaVersion: number[];
  data: string[];
  userId: string[];
  recordedAt: string[];
}

export type ToWorker =
  | { t: 'add'; seg: number; events: EventColumns }
  | { t: 'write'; seg: number; types: Record<SegmentTable, BinaryType[]>; window: number }
  | { t: 'credit'; seg: number };

export type FromWorker =
  | { t: 'chunk'; seg: number; table: number; bytes: ArrayBuffer; length: number; last: boolean }
  | { t: 'done'; seg: number; counts: CountDelta[] }
  | { t: 'error'; name: string; message: string; stack?: string };

type Chunk = Extract<FromWorker, { t: 'chunk' }>;

/** A segment being written: its chunks as they arrive, then its counts. */
class Receiver {
  readonly chunks: Chunk[] = [];
  counts: CountDelta[] | null = null;
  wake: (() => void) | null = null;
}

export class FoldThread {
  readonly #worker: Worker;
  readonly #receivers = new Map<number, Receiver>();
  #failure: Error | null = null;
  #closing = false;

  constructor() {
    this.#worker = new Worker(new URL('./fold-worker.ts', import.meta.url));
    this.#worker.on('message', (m: FromWorker) => this.#receive(m));
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', (code) => {
      if (!this.#closing) this.#fail(new Error(`The rebuild's fold worker exited with code ${code}`));
    });
  }

  /** Sends events of a segment to be folded. */
  add(seg: number, events: readonly JsonDataEvent[]): void {
    this.#check();
    const columns: EventColumns = { streamId: [], revision: [], type: [], schemaVersion: [], data: [], userId: [], recordedAt: [] };
    for (const e of events) {
      columns.streamId.push(e.streamId);
      columns.revision.push(e.revision);
      columns.type.push(e.type);
      columns.schemaVersion.push(e.schemaVersion);
      columns.data.push(e.data);
      columns.userId.push(e.metadata.userId);
      columns.recordedAt.push(e.metadata.recordedAt);
    }
    this.#post({ t: 'add', seg, events: columns });
  }

  /**
   * Has the segment's rows encoded for `types`; returns each table's chunks (to be taken in the order
   * of `segmentTables`), then the segment's count deltas.
   */
  write(seg: number, types: Record<SegmentTable, BinaryType[]>): { table(name: SegmentTable): AsyncIterable<Uint8Array>; counts(): Promise<CountDelta[]> } {
    this.#check();
    const receiver = new Receiver();
    this.#receivers.set(seg, receiver);
    this.#post({ t: 'write', seg, types, window: WINDOW });
    const next = async (): Promise<void> => {
      for (;;) {
        this.#check();
        if (receiver.chunks.length || receiver.counts) return;
        await new Promise<void>((resolve) => (receiver.wake = resolve));
      }
    };
    const credit = () => this.#post({ t: 'credit', seg });
    return {
      table: async function* (name: SegmentTable) {
        const table = segmentTables.indexOf(name);
        for (;;) {
          await next();
          const chunk = receiver.chunks.shift();
          if (!chunk || chunk.table !== table) throw new Error(`The fold worker sent segment ${seg}'s rows out of order (waiting for ${name})`);
          credit();
          yield new Uint8Array(chunk.bytes, 0, chunk.length);
          if (chunk.last) return;
        }
      },
      counts: async () => {
        await next();
        if (!receiver.counts || receiver.chunks.length) throw new Error(`The fold worker sent segment ${seg}'s counts before its rows were taken`);
        this.#receivers.delete(seg);
        return receiver.counts;
      },
    };
  }

  /** Chunks of a segment being written that have arrived and wait to be taken: never more than `WINDOW`. */
  waiting(seg: number): number {
    return this.#receivers.get(seg)?.chunks.length ?? 0;
  }

  /** Ends the worker (whatever it was doing: the run is over). */
  async close(): Promise<void> {
    this.#closing = true;
    await this.#worker.terminate();
    this.#fail(new Error("The rebuild's fold worker is closed"));
  }

  #post(message: ToWorker): void {
    this.#worker.postMessage(message);
  }

  #receive(m: FromWorker): void {
    if (m.t === 'error') {
      const error = new Error(m.message);
      error.name = m.name;
      if (m.stack) error.stack = m.stack;
      return this.#fail(error);
    }
    const receiver = this.#receivers.get(m.seg);
    if (!receiver) return this.#fail(new Error(`The fold worker answered for segment ${m.seg}, which is not being written`));
    if (m.t === 'chunk') receiver.chunks.push(m);
    else receiver.counts = m.counts;
    receiver.wake?.();
    receiver.wake = null;
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const r of this.#receivers.values()) r.wake?.();
  }

  #check(): void {
    if (this.#failure) throw this.#failure;
  }
}
