import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Account, UpdateDefaultAccountRequest } from '@oj/contracts/accounts';
import { api } from '@/lib/api-client.ts';
import { accountsQueryKey } from './get-accounts.ts';

/** PATCH /accounts/update-default-account {old_default, new_default}. */
export function updateDefaultAccount(body: UpdateDefaultAccountRequest): Promise<unknown> {
  return api.patch('/accounts/update-default-account', body);
}

export function useUpdateDefaultAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateDefaultAccount,
    // Mark the new default at once (it moves first); the refetch confirms.
    onSuccess: (_res, vars) => {
      queryClient.setQueryData<Account[]>(accountsQueryKey, (list) =>
        list
          ?.map((a) => ({ ...a, default_account: a.uid === vars.new_default }))
          .sort((a, b) => Number(b.default_account) - Number(a.default_account)),
      );
      return queryClient.invalidateQueries({ queryKey: accountsQueryKey });
    },
  });
}
