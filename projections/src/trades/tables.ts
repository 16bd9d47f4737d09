import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { TradeStatusCode } from '@oj/contracts/journal-events';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { daysOpen, disposition } from '@oj/contracts/formulas';
import { toListItem, type TradeRecord } from '@oj/contracts/trade-record';

/** The trades projection's logical tables (physical names carry the version: `trades_v102`). */
export const tradeTables = ['trades', 'trade_lineages', 'split_history', 'daily_premium', 'trade_counts'] as const;
export type TradeTables = Record<(typeof tradeTables)[number], string>;

/** A version's physical table names, checked complete. */
export function asTables(t: Record<string, string>): TradeTables {
  for (const name of tradeTables) if (!t[name]) throw new Error(`Missing table ${name} for the trades projection`);
  return t as TradeTables;
}

/** Which list page a trade is on: 1 Open, 2 Closed (statuses 2, 4, 5, 6, 7), 3 Rolled. */
export type TradeListCode = 1 | 2 | 3;
export const listOf = (status: number): TradeListCode => (status === 1 ? 1 : status === 3 ? 3 : 2);

/**
 * One row per live trade: the list item of part 1 §3 (its short names are the column names; `do`, a
 * reserved word, is `held`, null while open) plus the user, the close action and two sort keys.
 */
export interface TradesTable {
  uid: string;
  user_id: string;
  lid: string;
  ticker: string;
  su: string;
  au: string;
  sp: number[];
  c: number;
  tod: string;
  tcd: string | null;
  ed: string;
  status: TradeStatusCode;
  close_action: string | null;
  pao: number;
  pac: number | null;
  npc: number | null;
  nd: number;
  cs: number;
  notes: string;
  tags: string[];
  ot: 1 | 2;
  ct: 1 | 2 | 3 | null;
  auid: string | null;
  spo: number | null;
  cb: number | null;
  lv: number | null;
  rf: string | null;
  pf: string | null;
  up: string;
  created_at: string;
  nfto: number;
  nftc: number | null;
  ror: number | null;
  aroc: number | null;
  cg: number | null;
  held: number | null;
  rh: boolean;
  /** TradeListCode. */
  list: TradeListCode;
  /** The list's sort date: open date while open, close date after. */
  sort_date: string;
}
export type TradeRow = Selectable<TradesTable>;

/**
 * Per lineage: the last stream revision applied (the idempotency guard; it outlives deleted trades).
 * Keys here and in the trades table include the user: ids are unique by construction, but a read model
 * keyed by them alone would let one user's stream overwrite another's rows if they ever were not.
 */
export interface TradeLineagesTable {
  lid: string;
  user_id: string;
  rev: number;
  has_roll: boolean;
}

export const tradeColumns = [
  'uid', 'user_id', 'lid', 'ticker', 'su', 'au', 'sp', 'c', 'tod', 'tcd', 'ed', 'status', 'close_action', 'pao', 'pac', 'npc', 'nd', 'cs',
  'notes', 'tags', 'ot', 'ct', 'auid', 'spo', 'cb', 'lv', 'rf', 'pf', 'up', 'created_at', 'nfto', 'nftc', 'ror', 'aroc', 'cg', 'held', 'rh',
  'list', 'sort_date',
] as const satisfies readonly (keyof TradesTable)[];

/** `SET` of an upsert that replaces a trade row whole (all but its key). */
export const tradeUpsertSet = sql.raw(
  tradeColumns
    .filter((c) => c !== 'uid' && c !== 'user_id')
    .map((c) => `${c} = excluded.${c}`)
    .join(', '),
);

/**
 * Trades per user and list, so an unfiltered list page counts its total with one key read instead of
 * an index scan over every trade of the list (100,000 for a heavy user). Kept by the same transaction
 * that writes the rows, from each batch's before/after rows; the lineage revision guard makes it exact.
 */
export interface TradeCountsTable {
  user_id: string;
  list: TradeListCode;
  n: number;
}

export async function createTradeCountsTable(db: Kysely<any>, t: string): Promise<void> {
  await sql`create table if not exists ${sql.table(t)} (
    user_id text not null,
    list smallint not null,
    n integer not null,
    primary key (user_id, list)
  )`.execute(db);
}

/** Trade rows added to (or, negative, taken from) a user's list. */
export interface CountDelta {
  u: string;
  list: number;
  d: number;
}

/**
 * Adds each (user, list)'s change `d` to its trade count. A list back to no trades loses its row: a
 * rebuild, whose batches net an open and its close out before writing, never writes one, and the live
 * version must hold exactly the rebuild's rows (readers take a missing row as 0). Only a decrease can
 * reach 0.
 */
