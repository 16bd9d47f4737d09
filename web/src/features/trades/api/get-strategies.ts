import { queryOptions, useQuery } from '@tanstack/react-query';
import { strategyList, type Strategy } from '@oj/contracts/strategies';
import { api } from '@/lib/api-client.ts';

/** GET /strategies/: the catalogue with legs, strike rules, transaction and in-the-money outcome. */
export async function getStrategies(signal?: AbortSignal): Promise<Strategy[]> {
  return strategyList.parse(await api.get<unknown>('/strategies/', { signal }));
}

export const getStrategiesQueryOptions = () =>
  queryOptions({ queryKey: ['strategies'] as const, queryFn: ({ signal }) => getStrategies(signal), staleTime: Number.POSITIVE_INFINITY });

export const useStrategies = () => useQuery(getStrategiesQueryOptions());
