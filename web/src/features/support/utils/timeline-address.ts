import { isStorableText } from '@oj/contracts/common';
import { timelineQuery } from '@oj/contracts/audit';

/** The timeline's filters as the form holds them (empty text is no filter). */
export interface TimelineFilterState {
  trade: string;
  lineage: string;
  type: string;
  from: string;
  to: string;
  direction: 'forward' | 'backward';
}

export const emptyTimelineFilters: TimelineFilterState = { trade: '', lineage: '', type: '', from: '', to: '', direction: 'forward' };

/** What the address says the timeline shows: its applied filters, and the page as the cursors of the pages before it. */
export interface TimelineAddress {
  filters: TimelineFilterState;
  /** Keyset cursors of pages 2 … n, in order: empty on page 1. Previous drops the last. */
  cursors: string[];
}

const TEXT_KEYS = ['trade', 'lineage', 'type', 'from', 'to'] as const;
/** The repeated parameter that holds the page's cursors (`?cursor=…&cursor=…` is page 3). */
const CURSOR = 'cursor';
const KEYS: readonly string[] = [...TEXT_KEYS, 'direction', CURSOR];

/**
 * The timeline's state in the support screen's address (`?lineage=…&type=TradeRolled&cursor=…`), so a
 * reload, Back or a shared link shows the same page of the same filtered log. Each value is read with
 * the timeline API's own query contract; what it would refuse is dropped rather than sent, and a bad
 * cursor drops the page's whole trail (its pages before would not lead to it).
 */
export function timelineAddressOf(params: URLSearchParams): TimelineAddress {
  const filters = { ...emptyTimelineFilters };
  for (const key of TEXT_KEYS) {
    const raw = params.get(key)?.trim();
    const v = timelineQuery.shape[key].safeParse(raw || undefined);
    // The gateway refuses a NUL in any parameter (400): it is dropped here, as anything else refused.
    if (v.success && v.data && isStorableText(v.data)) filters[key] = v.data;
  }
  if (params.get('direction') === 'backward') filters.direction = 'backward';
  const raw = params.getAll(CURSOR);
  const cursors = raw.every((c) => timelineQuery.shape.cursor.safeParse(c).success) ? raw : [];
  return { filters, cursors };
}

/**
 * `params` with the timeline's parameters set to `address`: only what differs from the defaults, in a
 * fixed order; the address's other parameters are kept.
 */
export function withTimelineAddress(params: URLSearchParams, address: TimelineAddress): URLSearchParams {
  const next = new URLSearchParams([...params].filter(([k]) => !KEYS.includes(k)));
  for (const key of TEXT_KEYS) {
    const v = address.filters[key].trim();
    if (v) next.set(key, v);
  }
  if (address.filters.direction === 'backward') next.set('direction', 'backward');
  for (const c of address.cursors) next.append(CURSOR, c);
  return next;
}
