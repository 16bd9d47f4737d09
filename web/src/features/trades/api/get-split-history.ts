import { queryOptions, useQuery } from '@tanstack/react-query';
import { splitHistoryResponse, type SplitHistoryResponse } from '@oj/contracts/trade-views';
import { api } from '../../../lib/api-client.ts';
import { tradeKeys } from './trade-keys.ts';

/** GET /trades/{auid}/ancestor: the split two-leg trade's terms (gene) and the trades its legs became. */
export async function getSplitHistory(auid: string, signal?: AbortSignal): Promise<SplitHistoryResponse> {
  return splitHistoryResponse.parse(await api.get<unknown>(`/trades/${encodeURIComponent(auid)}/ancestor`, { signal }));
}

export const getSplitHistoryQueryOptions = (auid: string) =>
  queryOptions({ queryKey: tradeKeys.splitHistory(auid), queryFn: ({ signal }) => getSplitHistory(auid, signal), staleTime: 0, retry: false });

export const useSplitHistory = (auid: string) => useQuery(getSplitHistoryQueryOptions(auid));
