import type { QueryClient } from '@tanstack/react-query';
import type { SubscriptionDetails } from '@oj/contracts/subscriptions';
import { refreshAccessToken } from '@/lib/api-client.ts';
import { sessionStore } from '@/features/auth/session-store.ts';
import { subscriptionQueryKey } from './get-subscription.ts';

/**
 * After a change: the page shows the answer at once, and the access token (which carries the status the
 * locked screens and the New Record menu read) is refreshed so access comes back without a sign-in.
 */
export async function subscriptionChanged(queryClient: QueryClient, details: SubscriptionDetails): Promise<void> {
  queryClient.setQueryData(subscriptionQueryKey, details);
  await refreshAccessToken(sessionStore.getState().accessToken);
}
