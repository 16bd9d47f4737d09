import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { tradeKeys } from './trade-keys.ts';

/** One trade of a lineage's roll chain (part 1 §3 "Histories"). */
export interface RollHistoryItem {
  uid: string;
  rolled_from_uid: string | null;
  strike_prices: number[];
  premium_at_open: number;
  premium_at_close: number | null;
  expiration_date: string;
  trade_open_date: string;
  status: number;
}

/** GET /trades/{uid}/roll-history. */
export async function getRollHistory(uid: string, signal?: AbortSignal): Promise<RollHistoryItem[]> {
  const body = await api.get<{ roll_history?: RollHistoryItem[] } | RollHistoryItem[]>(`/trades/${encodeURIComponent(uid)}/roll-history`, { signal });
  return Array.isArray(body) ? body : (body?.roll_history ?? []);
}

export const getRollHistoryQueryOptions = (uid: string) =>
  queryOptions({ queryKey: tradeKeys.rollHistory(uid), queryFn: ({ signal }) => getRollHistory(uid, signal), staleTime: 0, retry: false });

export const useRollHistory = (uid: string) => useQuery(getRollHistoryQueryOptions(uid));
