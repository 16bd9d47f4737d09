import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Strategy } from '@oj/contracts/strategies';
import { api } from '@/lib/api-client.ts';

export const strategiesQueryKey = ['strategies'] as const;

/** GET /strategies/: the strategy catalogue (reference data, changes only with a release). */
export function getStrategies(signal?: AbortSignal): Promise<Strategy[]> {
  return api.get<Strategy[]>('/strategies/', { signal });
}

export const strategiesQueryOptions = () =>
  queryOptions({
    queryKey: strategiesQueryKey,
    queryFn: ({ signal }) => getStrategies(signal),
    staleTime: Infinity,
  });

export function useStrategies() {
  return useQuery(strategiesQueryOptions());
}
