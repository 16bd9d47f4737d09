import { api } from '@/lib/api-client.ts';

/** POST auth/create-payment-intent: a SetupIntent's client secret (a card is saved, not charged). */
export function createPaymentIntent(): Promise<{ clientSecret: string }> {
  return api.post<{ clientSecret: string }>('/auth/create-payment-intent');
}