export async function addTradeCounts(trx: Kysely<any>, table: string, changes: readonly CountDelta[]): Promise<void> {
  const deltas = changes.filter((c) => c.d !== 0);
  if (!deltas.length) return;
  await tradeCountsUpsert(table, deltas).execute(trx);
  await deleteEmptiedCounts(trx, table, deltas);
}

/** `addTradeCounts`'s upsert, for a caller that writes it as a part of its own statement (a data-modifying CTE). */
export const tradeCountsUpsert = (table: string, deltas: readonly CountDelta[]): RawBuilder<unknown> => {
  const C = sql.table(table);
  return sql`insert into ${C} (user_id, list, n) select u, list, d from json_to_recordset(${JSON.stringify(deltas)}::json) as x(u text, list smallint, d integer)
    on conflict (user_id, list) do update set n = ${C}.n + excluded.n`;
};

/** After `tradeCountsUpsert` (in a later statement, which sees its rows): the lists the deltas took to 0 lose their rows. */
export async function deleteEmptiedCounts(trx: Kysely<any>, table: string, deltas: readonly CountDelta[]): Promise<void> {
  const emptied = deltas.filter((c) => c.d < 0);
  if (!emptied.length) return;
  await sql`delete from ${sql.table(table)} where n = 0 and (user_id, list) in (
    select u, list from json_to_recordset(${JSON.stringify(emptied)}::json) as x(u text, list smallint))`.execute(trx);
}

/**
 * `deferListIndexes`: a rebuild is about to load this version in bulk. Its batches read trades only by
 * key and lineage, so the indexes the lists, calendar and day recomputation read by wait until the
 * version is loaded (`createTradeListIndexes`, in the finishing step): built once over the finished rows
 * they cost a fraction of keeping them up to date through every batch's upserts.
 */
export async function createTradeTables(db: Kysely<any>, t: string, lineages: string, options: { deferListIndexes?: boolean } = {}): Promise<void> {
  const T = sql.table(t);
  await sql`create table if not exists ${T} (
    uid text not null,
    user_id text not null,
    lid text not null,
    ticker text not null,
    su text not null,
    au text not null,
    sp jsonb not null,
    c double precision not null,
    tod date not null,
    tcd date,
    ed date not null,
    status smallint not null,
    close_action text,
    pao double precision not null,
    pac double precision,
    npc double precision,
    nd double precision not null,
    cs integer not null,
    notes text not null,
    tags jsonb not null,
    ot smallint not null,
    ct smallint,
    auid text,
    spo double precision,
    cb double precision,
    lv double precision,
    rf text,
    pf text,
    up text not null,
    created_at text not null,
    nfto double precision not null,
    nftc double precision,
    ror double precision,
    aroc double precision,
    cg double precision,
    held integer,
    rh boolean not null,
    list smallint not null,
    sort_date date not null,
    primary key (user_id, uid)
  )`.execute(db);
  // Every apply loads a batch's lineages' trades by lineage.
  await sql`create index if not exists ${sql.raw(`${t}_lid`)} on ${T} (user_id, lid)`.execute(db);
  if (!options.deferListIndexes) await createTradeListIndexes(db, t);
  await sql`create table if not exists ${sql.table(lineages)} (
    lid text not null,
    user_id text not null,
    rev integer not null,
    has_roll boolean not null,
    primary key (user_id, lid)
  )`.execute(db);
}

/** The indexes of the reads: lists, expiring, trades by date, ticker filter. Idempotent. */
export async function createTradeListIndexes(db: Kysely<any>, t: string): Promise<void> {
  const T = sql.table(t);
  // The three status lists page by (sort date desc, uid) within one user's list: one index serves all.
  await sql`create index if not exists ${sql.raw(`${t}_list`)} on ${T} (user_id, list, sort_date desc, uid desc)`.execute(db);
  await sql`create index if not exists ${sql.raw(`${t}_expiring`)} on ${T} (user_id, ed, uid) where list = 1`.execute(db);
  // Live day recomputation, trades-by-date and the calendar read a user's trades by open and close date.
  await sql`create index if not exists ${sql.raw(`${t}_opened`)} on ${T} (user_id, tod)`.execute(db);
  await sql`create index if not exists ${sql.raw(`${t}_closed`)} on ${T} (user_id, tcd) where tcd is not null`.execute(db);
  await sql`create index if not exists ${sql.raw(`${t}_ticker`)} on ${T} (user_id, ticker, list, sort_date desc, uid desc)`.execute(db);
}

