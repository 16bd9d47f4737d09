import { sql, type Kysely } from 'kysely';
import type { RollHistoryItem, RollHistorySplit } from '@oj/contracts/trade-views';
import type { SplitHistoryRow } from '../split-history/tables.ts';
import type { TradeRow } from '../trades/tables.ts';
import type { TradeReadTables } from '../trades/queries.ts';

export interface RollHistory {
  items: RollHistoryItem[];
  splits: RollHistorySplit[];
}

/**
 * The roll history of a trade: every trade of its lineage, linked to the previous one (the trade it
 * was rolled from, or for the remainder of a partial close or roll, the trade it was left from, or for
 * a leg, the two-leg trade it was split from). The tree starts at the trade with no previous one. A
 * split two-leg trade left the trades, so it comes from its ancestor record (`split_history`, which keeps
 * its own links): without it the legs would stand as roots of their own, cut off from the roll before
 * them (QA). It needs no table of its own: the lineage's rows carry the links, one index read (`lid`).
 * `uid` may be a split trade's (the legs' `auid`). Undefined when the uid is not one of the user's trades.
 */
export async function rollHistory(db: Kysely<any>, tables: TradeReadTables, userId: string, uid: string): Promise<RollHistory | undefined> {
  const T = sql.table(tables.trades);
  const S = sql.table(tables.split_history);
  const { rows } = await sql<TradeRow>`
    select t.* from ${T} t
    where t.user_id = ${userId} and t.lid = coalesce(
      (select lid from ${T} where uid = ${uid} and user_id = ${userId}),
      (select lid from ${S} where auid = ${uid} and user_id = ${userId}))
    order by t.tod, t.created_at, t.uid`.execute(db);
  if (!rows.length) return undefined;
  const { rows: splitRows } = await sql<SplitHistoryRow>`select * from ${S} where user_id = ${userId} and lid = ${rows[0]!.lid} order by created_at, auid`.execute(db);
  const byUid = new Map(rows.map((r) => [r.uid, r]));
  const splits = splitRows.map((s) => toRollHistorySplit(s, byUid));
  const splitUids = new Set(splits.map((s) => s.uid));
  // A leg itself (a remainder of a leg keeps its `auid` but comes from the leg it was left from).
  const items = rows.map((r) => ({ ...toRollHistoryItem(r), split_of_uid: r.auid !== null && r.rf === null && r.pf === null && splitUids.has(r.auid) ? r.auid : null }));
  return { items: treeOrder(items, splits), splits };
}

function toRollHistorySplit(s: SplitHistoryRow, trades: ReadonlyMap<string, TradeRow>): RollHistorySplit {
  const legs = s.trades.map((u) => trades.get(u));
  // A version built before split records kept their parent (SHAPE_VERSION 2) has no `parent` column
  // until it is rebuilt: the split then hangs from nothing, its strikes its legs'.
  const parent = (s as Partial<SplitHistoryRow>).parent ?? null;
  return {
    uid: s.auid,
    rolled_from_uid: parent?.rf ?? null,
    partial_of_uid: parent?.pf ?? null,
    strike_prices: parent?.sp ?? legs.flatMap((l) => l?.sp ?? []),
    premium_at_open: s.gene.pao,
    expiration_date: s.gene.ed,
    trade_open_date: s.gene.tod,
    contract_size: s.gene.cs,
    split_date: legs[0]?.tcd ?? null,
  };
}

/** A node's previous one: a leg's split, else the trade it was rolled or left from. */
const previousOf = (i: { rolled_from_uid: string | null; partial_of_uid: string | null; split_of_uid?: string | null }): string | null =>
  i.split_of_uid ?? i.rolled_from_uid ?? i.partial_of_uid;

/**
 * Each trade after the one it came from, roots first (a roll and the close it follows can share an
 * instant, so timestamps alone do not order them); siblings by open date. Splits are nodes of the walk,
 * not of the answer.
 */
function treeOrder(items: RollHistoryItem[], splits: readonly RollHistorySplit[]): RollHistoryItem[] {
  const nodes: { uid: string; previous: string | null; item?: RollHistoryItem }[] = [
    ...items.map((i) => ({ uid: i.uid, previous: previousOf(i), item: i })),
    ...splits.map((s) => ({ uid: s.uid, previous: previousOf(s) })),
  ];
  const uids = new Set(nodes.map((n) => n.uid));
  const children = new Map<string | null, typeof nodes>();
  for (const n of nodes) {
    const parent = n.previous !== null && uids.has(n.previous) ? n.previous : null;
    const list = children.get(parent) ?? [];
    list.push(n);
    children.set(parent, list);
  }
  const out: RollHistoryItem[] = [];
  const seen = new Set<string>();
  const visit = (parent: string | null) => {
    for (const n of children.get(parent) ?? []) {
      if (seen.has(n.uid)) continue;
      seen.add(n.uid);
      if (n.item) out.push(n.item);
      visit(n.uid);
    }
  };
  visit(null);
  return out;
}

/** A trade row as a roll history item (a leg's `split_of_uid` is set by the caller, which knows the splits). */
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
    split_of_uid: null,
  };
}
