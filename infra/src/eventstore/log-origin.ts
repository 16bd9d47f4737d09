import { sql, type Kysely } from 'kysely';

/**
 * Log positions on PostgreSQL are (appending transaction's xid8, global_position), and readers only see
 * transactions below the server's horizon (see postgres.ts). A transaction id belongs to the cluster that
 * handed it out: a logical copy of the events table (pg_dump into another cluster, a logical-replication
 * migration) keeps the old cluster's ids. When that cluster had handed out more ids than the new one, the
 * restored rows are at or above the new horizon: readers see none of them, and every new append takes a
 * smaller id, so it sorts before them and before every saved checkpoint (a projector would skip it).
 *
 * That is detected at start-up and refused (`assertLocalLogPositions`), and repaired offline by
 * `restampRestoredLog` (`npm run eventstore -- restamp`, docs/operations.md "Backup and restore"). A copy
 * into a cluster that is already past the old ids (or a fresh database on the same cluster) needs
 * nothing: its rows are visible and new appends sort after them.
 */

/** The id restored rows take: FirstNormalTransactionId, below every id a cluster hands out. */
const RESTAMPED_COMMIT = 3n;

export const RESTAMP_COMMAND = 'npm run eventstore -- restamp';

export class RestoredLogError extends Error {
  readonly newest: bigint;
  readonly next: bigint;
  constructor(newest: bigint, next: bigint) {
    super(
      `The event log's positions come from another PostgreSQL cluster (a pg_dump restore or a logical-replication copy): ` +
        `its newest transaction id ${newest} is at or above this server's next transaction id ${next}, so readers would see ` +
        `none of it and new events would sort before it and before the projections' checkpoints. Stop every process of the ` +
        `app and run \`${RESTAMP_COMMAND}\` once against this database (docs/operations.md, "Backup and restore").`,
    );
    this.name = 'RestoredLogError';
    this.newest = newest;
    this.next = next;
  }
}

export interface LogOrigin {
  /** The newest transaction id in the log, or null when the log is empty. */
  newest: bigint | null;
  /** The next transaction id this server will hand out. */
  next: bigint;
  /** Whether the log holds transaction ids this server has not handed out yet (it was copied from another cluster). */
  foreign: boolean;
}

/**
 * The log's newest transaction id, as text: one entry of the log-order index read backwards. The order
 * is `events.transaction_id`, qualified: the bare name is the output column, the id cast to text, which
 * sorts '9' after '10' and scans the whole log.
 */
export const NEWEST_IN_LOG = sql`select transaction_id::text from events order by events.transaction_id desc limit 1`;

/** One index probe (the log order index, backwards) and a snapshot read: no transaction id is used up. */
export async function logOrigin(db: Kysely<any>): Promise<LogOrigin> {
  // Before the migrations there is no log, so nothing in it can be foreign.
  if (!(await hasLog(db))) {
    const next = await sql<{ next: string }>`select pg_snapshot_xmax(pg_current_snapshot())::text as next`.execute(db);
    return { newest: null, next: BigInt(next.rows[0]!.next), foreign: false };
  }
  const { rows } = await sql<{ newest: string | null; next: string }>`
    select (${NEWEST_IN_LOG}) as newest, pg_snapshot_xmax(pg_current_snapshot())::text as next`.execute(db);
  const row = rows[0]!;
  const newest = row.newest === null ? null : BigInt(row.newest);
  const next = BigInt(row.next);
  return { newest, next, foreign: newest !== null && newest >= next };
}

async function hasLog(db: Kysely<any>): Promise<boolean> {
  const table = await sql<{ t: string | null }>`select to_regclass('events')::text as t`.execute(db);
  return Boolean(table.rows[0]?.t);
}

/**
 * Where the log's positions come from: the cluster's system identifier and this database's oid. A
 * logical copy (into another cluster, or another database of this one) has another origin, a physical
 * copy the same. What was computed from positions and kept outside the log's database (the audit's
 * stored replay states, the projector's lane jobs in Redis) is only valid for the origin it was made on.
 */
