import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { CreateSubscriptionRequest, CreateSubscriptionResponse } from '@oj/contracts/billing';
import { api } from '@/lib/api-client.ts';
import { subscriptionChanged } from './subscription-changed.ts';

/** POST auth/create-subscription. */
export function createSubscription(body: CreateSubscriptionRequest): Promise<CreateSubscriptionResponse> {
  return api.post<CreateSubscriptionResponse>('/auth/create-subscription', body);
}

export function useCreateSubscription() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: createSubscription, onSuccess: (res) => subscriptionChanged(queryClient, res.subscription_data) });
}
