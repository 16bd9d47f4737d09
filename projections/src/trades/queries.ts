import { sql, type Kysely, type RawBuilder } from 'kysely';
import { addDays } from '@oj/contracts/business-date';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import type { ExpiringListQuery, TradeFilters, TradeListQuery, TradeListResponse, TradeDaySection, TradeListStatus, TradesByDateResponse } from '@oj/contracts/trade-views';
import { collateral, daysOpen, openSign, round2 } from '@oj/contracts/formulas';
import type { SplitHistoryRow } from '../split-history/tables.ts';
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
  const where = statusListWhere(userId, status, q);
  const unfiltered = !q.ticker && !q.au && !q.su && !q.sd && !q.ed;
  const countOf = unfiltered ? sql<{ n: number }>`select coalesce((select n from ${sql.table(tables.trade_counts)} where user_id = ${userId} and list = ${listCodes[status]}), 0) as n` : null;
  return page(db, tables.trades, where, sql`sort_date desc, uid desc`, q, today, countOf);
}

/** A status list's rows: the user's, on that list, through its filters and date range (on the date it sorts by). */
function statusListWhere(userId: string, status: TradeListStatus, q: TradeFilters): RawBuilder<unknown> {
  return sql`user_id = ${userId} and list = ${listCodes[status]} ${filterSql(q)}
    ${q.sd ? sql`and sort_date >= ${q.sd}` : sql``} ${q.ed ? sql`and sort_date <= ${q.ed}` : sql``}`;
}

