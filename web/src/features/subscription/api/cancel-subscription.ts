import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { FrontendDataResponse } from '@oj/contracts/billing';
import { api } from '@/lib/api-client.ts';
import { subscriptionChanged } from './subscription-changed.ts';

/** POST /auth/cancel-subscription: cancels at the period end. */
export function cancelSubscription(): Promise<FrontendDataResponse> {
  return api.post<FrontendDataResponse>('/auth/cancel-subscription');
}

export function useCancelSubscription() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: cancelSubscription, onSuccess: (res) => subscriptionChanged(queryClient, res.frontend_data) });
}
