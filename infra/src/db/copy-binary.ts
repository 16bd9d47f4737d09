import { epochDay } from '@oj/contracts/business-date';

/**
 * Rows in COPY's binary format (PostgreSQL's documentation, "COPY: Binary Format"): a header, then per
 * row a 16-bit field count and per field a 32-bit length (-1 for null) and the value in the type's own
 * binary form, then a trailer. A rebuild writes about a million rows of numbers and dates: in the text
 * format each is printed by Node and parsed again by PostgreSQL (a double's shortest form both ways);
 * here a double is its eight bytes and a date its day number.
 *
 * Only the types below are encoded; a table with a column of any other type is loaded as text. A value
 * must be what its column holds (a number for a double, a whole number for an integer, a `YYYY-MM-DD`
 * string for a date): anything else is refused, naming the column, rather than converted.
 */
export type BinaryType = 'text' | 'json' | 'jsonb' | 'float8' | 'int2' | 'int4' | 'int8' | 'bool' | 'date';

/** The binary-encoded types by their PostgreSQL type oid. */
export const binaryTypeOids: Readonly<Record<number, BinaryType>> = {
  25: 'text',
  1043: 'text',
  114: 'json',
  3802: 'jsonb',
  701: 'float8',
  21: 'int2',
  23: 'int4',
  20: 'int8',
  16: 'bool',
  1082: 'date',
};

const HEADER = Buffer.from([0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]);
const TRAILER = Buffer.from([0xff, 0xff]);
/** Days from 1970-01-01 (`epochDay`) to 2000-01-01, PostgreSQL's date epoch. */
const PG_EPOCH_DAYS = 10_957;
const CHUNK = 256 * 1024;

/**
 * A value as COPY's text format would print it (without its escapes), for text and JSON columns:
 * numbers and booleans as PostgreSQL reads them, dates as ISO text, other objects as JSON.
 */
export function textOf(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
      return String(v);
    case 'boolean':
      return v ? 't' : 'f';
    case 'bigint':
      return v.toString();
    case 'object':
      if (v !== null) return v instanceof Date ? v.toISOString() : JSON.stringify(v);
  }
  throw new Error(`Cannot write a ${v === null ? 'null' : typeof v} as text in a COPY row`);
}

/** Writes rows into buffers of about 256 KiB; `take` hands out what is written. */
export class BinaryRows {
  readonly #columns: readonly string[];
  #buf = Buffer.allocUnsafe(CHUNK);
  #at = 0;
  /** The field of the row being written (for errors). */
  #field = 0;

  /** `columns`: the rows' columns in order, named in errors. */
  constructor(columns: readonly string[]) {
    this.#columns = columns;
    this.#raw(HEADER);
  }

  /** Starts a row. */
  row(): void {
    this.#room(2);
    this.#at = this.#buf.writeInt16BE(this.#columns.length, this.#at);
    this.#field = -1;
  }

