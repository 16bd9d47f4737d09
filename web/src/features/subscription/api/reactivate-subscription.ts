import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { FrontendDataResponse } from '@oj/contracts/billing';
import { api } from '@/lib/api-client.ts';
import { subscriptionChanged } from './subscription-changed.ts';

/** POST /auth/reactivate-subscription: undoes a scheduled cancellation, or restarts an expired plan. */
export function reactivateSubscription(): Promise<FrontendDataResponse> {
  return api.post<FrontendDataResponse>('/auth/reactivate-subscription');
}

export function useReactivateSubscription() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: reactivateSubscription, onSuccess: (res) => subscriptionChanged(queryClient, res.frontend_data) });
}
