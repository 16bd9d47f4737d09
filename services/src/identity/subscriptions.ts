import type { Kysely } from 'kysely';
import { effectiveSubscriptionStatus, isActiveStatus, subscriptionStatusCodes, TRIAL_DAYS, type CurrentSubscription } from '@oj/contracts/subscriptions';
import { staffRoles, type RoleName } from '@oj/contracts/users';
import { AppError } from '../app/errors.ts';
import type { Principal } from '../app/principal.ts';

const DAY_MS = 86_400_000;

interface SubscriptionRow {
  status: number;
  current_period_start: Date | null;
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
  has_payment_method: boolean;
  payment_status: string | null;
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
    .select(['status', 'current_period_start', 'current_period_end', 'cancel_at_period_end', 'has_payment_method', 'payment_status'])
    .where('user_uid', '=', userUid)
    .executeTakeFirst()) as SubscriptionRow | undefined;
}

/** Effective status code and whether it grants access now; staff roles are always active. */
export function subscriptionAccess(row: SubscriptionRow | undefined, role: RoleName, now: Date): { subsStatus: number; active: boolean } {
  const subsStatus = row ? effectiveSubscriptionStatus(row.status, row.current_period_end, now) : subscriptionStatusCodes.unknown;
  return { subsStatus, active: staffRoles.includes(role) || isActiveStatus(subsStatus) };
}

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

export const SUBSCRIPTION_EXPIRED_MESSAGE = 'Your subscription has expired, please renew';

/**
 * For commands that need an active subscription (creating trades, managing accounts): 403 otherwise.
 * Staff roles always pass (their `subscriptionActive` is true).
 */
export function assertActiveSubscription(principal: Principal, message: string = SUBSCRIPTION_EXPIRED_MESSAGE): void {
  if (!principal.subscriptionActive) throw new AppError('forbidden', message, { resolution: 'Renew your subscription on the Subscription page.' });
}