/** Every row of a status list with its filters, in the list's order: what its pages hold, at once (the CSV export). */
export async function allOfStatusList(db: Kysely<any>, tables: TradeReadTables, userId: string, status: TradeListStatus, q: TradeFilters, today: string): Promise<TradeListItem[]> {
  const { rows } = await sql<TradeRow>`select * from ${sql.table(tables.trades)} where ${statusListWhere(userId, status, q)} order by sort_date desc, uid desc`.execute(db);
  return rows.map((r) => rowToListItem(r, today));
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
 * that day after an earlier open (closed), one list in that order, each trade with its `section`. The
 * dialog's totals come from this list (`tradeDaySummary`).
 *
 * "Opened that day" means the position as the trader entered it. Later commands cut it into rows that
 * keep its open date: a partial close leaves the closed part and a remainder (`pf`), a split replaces a
 * two-leg trade by its legs (`auid`, the broken trade living on in split_history with its `gene`). Those
 * rows are joined back into the one trade opened that day (a split only while both legs are there); a part closed on the same day while the rest
 * stays open is listed under Closed Trades, and a position wholly closed that day stays a scalp.
 */
export async function tradesByDate(db: Kysely<any>, tables: TradeReadTables, userId: string, date: string, today: string): Promise<TradesByDateResponse> {
  const T = sql.table(tables.trades);
  const [{ rows }, splits] = await Promise.all([
    sql<TradeRow>`
    select * from ${T} where user_id = ${userId} and tod = ${date}
    union all
    select * from ${T} where user_id = ${userId} and tcd = ${date} and tod <> ${date}
    order by created_at, uid`.execute(db),
    sql<SplitHistoryRow>`select * from ${sql.table(tables.split_history)} where user_id = ${userId} and gene->>'tod' = ${date}`.execute(db),
  ]);
  const openedRows = new Map(rows.filter((r) => r.tod === date).map((r) => [r.uid, r]));
  // A split is joined back only while both its legs are still there: once a leg is deleted, the position
  // as entered no longer exists, and what is left is listed as what it is (a leg, with its own strategy).
  const splitOf = new Map(splits.rows.filter((s) => s.trades.every((u) => openedRows.has(u))).map((s) => [s.auid, s]));
  // The entered position a row of the day belongs to: up its remainder links, to its split ancestor, and
  // on from there when the split trade was itself a remainder (a spread partly closed, then the rest split:
  // its split record's `parent.pf`), so the position is one, as its day record counts it. The split met on
  // the way is the group's.
  const positionOf = (r: TradeRow): { key: string; split: SplitHistoryRow | undefined } => {
    let cur = r;
    let split: SplitHistoryRow | undefined;
    const seen = new Set<string>([r.uid]);
    for (;;) {
      while (cur.pf && openedRows.has(cur.pf) && !seen.has(cur.pf)) {
        seen.add(cur.pf);
        cur = openedRows.get(cur.pf)!;
      }
      const ancestor = cur.auid ? splitOf.get(cur.auid) : undefined;
      if (!ancestor || split === ancestor) return { key: cur.uid, split };
      split = ancestor;
      const from = ancestor.parent?.pf;
      if (!from || !openedRows.has(from) || seen.has(from)) return { key: `split:${ancestor.auid}`, split };
      seen.add(from);
      cur = openedRows.get(from)!;
    }
  };
  // Per entered position: its rows, and the split met on the way from any of them (the closed part of a
  // spread split later meets none; its legs do).
  const groups = new Map<string, { members: TradeRow[]; split: SplitHistoryRow | undefined }>();
  const open: TradeListItem[] = [];
  const scalp: TradeListItem[] = [];
  const closed: TradeListItem[] = [];
  const closedOn = (r: TradeRow) => r.tcd === date && r.status !== 1;
  for (const r of rows) {
    const openedToday = r.tod === date;
    if (openedToday) {
      const { key, split } = positionOf(r);
      const group = groups.get(key) ?? { members: [], split: undefined };
      group.members.push(r);
      group.split ??= split;
      groups.set(key, group);
    } else if (closedOn(r)) closed.push(rowToListItem(r, today));
  }
  const byCreated = (a: TradeRow, b: TradeRow) => a.created_at.localeCompare(b.created_at) || a.uid.localeCompare(b.uid);
  for (const { members, split } of [...groups.values()].sort((a, b) => byCreated(a.members[0] as TradeRow, b.members[0] as TradeRow))) {
    if (!split && members.length === 1) {
      const r = members[0] as TradeRow;
      (closedOn(r) ? scalp : open).push(rowToListItem(r, today));
      continue;
    }
    if (members.every(closedOn)) {
      for (const r of members) scalp.push(rowToListItem(r, today));
      continue;
    }
    open.push(enteredPosition(members, split, today));
    for (const r of members) if (closedOn(r)) closed.push(rowToListItem(r, today));
  }
  const inSection = (section: TradeDaySection) => (t: TradeListItem) => ({ ...t, section });
  return [...open.map(inSection('open')), ...scalp.map(inSection('scalp')), ...closed.map(inSection('closed'))];
}

/**
 * One position as entered, from the rows it became: its contracts and fee are the parts' sums (a partial
 * close allocates them), a split ancestor's contracts from its gene, its strikes from the legs in leg order
 * (the gene's cause names the closed and the open leg). Its premium is the parts' net, credits less debits,
 * with the transaction of its sign: for a split, the legs' premiums (which sum to the spread's, within the
 * split's tolerance, and follow a later edit of a leg), so the day's summary equals its record's `np`. It
 * shows as opened: no close figures.
 */
function enteredPosition(members: TradeRow[], split: SplitHistoryRow | undefined, today: string): TradeListItem {
  const first = members.reduce((a, b) => (a.created_at < b.created_at || (a.created_at === b.created_at && a.uid <= b.uid) ? a : b));
  const base = rowToListItem(first, today);
  const nfto = round2(members.reduce((n, r) => n + r.nfto, 0));
  let uid = first.uid;
  let su = first.su;
  let sp = first.sp;
  let cs = members.reduce((n, r) => n + r.cs, 0);
  const net = members.reduce((n, r) => n + openSign(r.ot) * r.pao, 0);
  const pao = round2(Math.abs(net));
  const ot = net > 0 || (net === 0 && first.ot === 1) ? 1 : 2;
  let tod = first.tod;
  let ed = first.ed;
  if (split) {
    // The split trade's contracts, and those of the parts cut from the position before it was split (a
    // partial close of the spread, then its remainder split): the position then keeps its first row's uid.
    const before = members.filter((r) => r.auid !== split.auid);
    uid = before.length ? first.uid : split.auid;
    su = split.su;
    cs = split.gene.cs + before.reduce((n, r) => n + r.cs, 0);
    tod = split.gene.tod;
    ed = split.gene.ed;
    const legs = /Leg (\d+) closed, Leg (\d+) remains open/.exec(split.gene.cause);
    const [closedUid, openUid] = split.trades;
    const strikeOf = (u: string | undefined) => members.find((r) => r.uid === u)?.sp[0];
    const closedStrike = strikeOf(closedUid);
    const openStrike = strikeOf(openUid);
    if (legs && closedStrike !== undefined && openStrike !== undefined) {
      const out: number[] = [];
      out[Number(legs[1]) - 1] = closedStrike;
      out[Number(legs[2]) - 1] = openStrike;
      sp = out.filter((v) => v !== undefined);
    } else sp = members.flatMap((r) => r.sp);
  }
  return {
    ...base,
    uid,
    su,
    sp,
    cs,
    pao,
    ot,
    tod,
    ed,
    nfto,
    c: collateral({ strategyUid: su, strikePrices: sp, contractSize: cs, premiumAtOpen: pao, openTransaction: ot, costBasis: first.cb, stockPriceAtOpen: first.spo }),
    status: 1,
    tcd: null,
    pac: null,
    npc: null,
    ct: null,
    nftc: null,
    ror: null,
    aroc: null,
    cg: null,
    auid: null,
    rf: null,
    pf: null,
    do: daysOpen(tod, today),
    dis: null,
  };
}
