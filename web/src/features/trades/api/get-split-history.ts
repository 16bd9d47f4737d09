import { queryOptions, useQuery } from '@tanstack/react-query';
import { splitHistoryResponse, type SplitHistoryResponse } from '@oj/contracts/trade-views';
import { api } from '@/lib/api-client.ts';
import { freshnessDelay, refetchUntil, retryWhileProjecting } from './history-freshness.ts';
import { tradeKeys } from './trade-keys.ts';

/** GET /trades/{auid}/ancestor: the split two-leg trade's terms (gene) and the trades its legs became. */
export async function getSplitHistory(auid: string, signal?: AbortSignal): Promise<SplitHistoryResponse> {
  return splitHistoryResponse.parse(await api.get<unknown>(`/trades/${encodeURIComponent(auid)}/ancestor`, { signal }));
}

export const getSplitHistoryQueryOptions = (auid: string, tradeUid?: string) =>
  queryOptions({
    queryKey: tradeKeys.splitHistory(auid),
    queryFn: ({ signal }) => getSplitHistory(auid, signal),
    staleTime: 0,
    retry: retryWhileProjecting,
    retryDelay: freshnessDelay,
    refetchInterval: refetchUntil<SplitHistoryResponse>((r) => !tradeUid || r.trades.some((t) => t.uid === tradeUid)),
  });

export const useSplitHistory = (auid: string, tradeUid?: string) => useQuery(getSplitHistoryQueryOptions(auid, tradeUid));
