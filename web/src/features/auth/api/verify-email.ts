import { queryOptions, useQuery } from '@tanstack/react-query';
import type { MessageResponse } from '@oj/contracts/users';
import { api } from '@/lib/api-client.ts';

/** GET /users/verify/{token}: any failure counts as failed. */
export function verifyEmail(token: string, signal?: AbortSignal): Promise<MessageResponse> {
  return api.get<MessageResponse>(`/users/verify/${encodeURIComponent(token)}`, { auth: false, signal });
}

// The token is single-use: never retried, never refetched, one request per token (also under StrictMode).
export const verifyEmailQueryOptions = (token: string) =>
  queryOptions({
    queryKey: ['users', 'verify', token] as const,
    queryFn: () => verifyEmail(token),
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
    refetchOnMount: false,
    refetchOnReconnect: false,
  });

export function useVerifyEmail(token: string | null) {
  return useQuery({ ...verifyEmailQueryOptions(token ?? ''), enabled: Boolean(token) });
}
