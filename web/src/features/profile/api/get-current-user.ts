import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CurrentUser } from '@oj/contracts/users';
import { api } from '@/lib/api-client.ts';

export const currentUserQueryKey = ['users', 'current'] as const;

/** GET /users/current_user: the profile. */
export function getCurrentUser(signal?: AbortSignal): Promise<CurrentUser> {
  return api.get<CurrentUser>('/users/current_user', { signal });
}

export const currentUserQueryOptions = () => queryOptions({ queryKey: currentUserQueryKey, queryFn: ({ signal }) => getCurrentUser(signal) });

export function useCurrentUser() {
  return useQuery(currentUserQueryOptions());
}
