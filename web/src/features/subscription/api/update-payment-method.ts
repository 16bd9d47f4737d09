import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { SubscriptionDetails } from '@oj/contracts/subscriptions';
import { api } from '@/lib/api-client.ts';
import { subscriptionQueryKey } from './get-subscription.ts';
import { subscriptionChanged } from './subscription-changed.ts';

type Answer = { status: 'success'; message: string; subscription_data: SubscriptionDetails };

/** POST /auth/update-payment-method. */
export function updatePaymentMethod(paymentMethodId: string): Promise<Answer> {
  return api.post<Answer>('/auth/update-payment-method', { paymentMethodId });
}

export function useUpdatePaymentMethod() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updatePaymentMethod,
    onSuccess: (res) => subscriptionChanged(queryClient, res.subscription_data),
    // A refused charge can follow a card already saved (Renew in the grace period): show what is on file.
    onError: () => void queryClient.invalidateQueries({ queryKey: subscriptionQueryKey }),
  });
}
