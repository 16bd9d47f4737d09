import Stripe from 'stripe';
import type { Config } from '@oj/infra/config';

/**
 * The Stripe SDK as configured: api.stripe.com, or STRIPE_API_URL (the local Stripe test server of the
 * tests). Null in self-hosted mode. Network retries stay on: every call carries an idempotency key, so a
 * retried request is the same request at Stripe.
 */
export function createStripeClient(config: Pick<Config, 'STRIPE_SECRET_KEY' | 'STRIPE_API_URL'>): Stripe | null {
  if (!config.STRIPE_SECRET_KEY) return null;
  const options: Stripe.StripeConfig = { maxNetworkRetries: 2, timeout: 20_000, appInfo: { name: 'options-journal' } };
  if (config.STRIPE_API_URL) {
    const url = new URL(config.STRIPE_API_URL);
    options.host = url.hostname;
    options.port = url.port || (url.protocol === 'https:' ? '443' : '80');
    options.protocol = url.protocol === 'https:' ? 'https' : 'http';
  }
  return new Stripe(config.STRIPE_SECRET_KEY, options);
}

export type { Stripe };
