import { queryOptions, useQuery } from '@tanstack/react-query';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { api } from '../../../lib/api-client.ts';
import { tradeKeys } from './trade-keys.ts';

/** The record of a split: the two-leg trade's terms (gene) and the trades it became (part 1 §3). */
export interface SplitHistoryRecord {
  trades: TradeListItem[];
  su: string;
  gene: { tod: string; ed: string; cs: number; pao: number; cause?: string | null; ticker?: string; sp?: number[] };
  created_at: string;
}

/** GET /trades/{auid}/ancestor. */
export async function getSplitHistory(auid: string, signal?: AbortSignal): Promise<SplitHistoryRecord> {
  return api.get<SplitHistoryRecord>(`/trades/${encodeURIComponent(auid)}/ancestor`, { signal });
}

export const getSplitHistoryQueryOptions = (auid: string) =>
  queryOptions({ queryKey: tradeKeys.splitHistory(auid), queryFn: ({ signal }) => getSplitHistory(auid, signal), staleTime: 0, retry: false });

export const useSplitHistory = (auid: string) => useQuery(getSplitHistoryQueryOptions(auid));
