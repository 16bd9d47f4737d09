import { infiniteQueryOptions, keepPreviousData, queryOptions, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client.ts';
import { parseTradePage } from './parse-trade-page.ts';
import { tradeKeys, type TradeListFilters } from './trade-keys.ts';
import { todayInNewYork } from '@/lib/format.ts';
import { applyChanges, recentChanges, type TradePage } from './list-upkeep.ts';

/** The bell lists at most this many (part 1 §9). */
export const BELL_SIZE = 5;

/** GET /trades/expiring: open trades expiring within 7 days or already expired. The start date is not a search field here. */
export async function getExpiringTrades(page: number, size: number, filters: TradeListFilters, signal?: AbortSignal): Promise<TradePage> {
  const { sd: _ignored, ...rest } = filters;
  const body = await api.get<unknown>('/trades/expiring', { query: { page, size, ...rest }, signal });
  return parseTradePage(body);
}

export const getExpiringTradesQueryOptions = (filters: TradeListFilters, size: number) =>
  infiniteQueryOptions({
    queryKey: tradeKeys.list('expiring', filters, size),
    queryFn: ({ pageParam, signal }) => getExpiringTrades(pageParam, size, filters, signal),
    initialPageParam: 1,
    getNextPageParam: (last: TradePage) => (last.page < last.pages ? last.page + 1 : undefined),
  });

export const useExpiringTrades = (filters: TradeListFilters, size: number, enabled = true) =>
  useInfiniteQuery({ ...getExpiringTradesQueryOptions(filters, size), enabled, placeholderData: keepPreviousData });

/** The bell reads through this tab's recent changes too, so a refetch during the projector's lag cannot hide a new trade. */
function withRecentChanges(page: TradePage): TradePage {
  const patched = applyChanges({ pages: [page], pageParams: [1] }, recentChanges(), 'expiring', {}, todayInNewYork());
  return patched.pages[0] ?? page;
}

/** First page without filters: the bell's five items and the sidebar badge's total. */
export const getExpiringSummaryQueryOptions = () =>
  queryOptions({
    queryKey: tradeKeys.expiringSummary(),
    queryFn: ({ signal }) => getExpiringTrades(1, BELL_SIZE, {}, signal),
    staleTime: 60_000,
    select: withRecentChanges,
  });

export const useExpiringSummary = (options: { enabled?: boolean } = {}) => useQuery({ ...getExpiringSummaryQueryOptions(), ...options });
