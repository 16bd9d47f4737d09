import { sql, type Kysely, type RawBuilder } from 'kysely';
import { addDays } from '@oj/contracts/business-date';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import type { ExpiringListQuery, TradeListQuery, TradeListResponse, TradeListStatus, TradesByDateResponse } from '@oj/contracts/trade-views';
import { closeSign, openSign, round2 } from '../formulas/formulas.ts';
import { rowToListItem, type TradeListCode, type TradeRow } from './tables.ts';

/** Table names of the trades projection's live version (from the runtime's `liveTables`). */
export interface TradeReadTables {
  trades: string;
  trade_counts: string;
  split_history: string;
  daily_premium: string;
}

/** Part 1 §9: an open trade shows on the expiring list within 7 days of expiration (or once expired). */
export const EXPIRING_WINDOW_DAYS = 7;

const listCodes: Record<TradeListStatus, TradeListCode> = { open: 1, closed: 2, rolled: 3 };

type Filters = { ticker?: string | undefined; au?: string | undefined; su?: string | undefined };

function filterSql(f: Filters): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  if (f.ticker) parts.push(sql`and ticker = ${f.ticker}`);
  if (f.au) parts.push(sql`and au = ${f.au}`);
  if (f.su) parts.push(sql`and su = ${f.su}`);
  return parts.length ? sql.join(parts, sql` `) : sql``;
}

async function page(
  db: Kysely<any>,
  table: string,
  where: RawBuilder<unknown>,
  orderBy: RawBuilder<unknown>,
  q: { page: number; size: number },
  today: string,
  countOf: RawBuilder<{ n: number }> | null = null,
): Promise<TradeListResponse> {
  const T = sql.table(table);
  const [items, count] = await Promise.all([
    sql<TradeRow>`select * from ${T} where ${where} order by ${orderBy} limit ${q.size} offset ${(q.page - 1) * q.size}`.execute(db),
    (countOf ?? sql<{ n: number }>`select count(*)::int as n from ${T} where ${where}`).execute(db),
  ]);
  const total = Number(count.rows[0]?.n ?? 0);
  return { items: items.rows.map((r) => rowToListItem(r, today)), page: q.page, pages: Math.ceil(total / q.size), size: q.size, total };
}

/**
 * Open list by open date, newest first; closed and rolled lists by close date, newest first (part 1
 * §4). The date range applies to the same date the list sorts by. `uid` breaks ties so pages never
 * overlap.
 */
export function listTrades(db: Kysely<any>, tables: TradeReadTables, userId: string, status: TradeListStatus, q: TradeListQuery, today: string): Promise<TradeListResponse> {
  const where = sql`user_id = ${userId} and list = ${listCodes[status]} ${filterSql(q)}
    ${q.sd ? sql`and sort_date >= ${q.sd}` : sql``} ${q.ed ? sql`and sort_date <= ${q.ed}` : sql``}`;
  const unfiltered = !q.ticker && !q.au && !q.su && !q.sd && !q.ed;
  const countOf = unfiltered ? sql<{ n: number }>`select coalesce((select n from ${sql.table(tables.trade_counts)} where user_id = ${userId} and list = ${listCodes[status]}), 0) as n` : null;
  return page(db, tables.trades, where, sql`sort_date desc, uid desc`, q, today, countOf);
}

/** Open trades expiring within the window or already expired, soonest first; `ed` bounds the open date. */
export function listExpiring(db: Kysely<any>, tables: TradeReadTables, userId: string, q: ExpiringListQuery, today: string): Promise<TradeListResponse> {
  const where = sql`user_id = ${userId} and list = 1 and ed <= ${addDays(today, EXPIRING_WINDOW_DAYS)} ${filterSql(q)}
    ${q.ed ? sql`and tod <= ${q.ed}` : sql``}`;
  return page(db, tables.trades, where, sql`ed asc, uid asc`, q, today);
}

/** One of the user's trades, or undefined (also for another user's uid). */
export async function findTrade(db: Kysely<any>, tables: TradeReadTables, userId: string, uid: string): Promise<TradeRow | undefined> {
  const { rows } = await sql<TradeRow>`select * from ${sql.table(tables.trades)} where uid = ${uid} and user_id = ${userId}`.execute(db);
  return rows[0];
}

export async function tradesByUids(db: Kysely<any>, tables: TradeReadTables, userId: string, uids: readonly string[]): Promise<TradeRow[]> {
  if (!uids.length) return [];
  const { rows } = await sql<TradeRow>`select * from ${sql.table(tables.trades)}
    where user_id = ${userId} and uid in (select json_array_elements_text(${JSON.stringify(uids)}::json))`.execute(db);
  return rows;
}

/**
 * The trades of one New York date: opened that day (open), opened and closed that day (scalp), closed
 * that day after an earlier open (closed). Totals: a scalp counts as two trades; credits add and debits
 * subtract (part 1 §9), so the premium is the day's premium cash flow.
 */
export async function tradesByDate(db: Kysely<any>, tables: TradeReadTables, userId: string, date: string, today: string): Promise<TradesByDateResponse> {
  const T = sql.table(tables.trades);
  const { rows } = await sql<TradeRow>`
    select * from ${T} where user_id = ${userId} and tod = ${date}
    union all
    select * from ${T} where user_id = ${userId} and tcd = ${date} and tod <> ${date}
    order by created_at, uid`.execute(db);
  const open: TradeListItem[] = [];
  const scalp: TradeListItem[] = [];
  const closed: TradeListItem[] = [];
  let premium = 0;
  let fees = 0;
  for (const r of rows) {
    const item = rowToListItem(r, today);
    const openedToday = r.tod === date;
    const closedToday = r.tcd === date && r.status !== 1;
    if (openedToday) {
      premium += openSign(r.ot) * r.pao;
      fees += r.nfto;
    }
    if (closedToday) {
      premium += closeSign(r.ct) * (r.pac ?? 0);
      fees += r.nftc ?? 0;
    }
    (openedToday && closedToday ? scalp : openedToday ? open : closed).push(item);
  }
  return {
    date,
    summary: {
      trades: open.length + closed.length + 2 * scalp.length,
      open_count: open.length,
      scalp_count: scalp.length,
      closed_count: closed.length,
      premium: round2(premium),
      fees: round2(fees),
      net: round2(premium - fees),
    },
    open_trades: open,
    scalp_trades: scalp,
    closed_trades: closed,
  };
}
