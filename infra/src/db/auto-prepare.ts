import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

/**
 * Prepares the statements this process runs often, as Npgsql's automatic preparation and pgjdbc's
 * `prepareThreshold` do. Kysely sends every statement as an unnamed one, which PostgreSQL parses, analyses
 * and plans on every execution. On the live projector's path that was most of the server's time: a lane
 * batch of one event is about fifteen statements, and with `pg_stat_statements` on a 2-core Xeon at 200
 * events/s their planning took 7.8 s of every 11.8 s the statements cost (the day records' read planned in
 * 0.44 ms and ran in 0.05 ms). A statement text run `minUsages` times becomes a named prepared statement on
 * each connection that runs it next: parsed once per connection, and after five executions PostgreSQL
 * keeps a generic plan when it costs no more than the custom ones (`plan_cache_mode = auto`).
 *
 * - Only statements with parameters: they already go through the extended protocol, so they are single
 *   statements (a parameterless text may hold several, which a prepared statement cannot).
 * - At most `maxPerConnection` statements per connection; later texts stay unnamed there.
 * - A prepared statement whose `select *` no longer matches its table (the table was recreated with other
 *   columns) fails once with "cached plan must not change result type"; the text is then never prepared
 *   again in this process, so the caller's retry runs it unnamed.
 * - A generic plan is made for the table as it was: one made while a read model's table was nearly empty
 *   (a join through a sequential scan) stays until an `ANALYZE` of the table invalidates it, which never
 *   comes where autovacuum is off. The soak showed it: from empty tables, commands at p50 99 to 520 ms
 *   and load shed. So a connection whose plans are older than `replanMs` runs `DISCARD PLANS` when it is
 *   next taken from the pool (its statements stay prepared; each is planned again for the tables as they
 *   are now).
 *
 * `DATABASE_PREPARED_STATEMENTS=off` turns it off (a connection pooler in transaction mode without
 * prepared-statement support, such as PgBouncer before 1.21 or with `max_prepared_statements = 0`).
 */
export interface AutoPrepareOptions {
  /** Executions of one text, process-wide, before it is prepared. */
  minUsages?: number;
  maxPerConnection?: number;
  /** A connection's cached plans are discarded when this much older, at its next checkout. */
  replanMs?: number;
}

const DEFAULTS = { minUsages: 5, maxPerConnection: 256, replanMs: 10_000 };
/** Texts counted at most; past it the counts start again (texts with generated lists would grow it forever). */
const MAX_COUNTED = 5_000;

/** The name a text is prepared under: the same on every connection and in every process. */
export const preparedName = (text: string) => `oj_auto_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;

/** PostgreSQL's error for a prepared statement whose result columns changed under it. */
const isStalePlan = (err: unknown) => (err as { code?: string; message?: string }).code === '0A000' && /cached plan must not change result type/.test(String((err as Error).message));

export function autoPreparingPool(pool: pg.Pool, options: AutoPrepareOptions = {}): PostgresPool {
  const { minUsages, maxPerConnection, replanMs } = { ...DEFAULTS, ...options };
  const counts = new Map<string, number>();
  const never = new Set<string>();
  interface Wrapped {
    client: PostgresPoolClient;
    prepared: Set<string>;
    /** When the connection's oldest cached plan may have been made (its first prepare, or the last discard). */
    plannedSince: number;
  }
  const wrapped = new WeakMap<pg.PoolClient, Wrapped>();

  const wrap = (client: pg.PoolClient): Wrapped => {
    const prepared = new Set<string>();
    const query = async (text: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<any>> => {
      const values = [...parameters];
      if (!values.length || never.has(text)) return client.query(text, values) as unknown as PostgresQueryResult<any>;
      const name = preparedName(text);
      if (!prepared.has(name)) {
        const n = (counts.get(text) ?? 0) + 1;
        if (n < minUsages || prepared.size >= maxPerConnection) {
          if (counts.size >= MAX_COUNTED && !counts.has(text)) counts.clear();
          counts.set(text, n);
          return client.query(text, values) as unknown as PostgresQueryResult<any>;
        }
        if (!prepared.size) w.plannedSince = Date.now();
        prepared.add(name);
      }
      try {
        return (await client.query({ name, text, values })) as unknown as PostgresQueryResult<any>;
      } catch (err) {
        if (isStalePlan(err)) never.add(text);
        throw err;
      }
    };
    const w: Wrapped = {
      client: { query: query as PostgresPoolClient['query'], release: () => client.release() },
      prepared,
      plannedSince: 0,
    };
    return w;
  };

  return {
    async connect() {
      const client = await pool.connect();
      let w = wrapped.get(client);
      if (!w) wrapped.set(client, (w = wrap(client)));
      if (w.prepared.size && Date.now() - w.plannedSince >= replanMs) {
        try {
          // Outside any transaction: the connection was idle in the pool.
          await client.query('discard plans');
        } catch (error) {
          client.release(error as Error);
          throw error;
        }
        w.plannedSince = Date.now();
      }
      return w.client;
    },
    async end() {
      if (!pool.ended) await pool.end();
    },
  };
}
