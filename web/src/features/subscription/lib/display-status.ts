import type { SubscriptionDetails } from '@oj/contracts/subscriptions';
import { staffRoles, type RoleName } from '@oj/contracts/users';

/** Part 2 §4: what the status card shows, from the subscription fields and the viewer's role. */
export type DisplayStatus =
  | { kind: 'selfHosted' }
  | { kind: 'staff'; title: string }
  | { kind: 'none' }
  /** `renews`: subscribed in the trial, so the first charge comes at its end (part 2 §4's "trial with payment method"). */
  | { kind: 'trial'; renews: boolean; end: string | null }
  | { kind: 'active'; renews: string | null }
  /** The period has just ended and Stripe is charging the next one: access continues meanwhile. */
  | { kind: 'renewing'; periodEnded: string | null }
  | { kind: 'pendingCancellation'; cancels: string | null }
  | { kind: 'expired'; canceled: boolean }
  | { kind: 'due'; graceEnds: string | null }
  | { kind: 'other' };

type Privilege = RoleName | 7;

const passed = (iso: string | null, now: Date) => iso !== null && Date.parse(iso) <= now.getTime();

export function staffTitle(role: RoleName): string {
  return role === 'Super' ? 'Superuser Subscription' : `${role} Subscription`;
}

export function displayStatus(sub: SubscriptionDetails | undefined, privilege: Privilege, now: Date): DisplayStatus {
  if (sub?.mode === 'self-hosted') return { kind: 'selfHosted' };
  if (privilege !== 7 && staffRoles.includes(privilege)) return { kind: 'staff', title: staffTitle(privilege) };
  // The server answers status 7 with no dates when the user has no subscription record at all.
  if (!sub || (sub.status === 7 && sub.cpe === null && sub.cps === null)) return { kind: 'none' };
  // Past the period's end with a live subscription that is not cancelling, the server says whether the
  // renewal is still being charged (for up to two hours); read to the letter, "expired if the period end
  // has passed" would lock every paying trader out for the hour Stripe takes to charge.
  if ((sub.status === 1 || sub.status === 2) && passed(sub.cpe, now) && sub.renewing) return { kind: 'renewing', periodEnded: sub.cpe };
  switch (sub.status) {
    case 1:
      if (passed(sub.cpe, now)) return { kind: 'expired', canceled: false };
      // Subscribed in the trial, then cancelled: it ends with the trial, and Uncancel is offered.
      if (sub.cape) return { kind: 'pendingCancellation', cancels: sub.cpe };
      // A card on file alone renews nothing: only a subscription does (a card saved, then the tab closed).
      return { kind: 'trial', renews: sub.pm && sub.subscribed, end: sub.cpe };
    case 2:
      if (sub.cape) return { kind: 'pendingCancellation', cancels: sub.cpe };
      return passed(sub.cpe, now) ? { kind: 'expired', canceled: false } : { kind: 'active', renews: sub.cpe };
    case 3:
      return { kind: 'expired', canceled: false };
    case 4:
      return { kind: 'expired', canceled: true };
    case 5:
      return { kind: 'due', graceEnds: sub.grace_ends_at };
    default:
      return { kind: 'other' };
  }
}

/** "Month DD, YYYY" in New York, the product's business time zone. */
export function longDate(iso: string | null): string {
  if (!iso) return 'Future';
  return new Date(iso).toLocaleDateString('en-US', { month: 'long', day: '2-digit', year: 'numeric', timeZone: 'America/New_York' });
}

/** "Month DD, YYYY, h:mm AM ET": when the grace period ends, to the minute. */
export function longDateTime(iso: string): string {
  const time = new Date(iso).toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit', timeZone: 'America/New_York' });
  return `${longDate(iso)}, ${time} ET`;
}

export interface HistoryRow {
  label: string;
  prefix: string;
  date: string;
}

/**
 * Part 2 §4, Subscription history labels. The rules are tested in the order the spec lists them (it says
 * the precedence is not shown). Consequences, kept on purpose: a paid plan that is cancelling shows AUTO
 * (with "Cancellation on - "), and "Past Due", listed after GRACE PERIOD, never shows.
 */
export function historyRows(sub: SubscriptionDetails, privilege: Privilege): { top: HistoryRow; bottom: HistoryRow } {
  const staff = sub.mode === 'self-hosted' || (privilege !== 7 && staffRoles.includes(privilege));
  // "TRIAL for status 1, else PAID": the bottom row is the last period processed. A trial that ran out
  // unpaid (expired, cancelled, or its first charge failed) is no longer status 1, but nothing was ever
  // paid in it, so it still reads TRIAL rather than a 4.99 payment that never happened. The rule is the
  // status's, not the role's: staff who never paid read TRIAL too (QA: an admin saw a $4.99 PAID).
  const bottom: HistoryRow = { label: sub.status === 1 || sub.trial_period ? 'TRIAL' : 'PAID', prefix: 'Processed on - ', date: longDate(sub.cps) };
  if (staff) return { top: { label: 'AUTO', prefix: 'Expiration: ', date: 'Future' }, bottom };
  let label = 'UNKNOWN';
  if (sub.payment_status === 'paid') label = 'AUTO';
  else if (sub.cape) label = 'PENDING';
  else if (sub.payment_status === 'open') label = 'GRACE PERIOD';
  else if (!sub.pm) label = 'ADD PAYMENT';
  // "Past Due" (status 5 and payment open) comes after GRACE PERIOD (payment open) in the list, so in
  // the listed order it can never show.
  else if (sub.status === 3 || sub.status === 4 || sub.status === 6) label = 'EXPIRED';
  const prefix = sub.status >= 3 && sub.status <= 6 ? 'Processed on - ' : sub.cape ? 'Cancellation on - ' : 'Processing on - ';
  return {
    top: { label, prefix, date: longDate(sub.cpe) },
    bottom,
  };
}
