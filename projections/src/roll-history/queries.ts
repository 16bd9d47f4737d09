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
  const { nodes, splits } = rollTreeNodes(rows, splitRows);
  return { items: nodes.flatMap((n) => (n.item ? [n.item] : [])), splits };
}

/** One node of a lineage's roll tree: a trade, or a split trade (`split`), under `parent` at `depth`. */
export type RollTreeNode = { parent: string | null; depth: number } & ({ item: RollHistoryItem; split?: undefined } | { split: RollHistorySplit; item?: undefined });

/**
 * A lineage's trade rows and split records as one tree, in walk order: roots first, each node followed by
 * what came from it (a roll and the close it follows can share an instant, so timestamps alone do not
 * order them). Siblings in the order given (trades, then splits), or by open date with `sortByOpenDate`.
 * Pure: the roll history query and the audit's as-of view (services/src/audit/journal-views.ts) both draw
 * it. `splits` is in the order of `splitRows`.
 */
export function rollTreeNodes(
  rows: readonly TradeRow[],
  splitRows: readonly SplitHistoryRow[],
  options: { sortByOpenDate?: boolean } = {},
): { nodes: RollTreeNode[]; splits: RollHistorySplit[] } {
  const byUid = new Map(rows.map((r) => [r.uid, r]));
  const splits = splitRows.map((s) => toRollHistorySplit(s, byUid));
  const splitUids = new Set(splits.map((s) => s.uid));
  // A leg itself (a remainder of a leg keeps its `auid` but comes from the leg it was left from).
  const items = rows.map((r) => ({ ...toRollHistoryItem(r), split_of_uid: r.auid !== null && r.rf === null && r.pf === null && splitUids.has(r.auid) ? r.auid : null }));
  type Entry = { uid: string; previous: string | null; openDate: string; node: Pick<RollTreeNode, 'item' | 'split'> };
  const entries: Entry[] = [
    ...items.map((i): Entry => ({ uid: i.uid, previous: previousOf(i), openDate: i.trade_open_date, node: { item: i } })),
    ...splits.map((s): Entry => ({ uid: s.uid, previous: previousOf(s), openDate: s.trade_open_date, node: { split: s } })),
  ];
  const uids = new Set(entries.map((e) => e.uid));
  const children = new Map<string | null, Entry[]>();
  for (const e of entries) {
    const parent = e.previous !== null && uids.has(e.previous) ? e.previous : null;
    const list = children.get(parent) ?? [];
    list.push(e);
    children.set(parent, list);
  }
  const nodes: RollTreeNode[] = [];
  const seen = new Set<string>();
  const visit = (parent: string | null, depth: number) => {
    const list = children.get(parent) ?? [];
    if (options.sortByOpenDate) list.sort((a, b) => (a.openDate < b.openDate ? -1 : a.openDate > b.openDate ? 1 : 0));
    for (const e of list) {
      if (seen.has(e.uid)) continue;
      seen.add(e.uid);
      nodes.push({ parent, depth, ...e.node } as RollTreeNode);
      visit(e.uid, depth + 1);
    }
  };
  visit(null, 0);
  return { nodes, splits };
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

/** A trade row as a roll history item (a leg's `split_of_uid` is set by `rollTreeNodes`, which knows the splits). */
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
