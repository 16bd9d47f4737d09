import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AdminUser } from '@oj/contracts/users';
import { api } from '@/lib/api-client.ts';

/** GET /admin/users/{email} (Admin only). */
export function getAdminUser(email: string, signal?: AbortSignal): Promise<AdminUser> {
  return api.get<AdminUser>(`/admin/users/${encodeURIComponent(email)}`, { signal });
}

export const adminUserQueryOptions = (email: string) =>
  queryOptions({
    queryKey: ['admin', 'users', email] as const,
    queryFn: ({ signal }) => getAdminUser(email, signal),
    retry: false,
  });

export function useAdminUser(email: string | null) {
  return useQuery({ ...adminUserQueryOptions(email ?? ''), enabled: Boolean(email) });
}
