import type { EventStore, JsonDataEvent, LogPosition, ReadAllOptions } from './port.ts';

/**
 * A read of the log packed as rows of COPY's binary format (PostgreSQL's documentation, "COPY: Binary
 * Format"), for a reader that sorts events by stream on one thread and decodes them on another: a
 * rebuild. The reading thread gets each event's stream and revision (what it sorts by) and the last
 * event's position (where the next read starts); the rows stay bytes, which move to the fold worker
 * without a copy (an `ArrayBuffer` transferred) and are decoded there. Read as objects, a million events
 * cost the reading thread about 9 s of CPU (the driver's rows, the events, the columns cloned for the
 * worker); packed, about 4 (`docs/performance.md`).
 *
 * Each row holds, in this order: stream id, revision, type, schema version, data (the JSON text stored,
 * neither parsed nor upcast, as `readAll`'s `data: 'json'`), the user id and the time recorded (the
 * metadata a projection reads; null when absent), the event id (as text), and the position (commit as an
 * unsigned and prepare as a signed 64-bit integer). PostgreSQL writes them with `COPY ... TO STDOUT`
 * (`PostgresEventStore.readAllPacked`); any other store's events are packed here (`packEvents`).
 */
export interface PackedEvents {
  /** The rows, with COPY's header and trailer: a buffer of its own (never a slice of Node's pool), so it can be transferred. */
  bytes: Buffer;
  /** Where each event's row starts in `bytes`. */
  offsets: Int32Array;
  streamIds: string[];
  revisions: Int32Array;
  /** The last event's position; null when the read is empty. */
  last: LogPosition | null;
}

/** What a rebuild reads: `readAll`'s options, without the shape (the data is always JSON text, the metadata a projection's). */
export type PackedReadOptions = Omit<ReadAllOptions, 'metadata' | 'data'>;

/** The fields of a packed row, in their order. */
const FIELDS = 10;
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** Signature, flags (32 bits), header extension length (32 bits, 0). */
const HEADER_LENGTH = SIGNATURE.length + 8;

/** A store's read packed: its own (`readAllPacked`, PostgreSQL) where it has one, else its events packed. */
export async function readPacked(store: EventStore, options: PackedReadOptions): Promise<PackedEvents> {
  return store.readAllPacked ? store.readAllPacked(options) : readAllAsPacked(store, options);
}

/** `readAll`'s events (projected metadata, data as JSON text) packed: a store's read without COPY. */
export const readAllAsPacked = async (store: Pick<EventStore, 'readAll'>, options: PackedReadOptions): Promise<PackedEvents> =>
  packEvents(await store.readAll({ ...options, metadata: 'projected', data: 'json' }));

/**
 * Indexes COPY's binary output of the rows above: each row's start, stream and revision, and the last
 * row's position. Fails on anything else (another signature, field count or layout), naming what.
 */
