import type { InfiniteData } from '@tanstack/react-query';
import { daysBetween } from '@oj/contracts/business-date';
import { tradeStatus } from '@oj/contracts/journal-events';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { EXPIRING_WINDOW_DAYS } from '../utils/expiry.ts';
import type { TradeListFilters, TradeListKind } from './trade-keys.ts';

/**
 * Part 1 §4 "List states and upkeep": after an action the lists are patched from the command's answer
 * (which is built from the folded lineage), so they are right at once, before the read models have
 * caught up. The same functions re-apply recent changes to pages fetched in the next seconds: the
 * projector is asynchronous, and a page read during its lag must not bring a closed trade back.
 */
export interface TradePage {
  items: TradeListItem[];
  page: number;
  pages: number;
  size: number;
  total: number;
}
export type TradePages = InfiniteData<TradePage, unknown>;

/**
 * One change a command made. `before` is the trade as the lists held it before the command (null for a
 * trade the command created; undefined when no list had it loaded): with it, a trade that leaves or
 * enters a list on a page not fetched yet still moves the list's total by exactly one, as a reload would.
 */
export type TradeChange =
  | { type: 'upsert'; trade: TradeListItem; before?: TradeListItem | null }
  | { type: 'remove'; uid: string; before?: TradeListItem | null };

/**
 * What the pages a change is applied to are known to be. 'pre-command': loaded before the command, so
 * they certainly do not show it. 'fetched': the server's answer from some moment after it (or pages
 * already patched): they may or may not show it yet, so the total moves only where the loaded rows prove
 * the read models have not caught up; where they cannot tell (a trade past the loaded rows) the
 * server's total stands, as a reload would show it.
 */
export type PagesBasis = 'pre-command' | 'fetched';

const CLOSED_STATUSES: ReadonlySet<number> = new Set([
  tradeStatus.closed,
  tradeStatus.assigned,
  tradeStatus.calledAway,
  tradeStatus.expiredWorthless,
  tradeStatus.exercised,
]);

export function belongsTo(kind: TradeListKind, trade: TradeListItem, today: string): boolean {
  switch (kind) {
    case 'open':
      return trade.status === tradeStatus.open;
    case 'expiring':
      return trade.status === tradeStatus.open && daysBetween(today, trade.ed) <= EXPIRING_WINDOW_DAYS;
    case 'closed':
      return CLOSED_STATUSES.has(trade.status);
    case 'rolled':
      return trade.status === tradeStatus.rolled;
  }
}

/**
 * Whether the trade passes the list's search fields, as the read models apply them: the ticker exactly,
 * the date range on the date the list sorts by (the expiring list's end date bounds the open date).
 */
export function matchesFilters(kind: TradeListKind, trade: TradeListItem, f: TradeListFilters): boolean {
  if (f.ticker && trade.ticker !== f.ticker.toUpperCase()) return false;
  if (f.au && trade.au !== f.au) return false;
  if (f.su && trade.su !== f.su) return false;
  if (kind === 'expiring') return !f.ed || trade.tod <= f.ed;
  const date = kind === 'open' ? trade.tod : (trade.tcd ?? trade.tod);
  if (f.sd && date < f.sd) return false;
  if (f.ed && date > f.ed) return false;
  return true;
}

/**
 * The read models' orders: open by open date, closed and rolled by close date (newest first, uid
 * descending on ties); expiring by expiration, soonest first (uid ascending on ties).
 */
export function compareFor(kind: TradeListKind): (a: TradeListItem, b: TradeListItem) => number {
  switch (kind) {
    case 'open':
      return (a, b) => b.tod.localeCompare(a.tod) || b.uid.localeCompare(a.uid);
    case 'expiring':
      return (a, b) => a.ed.localeCompare(b.ed) || a.uid.localeCompare(b.uid);
    case 'closed':
    case 'rolled':
      return (a, b) => (b.tcd ?? b.tod).localeCompare(a.tcd ?? a.tod) || b.uid.localeCompare(a.uid);
  }
}

/** Items of all loaded pages, in order, duplicates (same uid on two pages after a shift) removed. */
export function flattenPages(data: TradePages | undefined): TradeListItem[] {
  if (!data) return [];
  const seen = new Set<string>();
  const out: TradeListItem[] = [];
  for (const p of data.pages) {
    for (const t of p.items) {
      if (seen.has(t.uid)) continue;
      seen.add(t.uid);
      out.push(t);
    }
  }
  return out;
}

