import { queryOptions, useQuery } from '@tanstack/react-query';
import { dailyIncomeMonthResponse, premiumDataSumsResponse, type DailyIncomeMonthResponse, type PremiumDataSumsResponse } from '@oj/contracts/trade-views';
import { api } from '@/lib/api-client.ts';
import { journalFiguresKey } from '@/lib/query-keys.ts';
import { freshForMount } from '@/lib/prefetch-freshness.ts';

/**
 * GET /metrics/premium-data?days=sums: the daily premium records the calendar colours its days with and
 * sums for the Trade Summary, without the days' maps it never reads (most of a heavy journal's answer).
 */
export async function getPremiumData(signal?: AbortSignal): Promise<PremiumDataSumsResponse> {
  return premiumDataSumsResponse.parse(await api.get<unknown>('/metrics/premium-data?days=sums', { signal }));
}

/** GET /metrics/daily-income: one month's daily records, for a month before the premium data's window. */
export async function getMonthDays(month: string, signal?: AbortSignal): Promise<DailyIncomeMonthResponse> {
  return dailyIncomeMonthResponse.parse(await api.get<unknown>(`/metrics/daily-income?month=${encodeURIComponent(month)}`, { signal }));
}

export const calendarKeys = {
  premium: [...journalFiguresKey, 'calendar', 'premium-data'] as const,
  month: (month: string) => [...journalFiguresKey, 'calendar', 'daily-income', month] as const,
  upcoming: [...journalFiguresKey, 'calendar', 'upcoming-expirations'] as const,
};

// Stale at once: a trade added from the day dialog must show in the colours when the page is seen again;
// an answer the shell asked for as the page was being opened (the route's prefetch) is not asked for twice.
export const premiumDataQueryOptions = () =>
  queryOptions({ queryKey: calendarKeys.premium, queryFn: ({ signal }) => getPremiumData(signal), staleTime: 0, refetchOnMount: freshForMount });

export const usePremiumData = () => useQuery(premiumDataQueryOptions());

/** A month before the premium data's window (a journal kept for years, QA 74): its own records. */
export const useMonthDays = (month: string, enabled: boolean) =>
  useQuery({ queryKey: calendarKeys.month(month), queryFn: ({ signal }) => getMonthDays(month, signal), staleTime: 0, enabled });
