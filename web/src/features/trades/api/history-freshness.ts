import { ApiError } from '@/lib/api-client.ts';

/**
 * A history opened right after the action that made it can reach the read models a moment before the
 * projector has: a 404 for a trade just created, or a chain without its newest trade. Both are asked
 * again a few times, briefly, before the dialog shows what it has.
 */
export const FRESHNESS_RETRIES = 8;
export const FRESHNESS_DELAY_MS = 250;
/** 0.25, 0.5, 1, 2, 2, 2... seconds: quick when the projector is quick, patient (about 12 s) when it is not. */
export const freshnessDelay = (attempt: number): number => Math.min(FRESHNESS_DELAY_MS * 2 ** attempt, 2_000);

export const retryWhileProjecting = (failureCount: number, error: unknown): boolean =>
  error instanceof ApiError && error.status === 404 && failureCount < FRESHNESS_RETRIES;

export const refetchUntil =
  <T>(isComplete: (data: T) => boolean) =>
  (query: { state: { data: T | undefined; dataUpdateCount: number } }): number | false =>
    query.state.data !== undefined && !isComplete(query.state.data) && query.state.dataUpdateCount < FRESHNESS_RETRIES ? freshnessDelay(query.state.dataUpdateCount - 1) : false;
