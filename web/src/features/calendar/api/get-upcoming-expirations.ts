import { useQuery } from '@tanstack/react-query';
import { upcomingExpirationsResponse, type UpcomingExpirationsResponse } from '@oj/contracts/trade-views';
import { api } from '@/lib/api-client.ts';
import { calendarKeys } from './get-premium-data.ts';

/** GET /trades/upcoming-expirations: open trades by expiration date, today to 60 days ahead. */
export async function getUpcomingExpirations(signal?: AbortSignal): Promise<UpcomingExpirationsResponse> {
  return upcomingExpirationsResponse.parse(await api.get<unknown>('/trades/upcoming-expirations', { signal }));
}

export const useUpcomingExpirations = () => useQuery({ queryKey: calendarKeys.upcoming, queryFn: ({ signal }) => getUpcomingExpirations(signal), staleTime: 0 });
