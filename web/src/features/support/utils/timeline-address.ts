import { isStorableText } from '@oj/contracts/common';
import { timelineQuery, type TimelineResponse } from '@oj/contracts/audit';

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

/**
 * Where a page is, in the timeline's order (oldest or newest first): right after an event (what Next page
 * reaches, `?cursor=…`) or right before one (what Previous page reaches, `?before=…`). One position, whatever
 * the page's number: the server counts the events before it (QA 74: the address held the cursor of every
 * page turned, 7.9 KB at page 162, and past 300 pages the server refused it with 431).
 */
export interface TimelinePagePosition {
  side: 'after' | 'before';
  position: string;
}

/** What the address says the timeline shows: its applied filters, and the page (null: the first). */
export interface TimelineAddress {
  filters: TimelineFilterState;
  page: TimelinePagePosition | null;
}

const TEXT_KEYS = ['trade', 'lineage', 'type', 'from', 'to'] as const;
/** The page right after this position (exclusive), as the API's `cursor` reads it. */
const CURSOR = 'cursor';
/** The page right before this position (exclusive): the API's `cursor` read the other way. */
const BEFORE = 'before';
const KEYS: readonly string[] = [...TEXT_KEYS, 'direction', CURSOR, BEFORE];

const isPosition = (v: string | null | undefined): v is string => v != null && timelineQuery.shape.cursor.safeParse(v).success;

/**
 * The timeline's state in the support screen's address (`?lineage=…&type=TradeRolled&cursor=…`), so a
 * reload, Back or a shared link shows the same page of the same filtered log. Each value is read with
 * the timeline API's own query contract; what it would refuse is dropped rather than sent (a bad position:
 * the first page).
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
  // Links written before QA 74 (pasted into tickets) hold the cursor of every page turned, in order
  // (`?cursor=…&cursor=…`): the last names the page they showed.
  const after = params.getAll(CURSOR).at(-1);
  const before = params.get(BEFORE);
  const page: TimelinePagePosition | null = isPosition(after) ? { side: 'after', position: after } : isPosition(before) ? { side: 'before', position: before } : null;
  return { filters, page };
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
  if (address.page) next.set(address.page.side === 'after' ? CURSOR : BEFORE, address.page.position);
  return next;
}

/** The timeline API's query (without the reason) for one page. */
export interface TimelineRead {
  trade?: string;
  lineage?: string;
  type?: string;
  from?: string;
  to?: string;
  direction: 'forward' | 'backward';
  limit: number;
  cursor?: string;
}

const opposite = (d: 'forward' | 'backward') => (d === 'forward' ? 'backward' : 'forward');

/**
 * The read that answers the page `address` names, `size` events a page: after a position, onwards from it
 * in the timeline's order; before one, the other way from it (the API reads either way from a position),
 * and `timelinePageOf` turns the answer round.
 */
export function timelineReadOf(address: TimelineAddress, size: number): TimelineRead {
  const f = address.filters;
  return {
    direction: address.page?.side === 'before' ? opposite(f.direction) : f.direction,
    limit: size,
    ...(address.page ? { cursor: address.page.position } : {}),
    ...(f.trade.trim() ? { trade: f.trade.trim() } : {}),
    ...(f.lineage.trim() ? { lineage: f.lineage.trim() } : {}),
    ...(f.type ? { type: f.type } : {}),
    ...(f.from ? { from: f.from } : {}),
    ...(f.to ? { to: f.to } : {}),
  };
}

/** A page of the timeline as the screen shows it, and where its pager leads. */
export interface TimelinePage<T> {
  /** In the timeline's order. */
  items: T[];
  /** Events matching the filters. */
  total: number;
  /** This page's number and how many there are (at least 1). */
  number: number;
  pages: number;
  /** The address of the page before (null on the first) and of the page after (null on the last). */
  previous: TimelineAddress | null;
  next: TimelineAddress | null;
}

/**
 * The page `address` names, from the answer to `timelineReadOf(address, size)`. Its number comes from the
 * events before it (the answer's `offset`, counted in the order read), not from the pages turned to reach
 * it, so a link opens on the same number. Previous reads back from this page's first event; when no more
 * than a page lies before, it is the first page (no position in the address).
 */
export function timelinePageOf<T extends { position: string }>(
  address: TimelineAddress,
  answer: Pick<TimelineResponse, 'next_cursor' | 'total' | 'offset'> & { items: T[] },
  size: number,
): TimelinePage<T> {
  const turned = address.page?.side === 'before';
  const items = turned ? [...answer.items].reverse() : answer.items;
  // Read the other way, the answer's offset counts the events after the page in the timeline's order.
  const before = turned ? Math.max(0, answer.total - answer.offset - items.length) : answer.offset;
  const more = turned ? answer.offset > 0 : answer.next_cursor !== null;
  const first = items[0];
  const last = items.at(-1);
  const number = Math.ceil(before / size) + 1;
  const filters = address.filters;
  return {
    items,
    total: answer.total,
    number,
    pages: Math.max(1, Math.ceil(answer.total / size), number),
    previous: before === 0 ? null : { filters, page: before > size && first ? { side: 'before', position: first.position } : null },
    next: more && last ? { filters, page: { side: 'after', position: last.position } } : null,
  };
}
