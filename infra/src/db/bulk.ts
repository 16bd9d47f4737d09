import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import copyStreams from 'pg-copy-streams';
import type { Database } from './database.ts';
import { BinaryChunks, binaryTypeOids, textOf, type BinaryChunk, type BinaryType } from './copy-binary.ts';

/**
 * A transaction that can load rows in bulk: `COPY ... FROM STDIN` on PostgreSQL (nothing is planned per
 * row; in COPY's binary format where every column's type allows, else its tab-separated text, either
 * several times cheaper than a JSON parameter of the same rows), multi-row inserts on PGlite (one
 * connection, small embedded logs).
 */
export interface BulkTransaction {
  /** Every other statement of the transaction. */
  trx: Kysely<any>;
  /** Appends `rows` to `table` (only `columns`, in that order); returns how many. */
  load<R extends object>(table: string, columns: readonly (keyof R & string)[], rows: Rows<R>): Promise<number>;
  /**
   * PostgreSQL only (PGlite has no COPY): rows encoded elsewhere, in a worker thread, in COPY's binary
   * format (`copy-binary.ts`).
   */
  binary?: BinaryCopy;
}

/** COPY of rows encoded elsewhere: the columns' types to encode them for, then the encoded chunks. */
export interface BinaryCopy {
  /** The columns' types, or null when one has no binary encoding here (`binaryTypeOids`). */
  types(table: string, columns: readonly string[]): Promise<BinaryType[] | null>;
  /** Appends the chunks, as `copyBinary` writes them: the header first, the trailer last. */
  load(table: string, columns: readonly string[], chunks: AsyncIterable<Uint8Array>): Promise<void>;
}

/**
 * Rows to load: an array or a generator, or an async generator of arrays of rows (rows computed, or read,
 * while earlier ones are written; in arrays, so that there is one await per array, not per row).
 */
export type Rows<R> = Iterable<R> | AsyncIterable<readonly R[]>;

export interface BulkTransactionOptions {
  /**
   * `off`: the commit does not wait for the WAL flush. Only for tables nobody reads yet (a version being
   * rebuilt), whose writer starts again from its checkpoint if a crash loses the commit.
   */
  synchronousCommit?: 'off';
}

/**
 * Runs `f` in one transaction on one connection, with `load` for bulk rows. On PostgreSQL the connection
 * is taken from the pool for the whole transaction (COPY needs the client itself, which Kysely does not
 * hand out); Kysely is bound to that client for the other statements.
 */