export async function logOriginOf(db: Kysely<any>): Promise<string> {
  const { rows } = await sql<{ o: string }>`select (pg_control_system()).system_identifier::text || '/' || (select oid::text from pg_database where datname = current_database()) as o`.execute(db);
  return rows[0]!.o;
}

/** Refuses to start on a log copied from a cluster ahead of this one (see above). */
export async function assertLocalLogPositions(db: Kysely<any>): Promise<void> {
  const origin = await logOrigin(db);
  if (origin.foreign) throw new RestoredLogError(origin.newest!, origin.next);
}

export interface RestampResult {
  restamped: boolean;
  events: number;
  /** Tables whose (commit, prepare) positions were mapped onto the new positions, with rows changed. */
  positionTables: Array<{ table: string; rows: number }>;
}

/**
 * Gives a copied log positions of this server, in its original order, in one transaction (every
 * process of the app stopped). Every event takes transaction id 3 (below anything this cluster hands
 * out, so all of it is visible and every later append sorts after it) and a new global_position above
 * the old ones numbered in the old (transaction_id, global_position) order, so the log reads in exactly
 * the order it had. Every stored position (tables with numeric `commit` and `prepare` columns: the
 * projections' checkpoints, the dispatcher, the rebuilds) becomes the new position of the last event at
 * or before it, so each consumer resumes exactly where it stood. A log that is not foreign is left
 * alone (the command can be run twice).
 */
export async function restampRestoredLog(db: Kysely<any>): Promise<RestampResult> {
  return db.transaction().execute(async (trx) => {
    if (!(await hasLog(trx))) return { restamped: false, events: 0, positionTables: [] };
    await sql`lock table events in access exclusive mode`.execute(trx);
    const origin = await logOrigin(trx);
    if (!origin.foreign) return { restamped: false, events: 0, positionTables: [] };
    await sql`create temp table oj_restamp on commit drop as
      select transaction_id::text::numeric as old_c, global_position as old_p,
             row_number() over (order by transaction_id, global_position) as rn
      from events`.execute(trx);
    await sql`create index on oj_restamp (old_c, old_p)`.execute(trx);
    const top = await sql<{ top: string; n: string }>`select coalesce(max(old_p), 0)::text as top, count(*)::text as n from oj_restamp`.execute(trx);
    const base = BigInt(top.rows[0]!.top);
    const events = Number(top.rows[0]!.n);
    // New positions lie above every old one, so no row takes a value another still holds mid-update.
    await sql`update events e set transaction_id = ${RESTAMPED_COMMIT.toString()}::xid8, global_position = ${base.toString()}::bigint + r.rn
      from oj_restamp r where e.global_position = r.old_p`.execute(trx);
    await sql`select setval(pg_get_serial_sequence('events', 'global_position'), ${(base + BigInt(events)).toString()}::bigint)`.execute(trx);
    const tables = await sql<{ table_name: string }>`
      select table_name::text as table_name from information_schema.columns
      where table_schema = current_schema() and column_name in ('commit', 'prepare') and data_type = 'numeric'
      group by table_name having count(*) = 2 order by table_name`.execute(trx);
    const positionTables: RestampResult['positionTables'] = [];
    for (const { table_name } of tables.rows) {
      const T = sql.table(table_name);
      // A position before every event (none in practice) is the start of the log.
      const before = await sql`update ${T} t set commit = -1, prepare = -1
        where t.commit >= 0 and not exists (select 1 from oj_restamp r where (r.old_c, r.old_p) <= (t.commit, t.prepare))`.execute(trx);
      const mapped = await sql`update ${T} t set commit = ${RESTAMPED_COMMIT.toString()}::numeric, prepare = m.p
        from (select t2.ctid as id, (select ${base.toString()}::bigint + r.rn from oj_restamp r
                where (r.old_c, r.old_p) <= (t2.commit, t2.prepare) order by r.old_c desc, r.old_p desc limit 1) as p
              from ${T} t2 where t2.commit >= 0) m
        where t.ctid = m.id and m.p is not null`.execute(trx);
      positionTables.push({ table: table_name, rows: Number(before.numAffectedRows ?? 0n) + Number(mapped.numAffectedRows ?? 0n) });
    }
    return { restamped: true, events, positionTables };
  });
}
