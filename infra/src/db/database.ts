import { PGlite } from '@electric-sql/pglite';
import { ConfigError } from '../config.ts';
import { Kysely, PostgresDialect, type Migration } from 'kysely';
import pg from 'pg';
import { mkdirSync } from 'node:fs';
import { PGLITE_PARSERS, PGliteDialect } from './pglite-dialect.ts';
import { autoPreparingPool } from './auto-prepare.ts';

/**
 * One Postgres handle for the whole process: node-postgres against a server, or PGlite in process.
 * Both return the same JS types (int8 and numeric as numbers, dates as strings), so code above this
 * line never knows which it runs on.
 */
export interface Database {
  db: Kysely<any>;
  kind: 'postgres' | 'pglite';
  /** The raw pool (postgres) for LISTEN/COPY and the like; absent on PGlite. */
  pool?: pg.Pool;
  /** The server's URL (postgres): for worker threads, which open pools of their own. */
  url?: string;
  pglite?: PGlite;
  close(): Promise<void>;
}

const INT8 = 20;
const NUMERIC = 1700;
const DATE = 1082;
const TIMESTAMPTZ = 1184;
const TIMESTAMP = 1114;

const toNumber = (v: string) => Number(v);
const identity = (v: string) => v;

const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return toNumber;
    if (oid === DATE) return identity;
    if (oid === TIMESTAMPTZ || oid === TIMESTAMP) return (v: string) => new Date(v);
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
} as pg.CustomTypesConfig;

export interface OpenDatabaseOptions {
  /** A postgres:// URL; without it, PGlite. */
  url?: string | undefined;
  /** PGlite's directory; in memory when absent. */
  dataDir?: string | undefined;
  poolSize?: number;
  /** `auto` (the default): Kysely's statements run often are prepared per connection (`autoPreparingPool`). */
  preparedStatements?: 'auto' | 'off';
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.url) {
    const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 20, types: pgTypes });
    // A connection that breaks (a restart, a failover, a killed backend) emits 'error': through the pool
    // while idle, on the client itself while checked out between two queries. With no listener either
    // one ends the process. The query in flight, or the next one on that client, fails on its own and is
    // answered (503 at the gateway); the pool drops the broken client and opens a new one.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => client.on('error', () => undefined));
    const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: options.preparedStatements === 'off' ? pool : autoPreparingPool(pool) }) });
    const close = async () => {
      await db.destroy();
      // Kysely ends the pool only if a query went through it: connections taken from the pool itself
      // (COPY, LISTEN) would otherwise stay open, and keep the process alive, until their idle timeout.
      if (!pool.ended) await pool.end();
    };
    return { db, kind: 'postgres', pool, url: options.url, close };
  }
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const pglite = await openPGlite(options.dataDir);
  const db = new Kysely<any>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    pglite,
    close: async () => {
      await db.destroy();
      await pglite.close();
    },
  };
}

/** Per pool, the counts `keepConnectionsOpen` holds: the pool's minimum is the largest. */
const keptOpen = new WeakMap<pg.Pool, number[]>();

/**
 * Keeps up to `count` of the pool's connections open once opened (at most the pool's size), never
 * closing them for idleness, until the returned function is called. node-postgres closes a connection
 * idle for 10 s; the next one opened costs a connection's start (26 to 35 ms on a 2-core VM) and, on the
 * server, its first statements' parsing, planning and catalog reads again (a lane batch's first run on a
 * new connection took 25 to 47 ms against 6 to 8 ms: `docs/performance.md`, 2 December). So a process
 * whose work comes in bursts after quiet spells (the projector's lanes) keeps its own. Nothing is opened
 * here: waiting for connections at start could wait for ever on a small pool whose clients are held
 * (LISTEN, a leader's lock). Nothing on PGlite (one connection).
 */
export function keepConnectionsOpen(database: Database, count: number): () => void {
  const pool = database.pool;
  if (!pool) return () => undefined;
  const want = Math.min(count, pool.options.max ?? count);
  const counts = keptOpen.get(pool) ?? [];
  keptOpen.set(pool, counts);
  counts.push(want);
  pool.options.min = Math.max(0, ...counts);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    counts.splice(counts.indexOf(want), 1);
    pool.options.min = Math.max(0, ...counts);
  };
}

/**
 * A module's migration. `olderReleasesMayRun`: true only for an expand-only change that the code of the
 * releases before it ignores safely (a new table, a nullable column or one with a default, an index):
 * those releases can then still start on the database after it, which is what lets a deploy be rolled
 * back (see migrate.ts). Unset, the upgrade that applies it is one-way.
 */
export interface ModuleMigration extends Migration {
  olderReleasesMayRun?: boolean;
}

export type MigrationSet = Record<string, ModuleMigration>;

/**
 * PGlite on a directory. One it cannot open (written by another PostgreSQL major version, a foreign or
 * damaged folder) fails deep in its WebAssembly ("unreachable", an exit status): said in one line naming
 * the directory and what to do, as a setting the operator must fix (QA: a stack trace, "[object Object]").
 */
async function openPGlite(dataDir: string | undefined): Promise<PGlite> {
  try {
    const pglite = new PGlite(dataDir, { parsers: PGLITE_PARSERS });
    await pglite.waitReady;
    return pglite;
  } catch (error) {
    if (dataDir === undefined) throw error;
    const e = error as { message?: unknown; status?: unknown; code?: unknown };
    const reason = typeof e?.message === 'string' && e.message ? e.message : typeof e?.status === 'number' ? `exit status ${e.status}` : String(error);
    throw new ConfigError(
      `DATA_DIR: the embedded database in ${dataDir} could not be opened (${reason}). It was written by another version of PostgreSQL, is not a journal's, or is damaged: ` +
        'restore the data directory from a backup (docs/operations.md), or give DATA_DIR another directory to start an empty journal.',
    );
  }
}
