import { queryOptions, useQuery } from '@tanstack/react-query';
import { tradesByDateResponse, type TradesByDateResponse } from '@oj/contracts/trade-views';
import { api } from '@/lib/api-client.ts';
import { freshnessDelay, retryWhileProjecting } from './history-freshness.ts';
import { tradeKeys } from './trade-keys.ts';

/** GET /trades/trade-by-date/{date}: the day's trades, each with its section (open, scalp, closed). */
export async function getTradesByDate(date: string, signal?: AbortSignal): Promise<TradesByDateResponse> {
  return tradesByDateResponse.parse(await api.get<unknown>(`/trades/trade-by-date/${date}`, { signal }));
}

export const getTradesByDateQueryOptions = (date: string) =>
  queryOptions({ queryKey: tradeKeys.byDate(date), queryFn: ({ signal }) => getTradesByDate(date, signal), staleTime: 0, retry: retryWhileProjecting, retryDelay: freshnessDelay });

export const useTradesByDate = (date: string) => useQuery(getTradesByDateQueryOptions(date));