function rechunk(data: TradePages, items: TradeListItem[], total: number): TradePages {
  const first = data.pages[0];
  const size = first?.size ?? 10;
  const pages = Math.max(1, Math.ceil(total / size));
  const count = data.pages.length;
  return {
    pageParams: data.pageParams,
    pages: data.pages.map((p, i) => ({
      ...p,
      items: i === count - 1 ? items.slice(i * size) : items.slice(i * size, (i + 1) * size),
      pages,
      total,
    })),
  };
}

/** Applies one change to a list's loaded pages; a change that does not alter the list returns it unchanged. */
export function applyChange(data: TradePages, change: TradeChange, kind: TradeListKind, filters: TradeListFilters, today: string, basis: PagesBasis = 'fetched'): TradePages {
  const items = flattenPages(data);
  const total = data.pages[0]?.total ?? items.length;
  const uid = change.type === 'remove' ? change.uid : change.trade.uid;
  const index = items.findIndex((t) => t.uid === uid);
  const member = (t: TradeListItem) => belongsTo(kind, t, today) && matchesFilters(kind, t, filters);
  const keep = change.type === 'upsert' && member(change.trade);
  const cmp = compareFor(kind);
  const allLoaded = data.pages.length >= (data.pages[0]?.pages ?? 1);
  const last = items[items.length - 1];
  /** Whether a trade of this list sorts after every loaded row, on a page not fetched yet. */
  const pastLoaded = (t: TradeListItem) => !allLoaded && (last === undefined || cmp(t, last) > 0);
  const before = change.before;
  // The earlier version was counted in the total when it was a member of the list.
  const wasMember = before ? member(before) : false;

  if (!keep) {
    if (index >= 0) {
      items.splice(index, 1);
      return rechunk(data, items, Math.max(0, total - 1));
    }
    // Not among the loaded rows: only pages known to predate the command still count it on a later page.
    if (basis === 'pre-command' && before && wasMember && pastLoaded(before)) return rechunk(data, items, Math.max(0, total - 1));
    return data;
  }
  const trade = (change as { trade: TradeListItem }).trade;
  if (index >= 0) {
    const existing = items[index];
    if (existing && existing.up === trade.up && existing.status === trade.status) return data;
    items.splice(index, 1);
  }
  // Counted already when loaded, or when its earlier version was a member (wherever it sorted).
  const counted = index >= 0 || wasMember;
  let at = items.findIndex((t) => cmp(trade, t) <= 0);
  if (at < 0 && !allLoaded) {
    // It sorts after everything loaded: it belongs on a page not fetched yet. Pages from before the
    // command do not count it yet; fetched pages may already, and nothing loaded says otherwise.
    const adds = !counted && basis === 'pre-command';
    if (index < 0 && !adds) return data;
    return rechunk(data, items, adds ? total + 1 : total);
  }
  if (at < 0) at = items.length;
  items.splice(at, 0, trade);
  // Absent from the loaded rows where it sorts: neither these pages nor (for fetched pages) the server count it.
  const newTotal = counted ? total : total + 1;
  // The loaded window keeps its length: the item pushed past its end is the next page's first.
  const loaded = data.pages.reduce((n, p) => n + p.items.length, 0);
  if (!allLoaded && items.length > loaded) items.length = loaded;
  return rechunk(data, items, newTotal);
}

export function applyChanges(data: TradePages, changes: readonly TradeChange[], kind: TradeListKind, filters: TradeListFilters, today: string, basis: PagesBasis = 'fetched'): TradePages {
  return changes.reduce((d, c) => applyChange(d, c, kind, filters, today, basis), data);
}
/**
 * Changes made in this tab in the last minute, re-applied to freshly fetched pages until the read
 * models have certainly caught up. The projector's lag is usually about 100 ms, but a busy machine or a
 * projector retrying after an error can hold it back for many seconds; re-applying a change the read
 * models already show changes nothing, so the margin is generous.
 */
const RECENT_MS = 60_000;
const recent: { at: number; change: TradeChange }[] = [];

export function rememberChanges(changes: readonly TradeChange[], now = Date.now()): void {
  for (const change of changes) recent.push({ at: now, change });
}

export function recentChanges(now = Date.now()): TradeChange[] {
  while (recent.length > 0 && (recent[0]?.at ?? 0) < now - RECENT_MS) recent.shift();
  return recent.map((r) => r.change);
}
