import type { Kysely } from 'kysely';
import { DAY_MS } from '@oj/contracts/business-date';
import {
  effectiveSubscriptionStatus,
  isActiveStatus,
  renewalInFlight,
  selfHostedSubscription,
  subscriptionStatusCodes,
  SUBSCRIPTION_RENEW_RESOLUTION,
  TRIAL_DAYS,
  type BillingMode,
  type CurrentSubscription,
  type SubscriptionDetails,
} from '@oj/contracts/subscriptions';
import { staffRoles, type RoleName } from '@oj/contracts/users';
import { AppError } from '../app/errors.ts';
import type { Principal } from './principal.ts';

export interface SubscriptionRow {
  status: number;
  current_period_start: Date | null;
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
  has_payment_method: boolean;
  payment_status: string | null;
  // Projection columns of the subscription stream (billing); absent where only the fields above are read.
  card_brand?: string | null;
  card_last4?: string | null;
  card_exp_month?: number | null;
  card_exp_year?: number | null;
  trial_end?: Date | null;
  stripe_subscription_id?: string | null;
  grace_ends_at?: Date | null;
}

/** The 30-day free trial every new user starts with. Call inside the sign-up transaction. */
export async function startTrial(trx: Kysely<any>, userUid: string, now: Date): Promise<void> {
  await trx
    .insertInto('subscriptions')
    .values({
      user_uid: userUid,
      status: subscriptionStatusCodes.trial,
      current_period_start: now,
      current_period_end: new Date(now.getTime() + TRIAL_DAYS * DAY_MS),
      cancel_at_period_end: false,
      has_payment_method: false,
      payment_status: null,
      updated_at: now,
    })
    .execute();
}

export async function findSubscription(db: Kysely<any>, userUid: string): Promise<SubscriptionRow | undefined> {
  return (await db
    .selectFrom('subscriptions')
    .select(['status', 'current_period_start', 'current_period_end', 'cancel_at_period_end', 'has_payment_method', 'payment_status', 'card_brand', 'card_last4', 'card_exp_month', 'card_exp_year', 'trial_end', 'stripe_subscription_id', 'grace_ends_at'])
    .where('user_uid', '=', userUid)
    .executeTakeFirst()) as SubscriptionRow | undefined;
}

/**
 * Effective status code and whether it grants access now. Staff roles (Admin, Super, Moderator) are
 * permanently active, and their status code says so (part 2 §4, §6): a client reading `subs_status` alone
 * must not see an Admin's trial run out. In self-hosted mode (no Stripe key) nobody can pay, so every user
 * is active without end whatever the row says.
 */
export function subscriptionAccess(row: SubscriptionRow | undefined, role: RoleName, now: Date, billing: BillingMode = 'stripe'): { subsStatus: number; active: boolean } {
  if (billing === 'self-hosted' || staffRoles.includes(role)) return { subsStatus: subscriptionStatusCodes.active, active: true };
  if (!row) return { subsStatus: subscriptionStatusCodes.unknown, active: false };
  // A renewal being charged keeps the plan's own code (1 or 2) and its access for that while (QA).
  if (renewalInFlight(renewalFactsOf(row), now)) return { subsStatus: row.status, active: true };
  const subsStatus = effectiveSubscriptionStatus(row.status, row.current_period_end, now);
  return { subsStatus, active: isActiveStatus(subsStatus) };
}

const renewalFactsOf = (row: SubscriptionRow) => ({
  status: row.status,
  periodEnd: row.current_period_end,
  cancelAtPeriodEnd: row.cancel_at_period_end,
  subscribed: row.stripe_subscription_id != null,
});

/** GET /subscription/current: the stored row (the console derives its display status from it). */
export function subscriptionView(row: SubscriptionRow | undefined): CurrentSubscription {
  if (!row) return { status: subscriptionStatusCodes.unknown, cpe: null, cps: null, cape: false, pm: false, payment_status: null };
  return {
    status: row.status,
    cpe: row.current_period_end?.toISOString() ?? null,
    cps: row.current_period_start?.toISOString() ?? null,
    cape: row.cancel_at_period_end,
    pm: row.has_payment_method,
    payment_status: row.payment_status === 'paid' || row.payment_status === 'open' ? row.payment_status : null,
  };
}

/** GET /subscription/current with the card, the mode and what the payment form needs. */
export function subscriptionDetailsOf(
  row: SubscriptionRow | undefined,
  billing: { mode: BillingMode; publishableKey: string | null; priceId: string | null },
  now: Date,
): SubscriptionDetails {
  if (billing.mode === 'self-hosted') return { ...selfHostedSubscription, mode: 'self-hosted', card: null, publishable_key: null, price_id: null, trial_period: false, subscribed: false, grace_ends_at: null, renewing: false };
  const card =
    row?.card_brand && row.card_last4 && row.card_exp_month && row.card_exp_year
      ? { brand: row.card_brand, last4: row.card_last4, exp_month: row.card_exp_month, exp_year: row.card_exp_year }
      : null;
  return {
    ...subscriptionView(row),
    mode: 'stripe',
    card,
    publishable_key: billing.publishableKey,
    price_id: billing.priceId,
    trial_period: isTrialPeriod(row),
    subscribed: row?.stripe_subscription_id != null,
    grace_ends_at: row?.status === subscriptionStatusCodes.due ? (row.grace_ends_at?.toISOString() ?? null) : null,
    renewing: row ? renewalInFlight(renewalFactsOf(row), now) : false,
  };
}

/**
 * Whether the current (or, once it ended, the last) period is the free trial, so nothing was ever charged
 * in it: a trial, or a trial that ran out (expired, cancelled, or a first charge that failed) without a
 * paid period after it. The period then still ends when the trial did; Stripe keeps that end to the second,
 * so the two are compared to the second.
 */
function isTrialPeriod(row: SubscriptionRow | undefined): boolean {
  if (!row) return false;
  if (row.status === subscriptionStatusCodes.trial) return true;
  const seconds = (d: Date | null | undefined) => (d ? Math.floor(d.getTime() / 1000) : null);
  return row.trial_end != null && seconds(row.current_period_end) === seconds(row.trial_end);
}

export const SUBSCRIPTION_EXPIRED_MESSAGE = 'Your subscription has expired, please renew';

/**
 * For commands that need an active subscription (creating trades, managing accounts): 403 otherwise.
 * Staff roles always pass (their `subscriptionActive` is true).
 */
export function assertActiveSubscription(principal: Principal, message: string = SUBSCRIPTION_EXPIRED_MESSAGE): void {
  if (!principal.subscriptionActive) throw new AppError('forbidden', message, { resolution: SUBSCRIPTION_RENEW_RESOLUTION });
}
