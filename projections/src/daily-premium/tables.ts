import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import { availableParallelism } from 'node:os';
import { bulkTransaction } from '@oj/infra/db/bulk';
import type { Database } from '@oj/infra/db/database';
import { writeDaysInWorkers } from './days-workers.ts';
import { computeAllDailyRecords, computeDailyRecords, dayKey, dayTradeFields, splitDayKey, type DailyPremiumRecord, type DayTrade } from './compute.ts';

export type DailyPremiumTable = DailyPremiumRecord;
export type DailyPremiumRow = Selectable<DailyPremiumTable>;

export async function createDailyPremiumTable(db: Kysely<any>, t: string): Promise<void> {
  await sql`create table if not exists ${sql.table(t)} (
    user_id text not null,
    income_date date not null,
    np double precision not null,
    nf double precision not null,
    nd double precision not null,
    nep integer not null,
    otc integer not null,
    ctc integer not null,
    iw integer not null,
    npc double precision not null,
    cpt double precision not null,
    cg double precision not null,
    hp integer not null,
    pr double precision not null,
    ttf double precision not null,
    incap double precision not null,
    wdc double precision not null,
    tickers json not null,
    ct json not null,
    sg json not null,
    dg json not null,
    snpc json not null,
    tnpc json not null,
    primary key (user_id, income_date)
  )`.execute(db);
}

const dayTradeColumns = sql.raw(dayTradeFields.join(', '));
/** The day facts' trade columns of a row aliased `t` (beside a split_history row `s`, whose names overlap). */
const dayTradeColumnsOfT = sql.raw(dayTradeFields.map((f) => `t.${f}`).join(', '));

/**
 * A split_history row `s` (its `su`, `gene` and `parent` at least) as a `SplitPosition` (`splitPositionOf`),
 * null when there is none (the trade is not a split leg). jsonb keeps the numbers as they were written.
 */
export const splitPositionColumn = sql`case when s.su is null then null
  else jsonb_build_object('su', s.su, 'nd', s.parent->'nd', 'tod', s.gene->'tod', 'ed', s.gene->'ed', 'pf', s.parent->'pf') end`;

/** The tables a day recompute reads (trades, and split_history for the legs' positions) and writes (daily premium records). */
export interface DayTables {
  trades: string;
  split_history: string;
  daily_premium: string;
}

/** The (user, date) keys as JSON rows `{u, d}`, for `json_to_recordset(...) as x(u text, d date)`. */
const dayKeysJson = (keys: ReadonlySet<string>) =>
  JSON.stringify(
    [...keys].map((k) => {
      const [u, d] = splitDayKey(k);
      return { u, d };
    }),
  );

/**
 * The trades of the touched (user, date) keys (opened or closed on one of them) as a statement that
 * writes trade rows leaves them, read in that same statement (whose snapshot does not see its own
 * writes): the stored rows but those the statement replaces or deletes (`replaced`, a relation of
 * `(u, id)`), and the statement's new rows (`written`, a relation of the trades table's row type).
 * Lateral joins make each key an index lookup ((user_id, tod) and (user_id, tcd)) whatever the planner
 * guesses about the key list; a trade opened and closed on two touched days comes back twice
 * (`recomputeDays` keeps one). Each split leg comes with its position as entered, from the stored split
 * records or the statement's new ones (`writtenSplits`, a relation of split_history's row type: a split
 * writes its legs and its record in one statement).
 */
