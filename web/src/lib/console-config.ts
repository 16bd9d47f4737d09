import { useQuery } from '@tanstack/react-query';
import type { ConsoleConfig } from '@oj/contracts/users';
import { api } from './api-client.ts';

/**
 * Whether this installation charges for Premium: false on a self-hosted one (no Stripe key), where every
 * user has Premium without end and there is no trial to offer. Until the config is in, the trial is
 * offered (the hosted product's text), as before the config existed.
 */
export function useBilling(): boolean {
  return useConsoleConfig().data?.billing !== 'self-hosted';
}

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
