import { queryOptions, useQuery } from '@tanstack/react-query';
import type { SubscriptionDetails } from '@oj/contracts/subscriptions';
import { api } from '@/lib/api-client.ts';

export const subscriptionQueryKey = ['subscription', 'current'] as const;

/** GET /subscription/current: the spec's fields, the card on file and the billing mode. */
export function getSubscription(signal?: AbortSignal): Promise<SubscriptionDetails> {
  return api.get<SubscriptionDetails>('/subscription/current', { signal });
}

export const subscriptionQueryOptions = () => queryOptions({ queryKey: subscriptionQueryKey, queryFn: ({ signal }) => getSubscription(signal) });

export function useSubscription() {
  return useQuery(subscriptionQueryOptions());
}
