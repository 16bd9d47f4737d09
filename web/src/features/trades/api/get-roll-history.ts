import { queryOptions, useQuery } from '@tanstack/react-query';
import { rollHistoryResponse, type RollHistoryItem, type RollHistorySplit } from '@oj/contracts/trade-views';
import { api } from '@/lib/api-client.ts';
import { freshnessDelay, refetchUntil, retryWhileProjecting } from './history-freshness.ts';
import { tradeKeys } from './trade-keys.ts';

export type { RollHistoryItem, RollHistorySplit };

export interface RollHistory {
  items: RollHistoryItem[];
  splits: RollHistorySplit[];
}

/** GET /trades/{uid}/roll-history: the lineage's roll chain, with the split trades it goes through. */
export async function getRollHistory(uid: string, signal?: AbortSignal): Promise<RollHistory> {
  const body = rollHistoryResponse.parse(await api.get<unknown>(`/trades/${encodeURIComponent(uid)}/roll-history`, { signal }));
  return { items: body.roll_history, splits: body.splits };
}

export const getRollHistoryQueryOptions = (uid: string) =>
  queryOptions({
    queryKey: tradeKeys.rollHistory(uid),
    queryFn: ({ signal }) => getRollHistory(uid, signal),
    staleTime: 0,
    retry: retryWhileProjecting,
    retryDelay: freshnessDelay,
    // The chain is complete once it holds the trade it was opened from.
    refetchInterval: refetchUntil<RollHistory>((h) => h.items.some((i) => i.uid === uid) || h.splits.some((s) => s.uid === uid)),
  });

export const useRollHistory = (uid: string) => useQuery(getRollHistoryQueryOptions(uid));
