import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Account, AddAccountRequest } from '@oj/contracts/accounts';
import { api } from '@/lib/api-client.ts';
import { accountsQueryKey } from './get-accounts.ts';

/** POST /accounts/add-account. */
export function addAccount(body: AddAccountRequest): Promise<Account> {
  return api.post<Account>('/accounts/add-account', body);
}

export function useAddAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: addAccount,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountsQueryKey }),
  });
}
