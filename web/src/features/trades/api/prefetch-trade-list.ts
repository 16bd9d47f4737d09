import type { QueryClient } from '@tanstack/react-query';
import { todayInNewYork } from '@/lib/format.ts';
import { getItemsPerPage } from '@/lib/settings.ts';
import { droppedRangeOf, filtersOf, filterStateOf, hasDateRange, OUTSIDE_RANGE_PAGE_SIZE, withoutDateRange } from '../utils/filter-state.ts';
import { getExpiringTradesQueryOptions } from './get-expiring-trades.ts';
import { getTradesByStatusQueryOptions } from './get-trades-by-status.ts';
import type { TradeListKind } from './trade-keys.ts';

/**
 * Asks for a list's first page as the shell opens with the list (the route's handle, see
 * app/shell/app-shell.tsx), beside the accounts and strategies the shell waits for, with the very query the
 * page makes once it renders: its filters from the address (components/trade-list-page.tsx), the stored
 * page size. The page then finds it asked already (a list's answer is fresh for 30 s), a round trip
 * sooner. Nothing is asked when the address names an account or a strategy (the page drops one the
 * trader does not have, which only the accounts and strategies being loaded tell) or a date range the page
 * refuses (it shows the default range and says why): there the page asks for itself.
 */
export function prefetchTradeList(queryClient: QueryClient, kind: TradeListKind, search: string = window.location.search): void {
  const params = new URLSearchParams(search);
  const today = todayInNewYork();
  if (params.has('au') || params.has('su') || droppedRangeOf(params, today) !== null) return;
  const filters = filtersOf(filterStateOf(params, today), today);
  const size = getItemsPerPage();
  if (kind === 'expiring') {
    void queryClient.prefetchInfiniteQuery(getExpiringTradesQueryOptions(filters, size));
    return;
  }
  void queryClient.prefetchInfiniteQuery(getTradesByStatusQueryOptions(kind, filters, size));
  // The Open list also counts the open positions its date range leaves out: the same search over all
  // dates, on a one-row page (trade-list-page.tsx, useOpenOutsideRange).
  if (kind === 'open' && hasDateRange(filters)) {
    void queryClient.prefetchInfiniteQuery(getTradesByStatusQueryOptions('open', withoutDateRange(filters), OUTSIDE_RANGE_PAGE_SIZE));
  }
}
