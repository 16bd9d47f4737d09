import type { PGlite, Transaction as PGliteTransaction } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';

/**
 * node-postgres and PGlite must hand the same JS types to the code above them: int8 and numeric as
 * numbers, date as 'YYYY-MM-DD' text. PGlite ignores parsers given to its constructor in some paths, so
 * they are passed with every query.
 */
export const PGLITE_PARSERS: Record<number, (value: string) => unknown> = {
  20: Number, // int8
  1700: Number, // numeric
  1082: (v: string) => v, // date
};

/**
 * Kysely on PGlite (Postgres compiled to WASM, in process). PGlite has one connection, so the driver
 * hands it out to one holder at a time: a transaction keeps it until commit or rollback, and other
 * queries wait. That gives the same isolation a pool of one would.
 */
export class PGliteDialect implements Dialect {
  readonly pglite: PGlite;
  constructor(pglite: PGlite) {
    this.pglite = pglite;
  }
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pglite);
  }
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

class PGliteDriver implements Driver {
  #queue: Promise<void> = Promise.resolve();
  readonly #connection: PGliteConnection;
  constructor(pglite: PGlite) {
    this.#connection = new PGliteConnection(pglite);
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const previous = this.#queue;
    this.#queue = previous.then(() => held);
    await previous;
    this.#connection.release = release;
    return this.#connection;
  }
  async beginTransaction(conn: DatabaseConnection, settings: { isolationLevel?: string }): Promise<void> {
    const level = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await conn.executeQuery(CompiledQuery.raw(`begin${level}`));
  }
  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('rollback'));
  }
  async releaseConnection(conn: DatabaseConnection): Promise<void> {
    (conn as PGliteConnection).release?.();
  }
  async destroy(): Promise<void> {}
}

class PGliteConnection implements DatabaseConnection {
  release: (() => void) | undefined;
  readonly pglite: PGlite | PGliteTransaction;
  constructor(pglite: PGlite | PGliteTransaction) {
    this.pglite = pglite;
  }
  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.pglite.query<R>(compiled.sql, compiled.parameters as unknown[], { parsers: PGLITE_PARSERS });
    const affected = result.affectedRows;
    return {
      rows: result.rows,
      ...(affected !== undefined ? { numAffectedRows: BigInt(affected) } : {}),
    };
  }
  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite does not support streaming queries');
  }
}
