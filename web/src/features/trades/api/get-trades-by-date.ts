import { queryOptions, useQuery } from '@tanstack/react-query';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { api } from '../../../lib/api-client.ts';
import { tradeKeys } from './trade-keys.ts';

/** GET /trades/trade-by-date/{date}: the trades opened or closed on that New York date. */
export async function getTradesByDate(date: string, signal?: AbortSignal): Promise<TradeListItem[]> {
  const body = await api.get<TradeListItem[] | { items?: TradeListItem[]; trades?: TradeListItem[] }>(`/trades/trade-by-date/${date}`, { signal });
  return Array.isArray(body) ? body : (body?.trades ?? body?.items ?? []);
}

export const getTradesByDateQueryOptions = (date: string) =>
  queryOptions({ queryKey: tradeKeys.byDate(date), queryFn: ({ signal }) => getTradesByDate(date, signal), staleTime: 0, retry: false });

export const useTradesByDate = (date: string) => useQuery(getTradesByDateQueryOptions(date));