export function indexPacked(bytes: Buffer): PackedEvents {
  if (bytes.length < HEADER_LENGTH + 2 || !bytes.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error('Not COPY binary output: the signature is missing');
  if (bytes.readUInt32BE(SIGNATURE.length + 4) !== 0) throw new Error('COPY binary output with a header extension is not read here');
  const offsets: number[] = [];
  const streamIds: string[] = [];
  const revisions: number[] = [];
  let at = HEADER_LENGTH;
  for (;;) {
    const fields = bytes.readInt16BE(at);
    if (fields === -1) break;
    if (fields !== FIELDS) throw new Error(`A packed event has ${fields} fields, not ${FIELDS}`);
    offsets.push(at);
    at += 2;
    const idLength = bytes.readInt32BE(at);
    streamIds.push(bytes.toString('utf8', at + 4, at + 4 + idLength));
    at += 4 + idLength;
    revisions.push(bytes.readInt32BE(at + 4));
    for (let f = 1; f < FIELDS; f++) {
      const length = bytes.readInt32BE(at);
      at += 4 + Math.max(0, length);
    }
  }
  if (at + 2 !== bytes.length) throw new Error('COPY binary output goes on after its trailer');
  const lastAt = offsets.at(-1);
  return { bytes, offsets: Int32Array.from(offsets), streamIds, revisions: Int32Array.from(revisions), last: lastAt === undefined ? null : positionAt(bytes, lastAt) };
}

/** Events packed as the rows above (for a store without a packed read of its own). */
export function packEvents(events: readonly JsonDataEvent[]): PackedEvents {
  const texts = events.map((e) => [e.streamId, e.type, e.data, e.metadata.userId, e.metadata.recordedAt, e.id].map((s) => (s == null ? null : Buffer.from(s, 'utf8'))));
  let size = HEADER_LENGTH + 2;
  for (const t of texts) size += 2 + FIELDS * 4 + 4 + 4 + 16 + t.reduce((n, b) => n + (b?.length ?? 0), 0);
  const bytes = Buffer.allocUnsafeSlow(size);
  SIGNATURE.copy(bytes, 0);
  bytes.writeUInt32BE(0, SIGNATURE.length);
  bytes.writeUInt32BE(0, SIGNATURE.length + 4);
  let at = HEADER_LENGTH;
  const text = (b: Buffer | null) => {
    if (!b) return (at = bytes.writeInt32BE(-1, at));
    at = bytes.writeInt32BE(b.length, at);
    at += b.copy(bytes, at);
  };
  events.forEach((e, i) => {
    const [streamId, type, data, userId, recordedAt, id] = texts[i]!;
    at = bytes.writeInt16BE(FIELDS, at);
    text(streamId!);
    at = bytes.writeInt32BE(4, at);
    at = bytes.writeInt32BE(e.revision, at);
    text(type!);
    at = bytes.writeInt32BE(4, at);
    at = bytes.writeInt32BE(e.schemaVersion, at);
    text(data!);
    text(userId!);
    text(recordedAt!);
    text(id!);
    at = bytes.writeInt32BE(8, at);
    at = bytes.writeBigUInt64BE(e.position.commit, at);
    at = bytes.writeInt32BE(8, at);
    at = bytes.writeBigInt64BE(e.position.prepare, at);
  });
  bytes.writeInt16BE(-1, at);
  return indexPacked(bytes);
}

/** What a fold reads of a packed event (`unpackEvent` has the whole). */
export type PackedFoldEvent = Pick<JsonDataEvent, 'streamId' | 'revision' | 'type' | 'schemaVersion' | 'data' | 'metadata'>;

/** The event whose row starts at `offset`, without its id and position (what a fold reads). */
export const unpackFoldEvent = (bytes: Buffer, offset: number): PackedFoldEvent => foldFields(new RowReader(bytes, offset));

/** The event whose row starts at `offset`. */
export function unpackEvent(bytes: Buffer, offset: number): JsonDataEvent {
  const r = new RowReader(bytes, offset);
  const event = foldFields(r);
  const id = r.text();
  return { id, ...event, position: { commit: r.uint8(), prepare: r.int8() } };
}

/** A row's fields up to its id, read in their order. */
function foldFields(r: RowReader): PackedFoldEvent {
  const streamId = r.text();
  const revision = r.int4();
  const type = r.text();
  const schemaVersion = r.int4();
  const data = r.text();
  const userId = r.text();
  const recordedAt = r.text();
  return { streamId, revision, type, schemaVersion, data, metadata: { userId, recordedAt } };
}

/** The position of the row at `offset`: its last two fields. */
function positionAt(bytes: Buffer, offset: number): LogPosition {
  const r = new RowReader(bytes, offset);
  for (let f = 0; f < FIELDS - 2; f++) r.skip();
  return { commit: r.uint8(), prepare: r.int8() };
}

/** Reads a row's fields in order. A null text reads as null, as `readAll` hands over a missing metadata field. */
class RowReader {
  readonly #bytes: Buffer;
  #at: number;

  constructor(bytes: Buffer, offset: number) {
    this.#bytes = bytes;
    this.#at = offset + 2;
  }

  #field(size?: number): number {
    const length = this.#bytes.readInt32BE(this.#at);
    if (size !== undefined && length !== size) throw new Error(`A packed event's field is ${length} bytes, not ${size}`);
    const start = this.#at + 4;
    this.#at = start + Math.max(0, length);
    return length < 0 ? -1 : start;
  }

  skip(): void {
    this.#field();
  }

  text(): string {
    const start = this.#field();
    return start < 0 ? (null as unknown as string) : this.#bytes.toString('utf8', start, this.#at);
  }

  int4(): number {
    return this.#bytes.readInt32BE(this.#field(4));
  }

  int8(): bigint {
    return this.#bytes.readBigInt64BE(this.#field(8));
  }

  uint8(): bigint {
    return this.#bytes.readBigUInt64BE(this.#field(8));
  }
}
