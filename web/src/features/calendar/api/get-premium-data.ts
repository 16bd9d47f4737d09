import { queryOptions, useQuery } from '@tanstack/react-query';
import { premiumDataResponse, type PremiumDataResponse } from '@oj/contracts/trade-views';
import { api } from '@/lib/api-client.ts';

/** GET /metrics/premium-data: the daily premium records the calendar colours its days with. */
export async function getPremiumData(signal?: AbortSignal): Promise<PremiumDataResponse> {
  return premiumDataResponse.parse(await api.get<unknown>('/metrics/premium-data', { signal }));
}

export const calendarKeys = {
  premium: ['calendar', 'premium-data'] as const,
  upcoming: ['calendar', 'upcoming-expirations'] as const,
};

// Stale at once: a trade added from the day dialog must show in the colours when the page is seen again.
export const premiumDataQueryOptions = () => queryOptions({ queryKey: calendarKeys.premium, queryFn: ({ signal }) => getPremiumData(signal), staleTime: 0 });

export const usePremiumData = () => useQuery(premiumDataQueryOptions());