/**
 * The row's `sort_date`, from the record alone: the open date while open, the close date after. The
 * audit's as-of view orders a whole journal's lists by it without computing every row.
 */
export const sortDateOf = (r: TradeRecord, list: TradeListCode = listOf(r.status)): string => (list === 1 ? r.openDate : (r.close?.closeDate ?? r.openDate));

export function recordToRow(r: TradeRecord, item: TradeListItem): TradesTable {
  const list = listOf(r.status);
  return {
    uid: r.uid,
    user_id: r.userId,
    lid: r.lineageId,
    ticker: r.ticker,
    su: r.strategyUid,
    au: r.accountUid,
    sp: r.strikePrices,
    c: item.c,
    tod: r.openDate,
    tcd: item.tcd,
    ed: r.expirationDate,
    status: r.status,
    close_action: r.close?.closeAction ?? null,
    pao: r.premiumAtOpen,
    pac: item.pac,
    npc: item.npc,
    nd: r.netDelta,
    cs: r.contractSize,
    notes: r.notes,
    tags: r.tags,
    ot: r.openTransaction,
    ct: r.close?.closeTransaction ?? null,
    auid: r.ancestorUid,
    spo: r.stockPriceAtOpen,
    cb: r.costBasis,
    lv: r.leapsValue,
    rf: r.rolledFrom,
    pf: r.partialOf,
    up: r.updatedAt,
    created_at: r.createdAt,
    nfto: r.netFeeToOpen,
    nftc: item.nftc,
    ror: item.ror,
    aroc: item.aroc,
    cg: item.cg,
    held: r.status === 1 ? null : item.do,
    rh: r.hasRollHistory,
    list,
    sort_date: sortDateOf(r, list),
  };
}

/**
 * A trade's row as every path of the projection writes it: a closed trade's figures at its close date, an
 * open one's at its open date (days open are counted when the row is read). A function of the record alone.
 */
export const tradeRowOf = (r: TradeRecord): TradesTable => recordToRow(r, toListItem(r, r.close?.closeDate ?? r.openDate));

export function rowToRecord(row: TradeRow): TradeRecord {
  return {
    uid: row.uid,
    lineageId: row.lid,
    userId: row.user_id,
    ticker: row.ticker,
    strategyUid: row.su,
    accountUid: row.au,
    strikePrices: row.sp,
    openDate: row.tod,
    expirationDate: row.ed,
    contractSize: row.cs,
    premiumAtOpen: row.pao,
    netFeeToOpen: row.nfto,
    openTransaction: row.ot,
    netDelta: row.nd,
    stockPriceAtOpen: row.spo,
    costBasis: row.cb,
    leapsValue: row.lv,
    notes: row.notes,
    tags: row.tags,
    status: row.status,
    close:
      row.status === 1 || row.tcd === null
        ? null
        : {
            closeAction: (row.close_action ?? 'close') as NonNullable<TradeRecord['close']>['closeAction'],
            closeDate: row.tcd,
            premiumAtClose: row.pac ?? 0,
            netFeeToClose: row.nftc ?? 0,
            closeTransaction: row.ct ?? 3,
          },
    rolledFrom: row.rf,
    ancestorUid: row.auid,
    partialOf: row.pf,
    updatedAt: row.up,
    createdAt: row.created_at,
    hasRollHistory: row.rh,
  };
}

/** The list item of a stored row; open trades' days open are counted to `today` (a New York date). */
export function rowToListItem(row: TradeRow, today: string): TradeListItem {
  return {
    uid: row.uid,
    lid: row.lid,
    ticker: row.ticker,
    sp: row.sp,
    c: row.c,
    tod: row.tod,
    tcd: row.tcd,
    ed: row.ed,
    status: row.status,
    pao: row.pao,
    pac: row.pac,
    npc: row.npc,
    nd: row.nd,
    cs: row.cs,
    notes: row.notes,
    tags: row.tags,
    ot: row.ot,
    ct: row.ct,
    su: row.su,
    au: row.au,
    auid: row.auid,
    spo: row.spo,
    cb: row.cb,
    lv: row.lv,
    rf: row.rf,
    pf: row.pf,
    up: row.up,
    nfto: row.nfto,
    nftc: row.nftc,
    ror: row.ror,
    aroc: row.aroc,
    cg: row.cg,
    do: row.held ?? daysOpen(row.tod, today),
    dis: disposition(row.status, row.tcd, row.ed),
    rh: row.rh,
    created_at: row.created_at,
  };
}
