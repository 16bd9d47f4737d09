import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Account } from '@oj/contracts/accounts';
import { api } from '@/lib/api-client.ts';

export const accountsQueryKey = ['accounts'] as const;

/** GET /accounts/: the user's trade accounts (the default one flagged). */
export function getAccounts(signal?: AbortSignal): Promise<Account[]> {
  return api.get<Account[]>('/accounts/', { signal });
}

export const accountsQueryOptions = () =>
  queryOptions({
    queryKey: accountsQueryKey,
    queryFn: ({ signal }) => getAccounts(signal),
    staleTime: 5 * 60_000,
  });

export function useAccounts() {
  return useQuery(accountsQueryOptions());
}
