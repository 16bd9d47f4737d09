import { sql, type Kysely } from 'kysely';
import type { RollHistoryItem } from '@oj/contracts/trade-views';
import type { TradeRow } from '../trades/tables.ts';
import type { TradeReadTables } from '../trades/queries.ts';

/**
 * The roll history of a trade: every trade of its lineage, linked to the previous one (the trade it
 * was rolled from, or for the remainder of a partial close or roll, the trade it was left from). The
 * tree starts at the trade with no previous one. It needs no table of its own: the lineage's trade
 * rows carry the links, and they are one index read (`lid`).
 * Undefined when the uid is not one of the user's trades.
 */
export async function rollHistory(db: Kysely<any>, tables: TradeReadTables, userId: string, uid: string): Promise<RollHistoryItem[] | undefined> {
  const T = sql.table(tables.trades);
  const { rows } = await sql<TradeRow>`
    select t.* from ${T} t
    where t.lid = (select lid from ${T} where uid = ${uid} and user_id = ${userId}) and t.user_id = ${userId}
    order by t.tod, t.created_at, t.uid`.execute(db);
  if (!rows.length) return undefined;
  return treeOrder(rows.map(toRollHistoryItem));
}

/**
 * Each trade after the one it came from, roots first (a roll and the close it follows can share an
 * instant, so timestamps alone do not order them); siblings by open date.
 */
function treeOrder(items: RollHistoryItem[]): RollHistoryItem[] {
  const uids = new Set(items.map((i) => i.uid));
  const children = new Map<string | null, RollHistoryItem[]>();
  for (const i of items) {
    const parent = i.rolled_from_uid !== null && uids.has(i.rolled_from_uid) ? i.rolled_from_uid : null;
    const list = children.get(parent) ?? [];
    list.push(i);
    children.set(parent, list);
  }
  const out: RollHistoryItem[] = [];
  const visit = (parent: string | null) => {
    for (const i of children.get(parent) ?? []) {
      out.push(i);
      visit(i.uid);
    }
  };
  visit(null);
  return out;
}

export function toRollHistoryItem(r: TradeRow): RollHistoryItem {
  return {
    uid: r.uid,
    rolled_from_uid: r.rf ?? r.pf,
    strike_prices: r.sp,
    premium_at_open: r.pao,
    premium_at_close: r.pac,
    expiration_date: r.ed,
    trade_open_date: r.tod,
    trade_close_date: r.tcd,
    status: r.status,
    contract_size: r.cs,
    partial_of_uid: r.pf,
  };
}
