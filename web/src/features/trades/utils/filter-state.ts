import { isStorableText } from '@oj/contracts/common';
import { dateRangeIssues, tradeFilters } from '@oj/contracts/trade-views';
import type { TradeListFilters } from '../api/trade-keys.ts';
import { DEFAULT_DATE_RANGE, dateRangePresets, presetRange, type DateRangePreset } from './date-range.ts';

/** What a list page's search and filter panel have applied. */
export interface FilterState {
  ticker: string;
  preset: DateRangePreset;
  /** The applied custom range (only read when preset is custom). */
  customSd: string;
  customEd: string;
  au: string;
  su: string;
}

export const initialFilterState: FilterState = { ticker: '', preset: DEFAULT_DATE_RANGE, customSd: '', customEd: '', au: '', su: '' };

/** Whether a search has a date range: the Open list then also counts the open positions it leaves out. */
export const hasDateRange = (filters: TradeListFilters): boolean => filters.sd !== undefined || filters.ed !== undefined;

/** That count is the total of the same search over all dates, asked for as a page of this many rows. */
export const OUTSIDE_RANGE_PAGE_SIZE = 1;

/** The same search over all dates: what a date range leaves out is the difference of the two totals. */
export function withoutDateRange(filters: TradeListFilters): TradeListFilters {
  const { sd: _sd, ed: _ed, ...rest } = filters;
  return rest;
}

/** The search fields a list request carries for the current filter state. */
export function filtersOf(state: FilterState, today: string): TradeListFilters {
  const range = state.preset === 'all' ? {} : state.preset === 'custom' ? { sd: state.customSd, ed: state.customEd } : presetRange(state.preset, today);
  const f: TradeListFilters = { ...range };
  if (state.ticker) f.ticker = state.ticker;
  if (state.au) f.au = state.au;
  if (state.su) f.su = state.su;
  return f;
}

const PRESETS = new Set<string>(dateRangePresets.map((p) => p.value));

/**
 * The filter state a list page's address holds (`?ticker=AAPL&range=last30&au=…&su=…`, or
 * `range=custom&sd=…&ed=…`), so Back, a reload or a shared link shows the same search. Each value is
 * read with the API's own filter contract; what it would refuse is dropped rather than sent (a custom
 * range that breaks the range rules reads as the default range).
 */
export function filterStateOf(params: URLSearchParams, today: string): FilterState {
  const state = { ...initialFilterState };
  const ticker = tradeFilters.shape.ticker.safeParse(params.get('ticker') ?? undefined);
  if (ticker.success && ticker.data && isStorableText(ticker.data)) state.ticker = ticker.data;
  const range = params.get('range') ?? '';
  if (PRESETS.has(range) && range !== 'custom') state.preset = range as DateRangePreset;
  if (range === 'custom') {
    const sd = params.get('sd') ?? '';
    const ed = params.get('ed') ?? '';
    const issues = dateRangeIssues(sd, ed, today);
    if (!issues.sd && !issues.ed) Object.assign(state, { preset: 'custom', customSd: sd, customEd: ed });
  }
  for (const key of ['au', 'su'] as const) {
    const v = tradeFilters.shape[key].safeParse(params.get(key) ?? undefined);
    // The gateway refuses a NUL in any parameter (400): it is dropped here, as anything else refused.
    if (v.success && v.data && isStorableText(v.data)) state[key] = v.data;
  }
  return state;
}

/**
 * Why the address's date range is not the one shown (`filterStateOf` reads it as the default), or null
 * when it is used or there is none (QA 74: a five-year custom range in a link showed the Year list while
 * the address kept the range, and nothing said so).
 */
export function droppedRangeOf(params: URLSearchParams, today: string): string | null {
  const range = params.get('range');
  if (range === null) return null;
  if (range === 'custom') {
    const issues = dateRangeIssues(params.get('sd') ?? '', params.get('ed') ?? '', today);
    const issue = issues.sd ?? issues.ed;
    return issue ? (issue.endsWith('.') ? issue : `${issue}.`) : null;
  }
  return PRESETS.has(range) ? null : `"${range}" is not one of the date ranges.`;
}

/** The address parameters of a filter state: only what differs from the default. */
export function paramsOf(state: FilterState): Record<string, string> {
  const p: Record<string, string> = {};
  if (state.ticker) p.ticker = state.ticker;
  if (state.preset !== DEFAULT_DATE_RANGE) p.range = state.preset;
  if (state.preset === 'custom') Object.assign(p, { sd: state.customSd, ed: state.customEd });
  if (state.au) p.au = state.au;
  if (state.su) p.su = state.su;
  return p;
}

/**
 * The state without an account or strategy that is not in the trader's lists (once they are loaded): a
 * link kept from a deleted account, or someone else's, would show an empty journal with no reason. The
 * same object when nothing is dropped.
 */
export function withKnownChoices(state: FilterState, accounts?: readonly { uid: string }[], strategies?: readonly { uid: string }[]): FilterState {
  const dropAu = state.au !== '' && accounts !== undefined && !accounts.some((a) => a.uid === state.au);
  const dropSu = state.su !== '' && strategies !== undefined && !strategies.some((s) => s.uid === state.su);
  if (!dropAu && !dropSu) return state;
  return { ...state, ...(dropAu ? { au: '' } : {}), ...(dropSu ? { su: '' } : {}) };
}