export function dayTradesAfterWrite(
  tables: Pick<DayTables, 'trades' | 'split_history'>,
  keys: ReadonlySet<string>,
  replaced: RawBuilder<unknown>,
  written: RawBuilder<unknown>,
  writtenSplits: RawBuilder<unknown>,
): RawBuilder<DayTrade> {
  const T = sql.table(tables.trades);
  const S = sql.table(tables.split_history);
  const keep = sql`not exists (select 1 from ${replaced} r where r.u = t.user_id and r.id = t.uid)`;
  return sql<DayTrade>`
    select t.*, ${splitPositionColumn} as split from (
      with k as materialized (select u, d from json_to_recordset(${dayKeysJson(keys)}::json) as x(u text, d date))
      select t.* from k cross join lateral (select ${dayTradeColumns} from ${T} where user_id = k.u and tod = k.d) t where ${keep}
      union all
      select t.* from k cross join lateral (select ${dayTradeColumns} from ${T} where user_id = k.u and tcd = k.d) t where ${keep}
      union all
      select ${dayTradeColumns} from ${written} n where exists (select 1 from k where k.u = n.user_id and (k.d = n.tod or k.d = n.tcd))
    ) as t
    left join lateral (
      select su, gene, parent from ${S} where t.auid is not null and user_id = t.user_id and auid = t.auid
      union all
      select su, gene, parent from ${writtenSplits} w where t.auid is not null and w.user_id = t.user_id and w.auid = t.auid
      limit 1
    ) s on true`;
}

/**
 * Writes the records of the touched (user, date) keys computed from those days' trades (all of them, as
 * the batch leaves them: `dayTradesAfterWrite`), in one statement: the records upserted, the days left
 * without any trade deleted.
 */
