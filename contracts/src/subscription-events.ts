import { z } from 'zod';
import type { UpcasterRegistry } from './events.ts';
import { cardSummary } from './subscriptions.ts';

/**
 * The subscription's events: one stream per user, `subscription-<userId>`. The `subscriptions` table is
 * their projection. Instants are ISO-8601 UTC strings. Events caused by a Stripe webhook carry the Stripe
 * event's id and creation time (`stripe`), which make a redelivery a no-op and let an older
 * `customer.subscription.updated` lose to a newer state.
 */
const instant = z.string();
const stripeSource = z.object({ eventId: z.string(), created: z.number().int() }).optional();
const paymentMethod = z.object({ id: z.string(), card: cardSummary.nullable() });

export const subscriptionEventSchemas = {
  TrialStarted: z.object({ trialStart: instant, trialEnd: instant }),
  PaymentMethodAttached: z.object({ customerId: z.string(), paymentMethod, stripe: stripeSource }),
  SubscriptionActivated: z.object({
    customerId: z.string(),
    stripeSubscriptionId: z.string(),
    /** Subscribed during the trial: the first charge is at the trial's end. */
    trialing: z.boolean(),
    periodStart: instant,
    periodEnd: instant,
    invoiceId: z.string().nullable(),
  }),
  RenewalSucceeded: z.object({ stripeSubscriptionId: z.string(), invoiceId: z.string(), periodStart: instant, periodEnd: instant, stripe: stripeSource }),
  PaymentFailed: z.object({ stripeSubscriptionId: z.string(), invoiceId: z.string(), graceEndsAt: instant, stripe: stripeSource }),
  GraceExpired: z.object({ graceEndedAt: instant }),
  CancellationScheduled: z.object({ stripe: stripeSource }),
  CancellationUndone: z.object({ stripe: stripeSource }),
  SubscriptionExpired: z.object({ reason: z.enum(['period_end', 'trial_end', 'stripe_deleted']), stripe: stripeSource }),
  Reactivated: z.object({ stripeSubscriptionId: z.string(), periodStart: instant, periodEnd: instant, invoiceId: z.string().nullable() }),
  PaymentMethodUpdated: z.object({ paymentMethod, stripe: stripeSource }),
  /**
   * Stripe declined a charge the user asked for (subscribe, reactivate, renew in the grace period). It
   * changes no status; it is a fact of the history, and it moves the stream on, so the user's next try
   * is a new request at Stripe (whose idempotency keys carry the revision), not the declined one replayed.
   */
  ChargeDeclined: z.object({ during: z.enum(['subscribe', 'reactivate', 'renew']), paymentMethodId: z.string(), reason: z.string() }),
} as const;

export type SubscriptionEventType = keyof typeof subscriptionEventSchemas;
export type SubscriptionEvent = { [K in SubscriptionEventType]: { type: K; data: z.infer<(typeof subscriptionEventSchemas)[K]> } }[SubscriptionEventType];

export const subscriptionEventVersions: Record<SubscriptionEventType, number> = {
  TrialStarted: 1,
  PaymentMethodAttached: 1,
  SubscriptionActivated: 1,
  RenewalSucceeded: 1,
  PaymentFailed: 1,
  GraceExpired: 1,
  CancellationScheduled: 1,
  CancellationUndone: 1,
  SubscriptionExpired: 1,
  Reactivated: 1,
  PaymentMethodUpdated: 1,
  ChargeDeclined: 1,
};
export const subscriptionUpcasters: UpcasterRegistry = {};

export const subscriptionStreamPrefix = 'subscription-';
export const subscriptionStreamId = (userId: string) => `${subscriptionStreamPrefix}${userId}`;
