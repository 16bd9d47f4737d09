/**
 * Query keys of the trade feature. Every list lives under ['trades', 'list'], so one invalidation
 * refreshes them all after a trade action; histories live under their own prefixes.
 */
export type TradeListKind = 'open' | 'expiring' | 'closed' | 'rolled';

export interface TradeListFilters {
  ticker?: string;
  /** Account uid. */
  au?: string;
  /** Strategy uid. */
  su?: string;
  /** Start and end of the date range, 'YYYY-MM-DD'. */
  sd?: string;
  ed?: string;
}

export const tradeKeys = {
  all: ['trades'] as const,
  lists: () => ['trades', 'list'] as const,
  listsOf: (kind: TradeListKind) => ['trades', 'list', kind] as const,
  list: (kind: TradeListKind, filters: TradeListFilters, size: number) => ['trades', 'list', kind, { ...filters, size }] as const,
  /** The bell and the sidebar badge: first page of the expiring list without filters. */
  expiringSummary: () => ['trades', 'list', 'expiring-summary'] as const,
  rollHistory: (uid: string) => ['trades', 'roll-history', uid] as const,
  splitHistory: (auid: string) => ['trades', 'split-history', auid] as const,
  byDate: (date: string) => ['trades', 'by-date', date] as const,
};