  /** Moves to the next field: writes a null and answers false when `v` is absent. */
  #next(v: unknown): boolean {
    this.#field++;
    if (v !== null && v !== undefined) return true;
    this.#room(4);
    this.#at = this.#buf.writeInt32BE(-1, this.#at);
    return false;
  }

  /** Room for a field of `bytes` bytes, and its length written: the value goes at `#at`. */
  #fixed(bytes: number): void {
    this.#room(4 + bytes);
    this.#at = this.#buf.writeInt32BE(bytes, this.#at);
  }

  text(v: unknown, jsonb = false): void {
    if (!this.#next(v)) return;
    const s = textOf(v);
    const prefix = jsonb ? 1 : 0;
    // At most three bytes per UTF-16 unit.
    const most = s.length * 3 + prefix;
    this.#room(4 + most);
    const start = this.#at + 4;
    if (jsonb) this.#buf[start] = 1;
    const n = this.#buf.write(s, start + prefix, most - prefix, 'utf8');
    this.#buf.writeInt32BE(n + prefix, this.#at);
    this.#at = start + prefix + n;
  }

  json(v: unknown): void {
    this.text(v);
  }

  jsonb(v: unknown): void {
    this.text(v, true);
  }

  float8(v: unknown): void {
    if (!this.#next(v)) return;
    if (typeof v !== 'number') throw this.#refuse(v, 'a number');
    this.#fixed(8);
    // -0 as 0, as the text format prints it (String(-0) is "0"): a live version's rows, written through
    // JSON, never hold -0, and a rebuild must write what they hold.
    this.#at = this.#buf.writeDoubleBE(v === 0 ? 0 : v, this.#at);
  }

  int2(v: unknown): void {
    if (!this.#next(v)) return;
    const n = this.#whole(v, 16);
    this.#fixed(2);
    this.#at = this.#buf.writeInt16BE(n, this.#at);
  }

  int4(v: unknown): void {
    if (!this.#next(v)) return;
    const n = this.#whole(v, 32);
    this.#fixed(4);
    this.#at = this.#buf.writeInt32BE(n, this.#at);
  }

  /** `v` when it is a whole number that fits in `bits` bits (signed), else an error naming the column. */
  #whole(v: unknown, bits: 16 | 32): number {
    const limit = 2 ** (bits - 1);
    if (!Number.isInteger(v) || (v as number) < -limit || (v as number) >= limit) throw this.#refuse(v, `a whole number of ${bits} bits`);
    return v as number;
  }

  int8(v: unknown): void {
    if (!this.#next(v)) return;
    const big = typeof v === 'bigint' ? v : Number.isSafeInteger(v) ? BigInt(v as number) : null;
    if (big === null || big < -(2n ** 63n) || big >= 2n ** 63n) throw this.#refuse(v, 'a whole number of 64 bits');
    this.#fixed(8);
    this.#at = this.#buf.writeBigInt64BE(big, this.#at);
  }

  bool(v: unknown): void {
    if (!this.#next(v)) return;
    if (typeof v !== 'boolean') throw this.#refuse(v, 'a boolean');
    this.#fixed(1);
    this.#at = this.#buf.writeUInt8(v ? 1 : 0, this.#at);
  }

  date(v: unknown): void {
    if (!this.#next(v)) return;
    const day = typeof v === 'string' ? epochDay(v) : null;
    if (day === null) throw this.#refuse(v, 'a YYYY-MM-DD date');
    this.#fixed(4);
    this.#at = this.#buf.writeInt32BE(day - PG_EPOCH_DAYS, this.#at);
  }

  /** Ends the data (the trailer). */
  end(): void {
    this.#raw(TRAILER);
  }

  /** Whether what is written since the last take makes a chunk (about 256 KiB). */
  get full(): boolean {
    return this.#at >= CHUNK;
  }

  /** What is written so far, as a buffer of its own; the next rows go into a new one. */
  take(): Buffer {
    const out = this.#buf.subarray(0, this.#at);
    this.#buf = Buffer.allocUnsafe(CHUNK);
    this.#at = 0;
    return out;
  }

  #raw(bytes: Buffer): void {
    this.#room(bytes.length);
    this.#at += bytes.copy(this.#buf, this.#at);
  }

  /** Makes room for `n` more bytes: a larger buffer, keeping what is written (taken out at the next take). */
  #room(n: number): void {
    if (this.#at + n <= this.#buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#at + n));
    this.#buf.copy(bigger, 0, 0, this.#at);
    this.#buf = bigger;
  }

  #refuse(v: unknown, wanted: string): Error {
    const shown = typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : typeof v === 'object' ? 'an object' : String(v);
    return new Error(`Column ${this.#columns[this.#field]}: COPY needs ${wanted}, got ${shown}`);
  }
}

const encoders = new Map<string, (row: never, out: BinaryRows) => void>();

/**
 * A row's fields written by their columns' types, compiled once per (columns, types): `row.a`, `row.b`,
 * ... as fixed property reads (see `lineEncoder` in bulk.ts).
 */
export function binaryRowEncoder<R extends object>(columns: readonly (keyof R & string)[], types: readonly BinaryType[]): (row: R, out: BinaryRows) => void {
  const key = columns.map((c, i) => `${c}:${types[i]}`).join('\u0000');
  let encode = encoders.get(key) as ((row: R, out: BinaryRows) => void) | undefined;
  if (!encode) {
    const body = columns.map((c, i) => `out.${types[i]}(row[${JSON.stringify(c)}]);`).join('\n');
    encode = new Function(`return function binaryRow(row, out) { out.row();\n${body} };`)() as (row: R, out: BinaryRows) => void;
    encoders.set(key, encode as (row: never, out: BinaryRows) => void);
  }
  return encode;
}

/** A chunk of rows in COPY's binary format: its bytes, and how many rows they hold. */
export interface BinaryChunk {
  bytes: Buffer;
  rows: number;
}

/**
 * Rows to COPY's binary format in chunks of about 256 KiB (a chunk is one write to the socket): the
 * header in the first chunk, the trailer in the last (`end`).
 */
export class BinaryChunks<R extends object> {
  readonly #encode: (row: R, out: BinaryRows) => void;
  readonly #out: BinaryRows;
  #rows = 0;

  constructor(columns: readonly (keyof R & string)[], types: readonly BinaryType[]) {
    this.#encode = binaryRowEncoder(columns, types);
    this.#out = new BinaryRows(columns);
  }

  /** Encodes `rows`, yielding each chunk as it fills. */
  *add(rows: Iterable<R>): Generator<BinaryChunk> {
    const out = this.#out;
    for (const row of rows) {
      this.#encode(row, out);
      this.#rows++;
      if (out.full) yield this.#take();
    }
  }

  /** The last chunk: what is left, and the trailer. */
  end(): BinaryChunk {
    this.#out.end();
    return this.#take();
  }

  #take(): BinaryChunk {
    const chunk = { bytes: this.#out.take(), rows: this.#rows };
    this.#rows = 0;
    return chunk;
  }
}
