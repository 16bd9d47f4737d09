import { infiniteQueryOptions, keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client.ts';
import { parseTradePage } from './parse-trade-page.ts';
import { tradeKeys, type TradeListFilters } from './trade-keys.ts';
import type { TradePage } from './list-upkeep.ts';

export type TradeStatusList = 'open' | 'closed' | 'rolled';

/** GET /trades/status/{open|closed|rolled}: one page of a list, with the search fields. */
export async function getTradesByStatus(status: TradeStatusList, page: number, size: number, filters: TradeListFilters, signal?: AbortSignal): Promise<TradePage> {
  const body = await api.get<unknown>(`/trades/status/${status}`, { query: { page, size, ...filters }, signal });
  return parseTradePage(body);
}

export const getTradesByStatusQueryOptions = (status: TradeStatusList, filters: TradeListFilters, size: number) =>
  infiniteQueryOptions({
    queryKey: tradeKeys.list(status, filters, size),
    queryFn: ({ pageParam, signal }) => getTradesByStatus(status, pageParam, size, filters, signal),
    initialPageParam: 1,
    getNextPageParam: (last: TradePage) => (last.page < last.pages ? last.page + 1 : undefined),
  });

export const useTradesByStatus = (status: TradeStatusList, filters: TradeListFilters, size: number, enabled = true) =>
  useInfiniteQuery({ ...getTradesByStatusQueryOptions(status, filters, size), enabled, placeholderData: keepPreviousData });