export async function bulkTransaction<T>(database: Database, f: (t: BulkTransaction) => Promise<T>, options: BulkTransactionOptions = {}): Promise<T> {
  const pool = database.pool;
  if (!pool) {
    return database.db.transaction().execute(async (trx) => {
      if (options.synchronousCommit === 'off') await sql`set local synchronous_commit = off`.execute(trx);
      return f({ trx, load: (table, columns, rows) => insertRows(trx, table, columns, rows) });
    });
  }
  const client = await pool.connect();
  const trx = onClient(client);
  let broken: Error | undefined;
  try {
    await client.query('begin');
    if (options.synchronousCommit === 'off') await client.query('set local synchronous_commit = off');
    const binary: BinaryCopy = {
      types: (table, columns) => binaryTypes(client, table, columns),
      load: (table, columns, chunks) => copyChunks(client, `${copyTarget(table, columns)} from stdin with (format binary)`, chunks),
    };
    const result = await f({ trx, load: (table, columns, rows) => copyRows(client, table, columns, rows), binary });
    await client.query('commit');
    return result;
  } catch (error) {
    // A failed COPY can leave the connection mid-protocol: if the rollback fails too, the client is
    // discarded rather than handed back to the pool.
    await client.query('rollback').catch((e: Error) => (broken = e));
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * Two keys in PostgreSQL's byte order (`C` collation; UTF-16 code units, the same but for characters
 * past U+FFFF). Rows loaded in the order of a table's primary key go into its index beside the last one
 * instead of at a random leaf: several times less work for PostgreSQL. An order that differs under
 * another collation costs only that gain, never a wrong row.
 */
export const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Kysely over one checked-out client: every query goes to it, in the order issued, each sent once the
 * one before has answered (as Kysely's own transactions do: statements issued side by side, such as a
 * `Promise.all` of reads, would otherwise stack up in pg's queue, which pg 8.19 deprecates and pg 9 is
 * to remove).
 */
function onClient(client: pg.PoolClient): Kysely<any> {
  let last: Promise<unknown> = Promise.resolve();
  const query = (...args: Parameters<pg.PoolClient['query']>) => {
    const run = last.then(() => (client.query as (...a: unknown[]) => Promise<unknown>)(...args));
    last = run.catch(() => undefined);
    return run;
  };
  // The same object each time: Kysely keeps one connection wrapper per client object.
  const held = { query, release: () => undefined };
  return new Kysely<any>({ dialect: new PostgresDialect({ pool: { connect: async () => held, end: async () => undefined } as unknown as pg.Pool }) });
}

async function copyRows<R extends object>(client: pg.PoolClient, table: string, columns: readonly (keyof R & string)[], rows: Rows<R>): Promise<number> {
  const target = copyTarget(table, columns);
  const types = await binaryTypes(client, table, columns);
  let n = 0;
  if (types) {
    const binary = async function* () {
      for await (const chunk of copyBinary(rows, columns, types)) {
        n += chunk.rows;
        yield chunk.bytes;
      }
    };
    await copyChunks(client, `${target} from stdin with (format binary)`, binary());
    return n;
  }
  const text = async function* () {
    for await (const chunk of copyText(rows, columns)) {
      n += chunk.rows;
      yield chunk.text;
    }
  };
  await copyChunks(client, `${target} from stdin`, text());
  return n;
}

const copyTarget = (table: string, columns: readonly string[]): string => `copy ${quoteIdent(table)} (${columns.map(quoteIdent).join(', ')})`;

/** One COPY ... FROM STDIN of the chunks, each one write to the socket. */
async function copyChunks(client: pg.PoolClient, statement: string, chunks: AsyncIterable<Uint8Array | string>): Promise<void> {
  await pipeline(Readable.from(chunks, { objectMode: false }), client.query(copyStreams.from(statement)));
}

/**
 * The columns' types when COPY's binary format can write every one of them (`copy-binary.ts`), else
 * null (the rows go as text). Read from the catalogue at each load: a version's tables are made by the
 * code that loads them, but nothing here should trust a cache of what a table was.
 */
async function binaryTypes(client: pg.PoolClient, table: string, columns: readonly string[]): Promise<BinaryType[] | null> {
  const { rows } = await client.query<{ attname: string; atttypid: number }>(
    'select attname, atttypid::int as atttypid from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped',
    [quoteIdent(table)],
  );
  const byName = new Map(rows.map((r) => [r.attname, binaryTypeOids[r.atttypid]]));
  const types = columns.map((c) => byName.get(c));
  return types.every((t) => t !== undefined) ? (types as BinaryType[]) : null;
}

/** Rows in COPY's binary format, in chunks of about 256 KiB (a chunk is one write to the socket). */
export async function* copyBinary<R extends object>(rows: Rows<R>, columns: readonly (keyof R & string)[], types: readonly BinaryType[]): AsyncGenerator<BinaryChunk> {
  const chunks = new BinaryChunks(columns, types);
  for await (const some of batchesOf(rows)) yield* chunks.add(some);
  yield chunks.end();
}

/** The rows as batches: a plain iterable is one batch, walked without an await per row. */
const batchesOf = <R>(rows: Rows<R>): Iterable<Iterable<R>> | AsyncIterable<Iterable<R>> => (Symbol.iterator in rows ? [rows] : rows);

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

const SPECIAL = /[\\\t\n\r]/;
const escapeText = (s: string): string => (SPECIAL.test(s) ? s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r') : s);

/**
 * One field in COPY's text format: `\N` for null, numbers and booleans as PostgreSQL reads them, objects
 * and arrays as JSON (for json/jsonb columns), and backslash, tab, newline and carriage return escaped.
 */
export function copyField(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  // String() gives NaN, Infinity and -Infinity as double precision reads them.
  return typeof v === 'number' ? String(v) : escapeText(textOf(v));
}

/** Rows as COPY text in chunks of about 64 KiB (a chunk is one write to the socket). */
export async function* copyText<R extends object>(rows: Rows<R>, columns: readonly (keyof R & string)[]): AsyncGenerator<{ text: string; rows: number }> {
  const chunk = new CopyChunk(columns);
  for await (const some of batchesOf(rows)) for (const row of some) if (chunk.add(row)) yield chunk.take();
  if (chunk.rows) yield chunk.take();
}

class CopyChunk<R extends object> {
  readonly #line: (row: R) => string;
  #text = '';
  rows = 0;
  constructor(columns: readonly (keyof R & string)[]) {
    this.#line = lineEncoder(columns);
  }
  /** Adds a row; true once the chunk is full. */
  add(row: R): boolean {
    this.#text += this.#line(row);
    this.rows++;
    return this.#text.length >= 65_536;
  }
  take(): { text: string; rows: number } {
    const out = { text: this.#text, rows: this.rows };
    this.#text = '';
    this.rows = 0;
    return out;
  }
}

const encoders = new Map<string, (row: never) => string>();

/**
 * A row's COPY line, compiled once per column list: `row.a`, `row.b`, ... as fixed property reads,
 * which V8 caches per call site, instead of `row[columns[i]]` in a loop, one generic keyed read for
 * every field (measured: a third of a rebuild's encoding time).
 */
function lineEncoder<R extends object>(columns: readonly (keyof R & string)[]): (row: R) => string {
  const key = columns.join('\u0000');
  let encode = encoders.get(key) as ((row: R) => string) | undefined;
  if (!encode) {
    const fields = columns.map((c) => `field(row[${JSON.stringify(c)}])`).join(" + '\\t' + ");
    encode = new Function('field', `return function copyLine(row) { return ${fields} + '\\n'; };`)(copyField) as (row: R) => string;
    encoders.set(key, encode as (row: never) => string);
  }
  return encode;
}

/** PGlite: chunks of rows as one JSON parameter each. */
async function insertRows<R extends object>(trx: Kysely<any>, table: string, columns: readonly (keyof R & string)[], rows: Rows<R>): Promise<number> {
  const T = sql.table(table);
  const cols = sql.join(columns.map((c) => sql.ref(c)));
  let chunk: R[] = [];
  let n = 0;
  const flush = async () => {
    if (!chunk.length) return;
    const json = JSON.stringify(chunk.map((r) => Object.fromEntries(columns.map((c) => [c, r[c] ?? null]))));
    await sql`insert into ${T} (${cols}) select ${cols} from json_populate_recordset(null::${T}, ${json}::json)`.execute(trx);
    n += chunk.length;
    chunk = [];
  };
  const add = async (row: R) => {
    chunk.push(row);
    if (chunk.length >= 5_000) await flush();
  };
  if (Symbol.iterator in rows) for (const row of rows) await add(row);
  else for await (const some of rows) for (const row of some) await add(row);
  await flush();
  return n;
}
