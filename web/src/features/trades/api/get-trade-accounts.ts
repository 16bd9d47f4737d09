import { queryOptions, useQuery } from '@tanstack/react-query';
import { accountList, type Account } from '@oj/contracts/accounts';
import { api } from '@/lib/api-client.ts';

/**
 * GET /accounts/: the trader's accounts for the forms and the account filter. The key is the one the
 * shell and the accounts page use, so the list is fetched once and an account change shows here too.
 */
export async function getTradeAccounts(signal?: AbortSignal): Promise<Account[]> {
  return accountList.parse(await api.get<unknown>('/accounts/', { signal }));
}

export const getTradeAccountsQueryOptions = () =>
  queryOptions({ queryKey: ['accounts'] as const, queryFn: ({ signal }) => getTradeAccounts(signal), staleTime: 5 * 60_000 });

export const useTradeAccounts = () => useQuery(getTradeAccountsQueryOptions());
