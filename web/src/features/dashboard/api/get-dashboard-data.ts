import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { dailyIncome, premiumDataResponse } from '@oj/contracts/trade-views';
import { api } from '@/lib/api-client.ts';

/**
 * The dashboard reads the premium data without the days' maps (every M / YTD / Y breakdown comes
 * aggregated by the server): parsing a heavy user's 1.5 MB of per-day maps would only be thrown away.
 * Unknown keys are stripped by zod without being validated.
 */
const dashboardDay = dailyIncome.pick({ id: true, income_date: true, np: true, nf: true, otc: true, ctc: true, iw: true, npc: true, net_premium_so_far: true });
export const dashboardData = premiumDataResponse.omit({ daily_income: true }).extend({ daily_income: z.array(dashboardDay) });
export type DashboardData = z.infer<typeof dashboardData>;
export type DashboardDay = z.infer<typeof dashboardDay>;

/** GET /metrics/premium-data: every figure of the dashboard in one answer. */
export async function getDashboardData(signal?: AbortSignal): Promise<DashboardData> {
  return dashboardData.parse(await api.get<unknown>('/metrics/premium-data', { signal }));
}

export const dashboardKeys = { premium: ['dashboard', 'premium-data'] as const };

// Stale at once: a trade added elsewhere must show when the dashboard is seen again.
export const dashboardDataQueryOptions = () => queryOptions({ queryKey: dashboardKeys.premium, queryFn: ({ signal }) => getDashboardData(signal), staleTime: 0 });

export const useDashboardData = () => useQuery(dashboardDataQueryOptions());
