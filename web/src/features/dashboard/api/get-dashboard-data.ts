import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { dailyIncomeSums, premiumDataSumsResponse } from '@oj/contracts/trade-views';
import { api } from '@/lib/api-client.ts';
import { journalFiguresKey } from '@/lib/query-keys.ts';
import { freshForMount } from '@/lib/prefetch-freshness.ts';

/**
 * The dashboard asks for the premium data without the days' maps (`?days=sums`): every M / YTD / Y
 * breakdown comes aggregated by the server, and a heavy journal's per-day maps are 1.6 MB of its 1.7 MB
 * answer, to be sent, parsed and thrown away. Of a day it validates the fields it draws; zod strips the
 * other sums without validating them.
 */
const dashboardDay = dailyIncomeSums.pick({ id: true, income_date: true, np: true, nf: true, otc: true, ctc: true, iw: true, npc: true, net_premium_so_far: true });
export const dashboardData = premiumDataSumsResponse.omit({ daily_income: true }).extend({ daily_income: z.array(dashboardDay) });
export type DashboardData = z.infer<typeof dashboardData>;
export type DashboardDay = z.infer<typeof dashboardDay>;

/** GET /metrics/premium-data?days=sums: every figure of the dashboard in one answer. */
export async function getDashboardData(signal?: AbortSignal): Promise<DashboardData> {
  return dashboardData.parse(await api.get<unknown>('/metrics/premium-data?days=sums', { signal }));
}

export const dashboardKeys = { premium: [...journalFiguresKey, 'dashboard', 'premium-data'] as const };

// Stale at once: a trade added elsewhere must show when the dashboard is seen again; an answer the shell
// asked for as the dashboard was being opened (the route's prefetch) is not asked for twice.
export const dashboardDataQueryOptions = () =>
  queryOptions({ queryKey: dashboardKeys.premium, queryFn: ({ signal }) => getDashboardData(signal), staleTime: 0, refetchOnMount: freshForMount });

export const useDashboardData = () => useQuery(dashboardDataQueryOptions());
