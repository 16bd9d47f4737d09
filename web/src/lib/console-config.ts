import { useQuery } from '@tanstack/react-query';
import type { ConsoleConfig } from '@oj/contracts/users';
import { api } from './api-client.ts';

/** GET /console-config: operator settings the console needs (public, no secrets); fetched once per page load. */
export function useConsoleConfig() {
  return useQuery({
    queryKey: ['console-config'],
    queryFn: ({ signal }) => api.get<ConsoleConfig>('/console-config', { signal, auth: false }),
    staleTime: Infinity,
    gcTime: Infinity,
    retry: 1,
  });
}