export async function recomputeDays(trx: Kysely<any>, table: string, keys: ReadonlySet<string>, dayTrades: readonly DayTrade[]): Promise<void> {
  if (!keys.size) return;
  const seen = new Set<string>();
  const trades = dayTrades.filter((r) => {
    const k = `${r.user_id}\u0000${r.uid}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
  const records = computeDailyRecords(keys, trades);
  const gone = new Set([...keys].filter((k) => !records.has(k)));
  const D = sql.table(table);
  await sql`with upserted as (
      insert into ${D} select * from json_populate_recordset(null::${D}, ${JSON.stringify([...records.values()])}::json)
      on conflict (user_id, income_date) do update set
        np = excluded.np, nf = excluded.nf, nd = excluded.nd, nep = excluded.nep, otc = excluded.otc, ctc = excluded.ctc, iw = excluded.iw,
        npc = excluded.npc, cpt = excluded.cpt, cg = excluded.cg, hp = excluded.hp, pr = excluded.pr, ttf = excluded.ttf, incap = excluded.incap,
        wdc = excluded.wdc, tickers = excluded.tickers, ct = excluded.ct, sg = excluded.sg, dg = excluded.dg, snpc = excluded.snpc, tnpc = excluded.tnpc)
    delete from ${D} where (user_id, income_date) in (select u, d from json_to_recordset(${dayKeysJson(gone)}::json) as x(u text, d date))`.execute(trx);
}

/** The table's columns, in its order. */
export const dailyPremiumColumns = [
  'user_id', 'income_date', 'np', 'nf', 'nd', 'nep', 'otc', 'ctc', 'iw', 'npc', 'cpt', 'cg', 'hp', 'pr', 'ttf', 'incap', 'wdc',
  'tickers', 'ct', 'sg', 'dg', 'snpc', 'tnpc',
] as const satisfies readonly (keyof DailyPremiumRecord)[];

/**
 * Recomputes every record of a version from its trade rows, as the end of a bulk rebuild
 * (`finishBulk`), in place of the table's rows. Users are taken in chunks of about `chunkTrades` trades,
 * the largest first. On PostgreSQL, `workers` worker threads (by default one per core, at most four)
 * each claim the next chunk, read its rows on a connection of their own (the next chunk read while the
 * current one is computed) and write its records with COPY in one transaction per worker (`writeDays`):
 * the records are computed beside this thread's work and PostgreSQL's index builds, not after them.
 * Idempotent: a rebuild killed here (or a worker failed) runs it again, which empties the table first.
 * Resolves to the records written.
 */
export async function recomputeAllDays(database: Database, tables: DayTables, options: { chunkTrades?: number; workers?: number } = {}): Promise<number> {
  const db = database.db;
  const chunks = await userChunks(db, tables.trades, options.chunkTrades ?? 40_000);
  // PGlite has one connection, held by the writing transaction: read before it.
  if (database.kind === 'pglite') {
    const all = await Promise.all(chunks.map((users) => readDayTrades(db, tables, users)));
    return writeDays(database, tables.daily_premium, all, { replace: true });
  }
  await sql`truncate ${sql.table(tables.daily_premium)}`.execute(db);
  if (!chunks.length) return 0;
  const workers = Math.min(chunks.length, options.workers ?? Math.min(4, availableParallelism()));
  // Every PostgreSQL handle carries its URL (openDatabase).
  return writeDaysInWorkers(database.url!, tables, chunks, workers);
}

/** Users in chunks of about `chunkTrades` trades (a user is never split), the largest chunks first. */
async function userChunks(db: Kysely<any>, trades: string, chunkTrades: number): Promise<string[][]> {
  const perUser = await sql<{ user_id: string; n: number }>`select user_id, count(*)::int as n from ${sql.table(trades)} group by user_id order by user_id`.execute(db);
  const chunks: Array<{ users: string[]; size: number }> = [];
  let chunk = { users: [] as string[], size: 0 };
  for (const { user_id, n } of perUser.rows) {
    chunk.users.push(user_id);
    chunk.size += Number(n);
    if (chunk.size >= chunkTrades) {
      chunks.push(chunk);
      chunk = { users: [], size: 0 };
    }
  }
  if (chunk.users.length) chunks.push(chunk);
  // The largest first: a heavy user's chunk started last would leave the other workers idle at the end.
  return chunks.sort((a, b) => b.size - a.size).map((c) => c.users);
}

/** The users' day facts: their trade rows, each split leg with its position as entered (one join, no query per row). */
const readDayTrades = (db: Kysely<any>, tables: Pick<DayTables, 'trades' | 'split_history'>, users: string[]): Promise<DayTrade[]> =>
  sql<DayTrade>`select ${dayTradeColumnsOfT}, ${splitPositionColumn} as split from ${sql.table(tables.trades)} t
    left join ${sql.table(tables.split_history)} s on t.auid is not null and s.user_id = t.user_id and s.auid = t.auid
    where t.user_id = any(${users})`
    .execute(db)
    .then((r) => r.rows);

/** Hands out the chunks one at a time, to any number of threads sharing `claimed` (a counter). */
export function claimer(chunks: readonly string[][], claimed: Int32Array): () => string[] | null {
  return () => chunks[Atomics.add(claimed, 0, 1)] ?? null;
}

/** The trades of each chunk `next` hands out, the next chunk read while the current one is used. */
export async function* dayTradeChunks(db: Kysely<any>, tables: Pick<DayTables, 'trades' | 'split_history'>, next: () => string[] | null): AsyncGenerator<DayTrade[]> {
  const readNext = () => {
    const users = next();
    const reading = users ? readDayTrades(db, tables, users) : null;
    reading?.catch(() => {}); // awaited next round; a failure first must not be unhandled
    return reading;
  };
  let reading = readNext();
  try {
    while (reading) {
      const these = await reading;
      reading = readNext();
      yield these;
    }
  } finally {
    // Nothing may outlive the rebuild's lock: a read-ahead still in flight settles first.
    await Promise.allSettled([reading]);
  }
}

/**
 * Writes every day of `trades` (each part holds every trade of its users) into a version being built, in
 * one transaction: each part's records are computed as the part comes and stream into the load (COPY on
 * PostgreSQL) while the next part is computed. `replace`: the table is emptied first (else the users'
 * days must not be in it yet). Resolves to the records written.
 */
export async function writeDays(
  database: Database,
  table: string,
  trades: Iterable<readonly DayTrade[]> | AsyncIterable<readonly DayTrade[]>,
  options: { replace?: boolean } = {},
): Promise<number> {
  async function* records(): AsyncGenerator<DailyPremiumRecord[]> {
    // In the primary key's order (see `compareKeys`).
    for await (const part of trades) yield computeAllDailyRecords(part);
  }
  return bulkTransaction(
    database,
    async (t) => {
      if (options.replace) await sql`truncate ${sql.table(table)}`.execute(t.trx);
      return t.load(table, dailyPremiumColumns, records());
    },
    // Not live yet (see the trades projection's bulk batches): no need to wait for the WAL flush.
    { synchronousCommit: 'off' },
  );
}

export { dayKey };
