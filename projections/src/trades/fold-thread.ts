import { Worker } from 'node:worker_threads';
import type { BinaryType } from '@oj/infra/db/copy-binary';
import type { PackedRows } from '../runtime/projection.ts';
import { segmentTables, type SegmentTable } from './segment-fold.ts';
import type { CountDelta } from './tables.ts';

/**
 * The rebuild's fold worker, as the reading thread sees it (`fold-worker.ts` is the other side). The
 * reading thread reads the log packed (`PackedEvents`) and sorts its events into segments
 * (`bulkSegments`); the worker decodes the rows it is handed, parses each event's data, folds the
 * segments' lineages and encodes their rows for COPY. So the costliest parts of a rebuild's building
 * (the parse, the fold, the rows and their encoding, with their garbage: about 11 of the 16 s it took on
 * one thread for a million events) run beside the read and the writes instead of after them
 * (`docs/performance.md` has the figures).
 *
 * Messages keep their order, and every one names its segment: the next segment's events may reach the
 * worker before the last segment is written (the log is read while a segment is written). A segment's
 * chunks come back one at a time, each encoded when the reading thread has taken the one before it (a
 * window of `WINDOW` chunks), so that no more than that waits in memory for the COPY.
 */

/** Chunks encoded ahead of the COPY: 16 of about 256 KiB. */
export const WINDOW = 16;

export type ToWorker =
  | { t: 'add'; seg: number; bytes: ArrayBuffer; length: number; offsets: Int32Array }
  | { t: 'write'; seg: number; types: Record<SegmentTable, BinaryType[]>; window: number }
  | { t: 'credit'; seg: number };

export type FromWorker =
  | { t: 'chunk'; seg: number; table: number; bytes: ArrayBuffer; length: number; last: boolean }
  | { t: 'done'; seg: number; counts: CountDelta[] }
  | { t: 'error'; name: string; message: string; stack?: string };

type Chunk = Extract<FromWorker, { t: 'chunk' }>;

/**
 * Bytes to transfer to the other thread (sent with their length): their own buffer when they start it
 * and it is not a slice of Node's pool (a pool is `Buffer.poolSize`, a buffer of its own larger, or
 * made apart from it: `allocUnsafeSlow`), else a copy. A packed read's bytes and a COPY chunk
 * (`BinaryRows.take`) are handed over.
 */
export function transferable(bytes: Uint8Array): ArrayBuffer {
  const own = bytes.byteOffset === 0 && (bytes.buffer.byteLength > Buffer.poolSize || bytes.buffer.byteLength === bytes.byteLength);
  return (own ? bytes.buffer : Uint8Array.from(bytes).buffer) as ArrayBuffer;
}

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

  /** Hands events of a segment over to be folded: the rows' bytes go to the worker (transferred, not copied). */
  add(seg: number, rows: PackedRows): void {
    this.#check();
    const { bytes, offsets } = rows;
    const buffer = transferable(bytes);
    // The offsets' view travels with its buffer (`PackedRows`: the segment's from now on).
    this.#worker.postMessage({ t: 'add', seg, bytes: buffer, length: bytes.length, offsets } satisfies ToWorker, [buffer, offsets.buffer as ArrayBuffer]);
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
