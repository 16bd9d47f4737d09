import { z } from 'zod';

/** Subscription status codes (part 2 §4). */
export const subscriptionStatusCodes = {
  trial: 1,
  active: 2,
  expired: 3,
  canceled: 4,
  due: 5,
  pending: 6,
  unknown: 7,
} as const;
export type SubscriptionStatusName = keyof typeof subscriptionStatusCodes;
export const subscriptionStatusCode = z.number().int().min(1).max(7);

/**
 * The `resolution` of the 403 a request gets when the user's subscription is not active. The console
 * reads it as "the session's view of the subscription is out of date" (a plan that lapsed after the
 * access token was issued) and refreshes the token, so the locked screens show at once.
 */
export const SUBSCRIPTION_RENEW_RESOLUTION = 'Renew your subscription on the Subscription page.';

export const TRIAL_DAYS = 30;
export const GRACE_PERIOD_DAYS = 2;

export const paymentStatus = z.enum(['paid', 'open']);

/** GET /subscription/current (part 2 §3). Dates are ISO-8601 instants. */
export const currentSubscription = z.object({
  status: subscriptionStatusCode,
  /** current period end */
  cpe: z.string().nullable(),
  /** current period start */
  cps: z.string().nullable(),
  /** cancel at period end */
  cape: z.boolean(),
  /** a payment method is on file */
  pm: z.boolean(),
  payment_status: paymentStatus.nullable(),
});
export type CurrentSubscription = z.infer<typeof currentSubscription>;

/**
 * The status that grants or denies access now: a trial or a paid period whose end has passed counts as
 * expired. The token's `subs_status` and the server's access checks both use this.
 */
export function effectiveSubscriptionStatus(status: number, periodEnd: Date | null, now: Date): number {
  if ((status === subscriptionStatusCodes.trial || status === subscriptionStatusCodes.active) && periodEnd !== null && periodEnd.getTime() <= now.getTime()) {
    return subscriptionStatusCodes.expired;
  }
  return status >= 1 && status <= 6 ? status : subscriptionStatusCodes.unknown;
}

/**
 * How long past a subscribed period's end access continues while Stripe charges the next one. Stripe
 * starts the new period at the old one's end but finalizes and charges its invoice about an hour later,
 * and only then says `invoice.paid`: read to the letter, every paying trader would be locked out for that
 * hour each month (QA). Within this window a live subscription that is not cancelling keeps its access; at
 * its end the scheduler asks Stripe what became of the charge and records it (renewed, or ended).
 */
export const RENEWAL_SETTLE_MS = 2 * 3_600_000;

/**
 * A trial or paid period that has just ended with its Stripe subscription live and not cancelling: its
 * renewal is being charged, and access continues until it lands or `RENEWAL_SETTLE_MS` has passed.
 */
export function renewalInFlight(s: { status: number; periodEnd: Date | null; cancelAtPeriodEnd: boolean; subscribed: boolean }, now: Date): boolean {
  if (!s.subscribed || s.cancelAtPeriodEnd || s.periodEnd === null) return false;
  if (s.status !== subscriptionStatusCodes.trial && s.status !== subscriptionStatusCodes.active) return false;
  const past = now.getTime() - s.periodEnd.getTime();
  return past >= 0 && past < RENEWAL_SETTLE_MS;
}

/** Trial and active (within their period) grant access; the spec's login state reads 1 or 2 as active. */
export const isActiveStatus = (effective: number): boolean => effective === subscriptionStatusCodes.trial || effective === subscriptionStatusCodes.active;

/**
 * `stripe`: the lifecycle above applies (trial, paid, grace, expiry). `self-hosted`: no STRIPE_SECRET_KEY
 * is configured, nobody can pay, so every user has Premium without end and nobody is ever locked out.
 */
export const billingMode = z.enum(['stripe', 'self-hosted']);
export type BillingMode = z.infer<typeof billingMode>;

/** The card on file, as the provider describes it (never the number). */
export const cardSummary = z.object({
  brand: z.string(),
  last4: z.string(),
  exp_month: z.number().int().min(1).max(12),
  exp_year: z.number().int(),
});
export type CardSummary = z.infer<typeof cardSummary>;

/** GET /subscription/current with what the Subscription page needs beside the spec's fields. */
export const subscriptionDetails = currentSubscription.extend({
  mode: billingMode,
  card: cardSummary.nullable(),
  /** The provider's publishable key and the plan's price id (the page sends it back), null in self-hosted mode. */
  publishable_key: z.string().nullable(),
  price_id: z.string().nullable(),
  /** The current or last period is the free trial: nothing was charged in it (the history's bottom row reads TRIAL). */
  trial_period: z.boolean(),
  /** A Stripe subscription is live (in the trial: subscribed, the first charge at its end): it can be cancelled. */
  subscribed: z.boolean(),
  /** In the grace period (status 5): when it ends unpaid and the plan expires; null otherwise. */
  grace_ends_at: z.string().nullable(),
  /**
   * The period has just ended and Stripe is charging the next one (`renewalInFlight`): the plan still
   * grants access, though `cpe` has passed, until the charge lands or two hours have gone by.
   */
  renewing: z.boolean(),
});
export type SubscriptionDetails = z.infer<typeof subscriptionDetails>;

/** Self-hosted mode's answer: an active subscription without an end. */
export const selfHostedSubscription: CurrentSubscription = { status: subscriptionStatusCodes.active, cpe: null, cps: null, cape: false, pm: false, payment_status: null };
