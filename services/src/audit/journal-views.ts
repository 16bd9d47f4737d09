import type { AsOfResponse } from '@oj/contracts/audit';
import type { LineageState } from '@oj/contracts/lineage-fold';
import type { TradeRecord } from '@oj/contracts/trade-record';
import { rollTreeNodes } from '@oj/projections/roll-history/queries';
import { splitLegs } from '@oj/projections/split-history/queries';
import { splitRow } from '@oj/projections/split-history/tables';
import { listOf, sortDateOf, type TradesTable } from '@oj/projections/trades/tables';
import { tradeRow } from '@oj/projections/trades/user-rows';

/**
 * The parts of the as-of view that are picked from a journal: the first items of each list in the
 * lists' order, and the roll and split trees of the lineages in view. Pure. Each can be computed for a
 * part of the user's lineages and the parts' answers merged (partition-replay.ts): a list's first k
 * are among the parts' first k, and the lineages in view are among the parts' lineages in view.
 */

/** The lists' order (part 1 §3) on a row's sort date and uid: newest sort date first, then uid, descending. */
const listOrder = (dateA: string, uidA: string, dateB: string, uidB: string): number =>
  dateA < dateB ? 1 : dateA > dateB ? -1 : uidA < uidB ? 1 : uidA > uidB ? -1 : 0;

/** The lists' order on rows. */
export const byListOrder = (a: TradesTable, b: TradesTable): number => listOrder(a.sort_date, a.uid, b.sort_date, b.uid);

/** The same order on records, from the row's sort date (`sortDateOf`) without computing rows. */
export const byRecordListOrder = (a: TradeRecord, b: TradeRecord): number => listOrder(sortDateOf(a), a.uid, sortDateOf(b), b.uid);

/**
 * The first `k` of `rows` in the order of `cmp`: what a stable sort then `slice(0, k)` gives (a row
 * equal to one already kept goes after it), without sorting 100,000 rows to show 50.
 */
export function firstInOrder<T>(rows: Iterable<T>, k: number, cmp: (a: T, b: T) => number): T[] {
  const out: T[] = [];
  if (k <= 0) return out;
  for (const r of rows) {
    if (out.length === k && cmp(r, out[k - 1]!) >= 0) continue;
    let lo = 0;
    let hi = out.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cmp(r, out[mid]!) < 0) hi = mid;
      else lo = mid + 1;
    }
    out.splice(lo, 0, r);
    if (out.length > k) out.pop();
  }
  return out;
}

/** Per list (1 open, 2 closed, 3 rolled): its trades' count and its first `k` rows in the lists' order. */
export function listHeads(lineages: Iterable<LineageState>, k: number): { counts: [number, number, number]; heads: [TradesTable[], TradesTable[], TradesTable[]] } {
  const lists: [TradeRecord[], TradeRecord[], TradeRecord[]] = [[], [], []];
  for (const l of lineages) for (const r of l.trades.values()) lists[listOf(r.status) - 1]!.push(r);
  return {
    counts: [lists[0].length, lists[1].length, lists[2].length],
    heads: [0, 1, 2].map((i) => firstInOrder(lists[i]!, k, byRecordListOrder).map(tradeRow)) as [TradesTable[], TradesTable[], TradesTable[]],
  };
}

export const TREE_LIMIT = 20;

const hasRollShape = (l: LineageState) => l.hasRollHistory || [...l.trades.values()].some((t) => t.partialOf !== null);
const hasSplitShape = (l: LineageState) => l.splits.length > 0;
const focusesOn = (l: LineageState, trade: string) => l.trades.has(trade) || l.lineageId === trade || l.splits.some((s) => s.auid === trade);

export type RollTree = AsOfResponse['roll_trees'][number];
export type SplitTree = AsOfResponse['split_trees'][number];

/**
 * A lineage's roll tree: each trade under the one it was rolled from or left from by a partial close; a
 * split trade (it left the trades) under the one it came from, as a node of its own, its legs under it.
 * The tree is the roll history query's (`rollTreeNodes`), drawn from the folded state's rows.
 */
