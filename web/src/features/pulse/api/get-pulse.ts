import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { pulseResponse, type PulseResponse } from '@oj/contracts/trade-views';
import { ApiError, api } from '@/lib/api-client.ts';
import { journalFiguresKey } from '@/lib/query-keys.ts';

/** GET /trades/tt/{ticker}?timeframe=n (part 2 §7): n is DAY 1, WEEK 2, MONTH 3, QUARTER 4, YEAR 5. */
export async function getPulse(ticker: string, timeframe: number, signal?: AbortSignal): Promise<PulseResponse> {
  return pulseResponse.parse(await api.get<unknown>(`/trades/tt/${encodeURIComponent(ticker)}`, { query: { timeframe }, signal }));
}

export const pulseKeys = { one: (ticker: string, timeframe: number) => [...journalFiguresKey, 'pulse', ticker, timeframe] as const, none: [...journalFiguresKey, 'pulse', 'none'] as const };

/** The spec's two texts (part 2 §8): the server refused the ticker or timeframe, or anything else. */
export function pulseErrorText(error: unknown): string {
  return isRefusal(error) ? 'Invalid ticker or timeframe' : 'Failed to fetch pulse data.';
}

/** The server refused the ticker or timeframe: asking again cannot change the answer. */
export const isRefusal = (error: unknown): boolean => error instanceof ApiError && error.status === 422;

/** A pulse answer is fresh for 30 s; a refusal (4xx) is not asked again, a failure twice more. */
const PULSE_STALE_MS = 30_000;
const pulseRetry = (n: number, e: Error) => !(e instanceof ApiError && e.status < 500) && n < 2;

/** One ticker's pulse over a timeframe, as the page asks for it: for the shell as it opens with a pulse link. */
export const pulseQueryOptions = (ticker: string, timeframe: number) =>
  queryOptions({ queryKey: pulseKeys.one(ticker, timeframe), queryFn: ({ signal }) => getPulse(ticker, timeframe, signal), staleTime: PULSE_STALE_MS, retry: pulseRetry });

export function usePulse(request: { ticker: string; timeframe: number } | null) {
  return useQuery({
    queryKey: request ? pulseKeys.one(request.ticker, request.timeframe) : pulseKeys.none,
    queryFn: ({ signal }) => getPulse(request!.ticker, request!.timeframe, signal),
    enabled: request !== null,
    staleTime: PULSE_STALE_MS,
    retry: pulseRetry,
    placeholderData: keepPreviousData,
  });
}
