import { queryOptions, useQuery } from '@tanstack/react-query';
import { upcomingExpirationsResponse, type UpcomingExpirationsResponse } from '@oj/contracts/trade-views';
import { api } from '@/lib/api-client.ts';
import { freshForMount } from '@/lib/prefetch-freshness.ts';
import { calendarKeys } from './get-premium-data.ts';

/** GET /trades/upcoming-expirations: open trades by expiration date, today to 60 days ahead. */
export async function getUpcomingExpirations(signal?: AbortSignal): Promise<UpcomingExpirationsResponse> {
  return upcomingExpirationsResponse.parse(await api.get<unknown>('/trades/upcoming-expirations', { signal }));
}

/** Asked for by the page, or by the shell as it opens with the page (the route's handle): once either way. */
export const upcomingExpirationsQueryOptions = () =>
  queryOptions({ queryKey: calendarKeys.upcoming, queryFn: ({ signal }) => getUpcomingExpirations(signal), staleTime: 0, refetchOnMount: freshForMount });

export const useUpcomingExpirations = () => useQuery(upcomingExpirationsQueryOptions());