export function rollTreeOf(l: LineageState): RollTree {
  const rows = [...l.trades.values()].map((t) => tradeRow(t) as never);
  const { nodes } = rollTreeNodes(rows, l.splits.map(splitRow), { sortByOpenDate: true });
  return {
    lineage_id: l.lineageId,
    ticker: [...l.trades.values()][0]?.ticker ?? '',
    nodes: nodes.map(({ parent, depth, ...n }) =>
      n.item
        ? {
            uid: n.item.uid,
            parent,
            depth,
            split: false,
            status: n.item.status,
            strike_prices: n.item.strike_prices,
            contract_size: n.item.contract_size,
            premium_at_open: n.item.premium_at_open,
            premium_at_close: n.item.premium_at_close,
            trade_open_date: n.item.trade_open_date,
            trade_close_date: n.item.trade_close_date,
            expiration_date: n.item.expiration_date,
          }
        : {
            uid: n.split.uid,
            parent,
            depth,
            split: true,
            status: 0,
            strike_prices: n.split.strike_prices,
            contract_size: n.split.contract_size,
            premium_at_open: n.split.premium_at_open,
            premium_at_close: null,
            trade_open_date: n.split.trade_open_date,
            trade_close_date: n.split.split_date,
            expiration_date: n.split.expiration_date,
          },
    ),
  };
}

/**
 * A lineage's split trees: each broken two-leg trade with its legs as the trader's split history lists
 * them at this point (`splitLegs`: both legs, then what partial closes of a leg left), then a leg deleted
 * by then, as deleted (the split history no longer lists it; support sees it was there).
 */
export function splitTreesOf(l: LineageState): SplitTree[] {
  const rows = [...l.trades.values()].map(tradeRow);
  return l.splits.map((s) => {
    const row = splitRow(s);
    const legs = splitLegs(row, rows);
    const kept = new Set(legs.map((t) => t.uid));
    return {
      auid: row.auid,
      lineage_id: row.lid,
      su: row.su,
      cause: row.gene.cause,
      created_at: row.created_at,
      legs: [
        ...legs.map((t) => ({ uid: t.uid, status: t.status, strike_prices: t.sp, su: t.su })),
        ...row.trades.filter((uid) => !kept.has(uid)).map((uid) => ({ uid, status: null, strike_prices: [], su: null })),
      ],
    };
  });
}

/** A tree in view and where its lineage stands in the order of first events (to merge parts' trees). */
export interface TreeCandidate<T> {
  order: number;
  tree: T;
}

/**
 * The lineages in view (`ordered`: in the order of their first events, `orderOf` their place in the
 * user's whole journal, given the lineage and its index in `ordered`): every lineage of the focused trade, oldest first, or the TREE_LIMIT most
 * recently begun lineages with the shape, newest first.
 */
function inView<T>(ordered: readonly LineageState[], orderOf: (l: LineageState, i: number) => number, trade: string | undefined, has: (l: LineageState) => boolean, tree: (l: LineageState) => T): TreeCandidate<T>[] {
  if (trade) {
    const out: TreeCandidate<T>[] = [];
    ordered.forEach((l, i) => {
      if (focusesOn(l, trade)) out.push({ order: orderOf(l, i), tree: tree(l) });
    });
    return out;
  }
  const picked: TreeCandidate<T>[] = [];
  for (let i = ordered.length - 1; i >= 0 && picked.length < TREE_LIMIT; i--) if (has(ordered[i]!)) picked.push({ order: orderOf(ordered[i]!, i), tree: tree(ordered[i]!) });
  return picked;
}

export const rollTreesInView = (ordered: readonly LineageState[], orderOf: (l: LineageState, i: number) => number, trade: string | undefined): TreeCandidate<RollTree>[] =>
  inView(ordered, orderOf, trade, hasRollShape, rollTreeOf);
export const splitTreesInView = (ordered: readonly LineageState[], orderOf: (l: LineageState, i: number) => number, trade: string | undefined): TreeCandidate<SplitTree[]>[] =>
  inView(ordered, orderOf, trade, hasSplitShape, splitTreesOf);

/** The trees in view over all parts: what `inView` over the whole journal gives. */
export function mergeInView<T>(parts: ReadonlyArray<readonly TreeCandidate<T>[]>, trade: string | undefined): T[] {
  const all = parts.flat();
  if (trade) return all.sort((a, b) => a.order - b.order).map((c) => c.tree);
  return all
    .sort((a, b) => b.order - a.order)
    .slice(0, TREE_LIMIT)
    .map((c) => c.tree);
}
