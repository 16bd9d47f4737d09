import { useQuery } from '@tanstack/react-query';
import type { TradeHistoryResponse } from '@oj/contracts/audit';
import { api } from '@/lib/api-client.ts';

/** GET /trades/{uid}/history: every event of the trade's lineage and what each changed (own trades only). */
export function getTradeHistory(uid: string, signal?: AbortSignal): Promise<TradeHistoryResponse> {
  return api.get<TradeHistoryResponse>(`/trades/${encodeURIComponent(uid)}/history`, { signal });
}

export function useTradeHistory(uid: string, enabled: boolean) {
  return useQuery({ queryKey: ['trades', uid, 'history'] as const, queryFn: ({ signal }) => getTradeHistory(uid, signal), enabled });
}
