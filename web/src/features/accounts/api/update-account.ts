import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Account, UpdateAccountRequest } from '@oj/contracts/accounts';
import { api } from '@/lib/api-client.ts';
import { accountsQueryKey } from './get-accounts.ts';

/** PATCH /accounts/update/{uid}: only the changed fields. */
export function updateAccount({ uid, changes }: { uid: string; changes: UpdateAccountRequest }): Promise<Account> {
  return api.patch<Account>(`/accounts/update/${encodeURIComponent(uid)}`, changes);
}

export function useUpdateAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateAccount,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountsQueryKey }),
  });
}
