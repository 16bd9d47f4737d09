import { describe, expect, it } from 'vitest';
import type { SubscriptionDetails } from '@oj/contracts/subscriptions';
import { displayStatus, historyRows, longDate, longDateTime } from './display-status.ts';

const now = new Date('2026-03-15T12:00:00Z');
const base: SubscriptionDetails = { status: 1, cps: '2026-03-01T15:00:00.000Z', cpe: '2026-03-31T15:00:00.000Z', cape: false, pm: false, payment_status: null, mode: 'stripe', card: null, publishable_key: 'pk', price_id: 'price', trial_period: true, subscribed: false, grace_ends_at: null, renewing: false };
const sub = (patch: Partial<SubscriptionDetails>) => ({ ...base, ...patch });

describe('display status (part 2 §4)', () => {
  it('maps every status code for a User', () => {
    expect(displayStatus(sub({}), 'User', now)).toEqual({ kind: 'trial', renews: false, end: base.cpe });
    // A card saved (its SetupIntent done) but never subscribed renews nothing: it is still "Subscribe to
    // continue" (QA: the page said "auto renews" with no Subscribe button, and the trial then ran out).
    expect(displayStatus(sub({ pm: true }), 'User', now)).toEqual({ kind: 'trial', renews: false, end: base.cpe });
    expect(displayStatus(sub({ pm: true, subscribed: true }), 'User', now)).toEqual({ kind: 'trial', renews: true, end: base.cpe });
    // Subscribed in the trial, then cancelled: it ends with the trial (QA: a trial could not be cancelled).
    expect(displayStatus(sub({ pm: true, subscribed: true, cape: true }), 'User', now)).toEqual({ kind: 'pendingCancellation', cancels: base.cpe });
    expect(displayStatus(sub({ cpe: '2026-03-10T00:00:00.000Z' }), 'User', now)).toEqual({ kind: 'expired', canceled: false });
    expect(displayStatus(sub({ status: 2 }), 'User', now)).toEqual({ kind: 'active', renews: base.cpe });
    expect(displayStatus(sub({ status: 2, cape: true }), 'User', now)).toEqual({ kind: 'pendingCancellation', cancels: base.cpe });
    expect(displayStatus(sub({ status: 2, cpe: '2026-03-10T00:00:00.000Z' }), 'User', now)).toEqual({ kind: 'expired', canceled: false });
    expect(displayStatus(sub({ status: 3 }), 'User', now)).toEqual({ kind: 'expired', canceled: false });
    expect(displayStatus(sub({ status: 4 }), 'User', now)).toEqual({ kind: 'expired', canceled: true });
    expect(displayStatus(sub({ status: 5, grace_ends_at: '2026-04-02T14:30:00.000Z' }), 'User', now)).toEqual({ kind: 'due', graceEnds: '2026-04-02T14:30:00.000Z' });
    expect(displayStatus(sub({ status: 6 }), 'User', now)).toEqual({ kind: 'other' });
    expect(displayStatus(sub({ status: 7 }), 'User', now)).toEqual({ kind: 'other' });
    expect(displayStatus(sub({ status: 7, cps: null, cpe: null }), 'User', now)).toEqual({ kind: 'none' });
  });

  it('a period just ended whose renewal Stripe is charging reads "renewing", not expired (QA: paying traders locked out for the hour)', () => {
    const ended = '2026-03-15T11:30:00.000Z';
    expect(displayStatus(sub({ status: 2, cpe: ended, pm: true, subscribed: true, renewing: true }), 'User', now)).toEqual({ kind: 'renewing', periodEnded: ended });
    expect(displayStatus(sub({ status: 1, cpe: ended, pm: true, subscribed: true, renewing: true }), 'User', now)).toEqual({ kind: 'renewing', periodEnded: ended });
    // The server no longer says so (two hours on, or cancelling): the spec's rule, expired.
    expect(displayStatus(sub({ status: 2, cpe: ended, pm: true, subscribed: true }), 'User', now)).toEqual({ kind: 'expired', canceled: false });
  });

  it('staff roles look permanently active; self-hosted mode says so', () => {
    expect(displayStatus(sub({ status: 3 }), 'Admin', now)).toEqual({ kind: 'staff', title: 'Admin Subscription' });
    expect(displayStatus(sub({}), 'Super', now)).toEqual({ kind: 'staff', title: 'Superuser Subscription' });
    expect(displayStatus(sub({ mode: 'self-hosted' }), 'User', now)).toEqual({ kind: 'selfHosted' });
  });
});

describe('history labels', () => {
  it('tests the rules in the listed order', () => {
    expect(historyRows(sub({ status: 2, payment_status: 'paid' }), 'User').top).toEqual({ label: 'AUTO', prefix: 'Processing on - ', date: 'March 31, 2026' });
    expect(historyRows(sub({ status: 2, cape: true, payment_status: null, pm: true }), 'User').top).toEqual({ label: 'PENDING', prefix: 'Cancellation on - ', date: 'March 31, 2026' });
    expect(historyRows(sub({ status: 5, payment_status: 'open', pm: true }), 'User').top).toEqual({ label: 'GRACE PERIOD', prefix: 'Processed on - ', date: 'March 31, 2026' });
    expect(historyRows(sub({}), 'User').top.label).toBe('ADD PAYMENT');
    expect(historyRows(sub({ status: 3, pm: true }), 'User').top).toEqual({ label: 'EXPIRED', prefix: 'Processed on - ', date: 'March 31, 2026' });
    expect(historyRows(sub({ status: 7, pm: true }), 'User').top.label).toBe('UNKNOWN');
    expect(historyRows(sub({}), 'User').bottom).toEqual({ label: 'TRIAL', prefix: 'Processed on - ', date: 'March 01, 2026' });
    expect(historyRows(sub({ status: 2, trial_period: false }), 'User').bottom.label).toBe('PAID');
    expect(historyRows(sub({ status: 3, trial_period: false }), 'User').bottom.label).toBe('PAID');
    // A trial that ran out unpaid (the scheduler made it status 3, or Stripe cancelled it: 4) was never paid.
    expect(historyRows(sub({ status: 3, trial_period: true }), 'User').bottom.label).toBe('TRIAL');
    expect(historyRows(sub({ status: 4, trial_period: true }), 'User').bottom.label).toBe('TRIAL');
    expect(historyRows(sub({ status: 3 }), 'Admin').top).toEqual({ label: 'AUTO', prefix: 'Expiration: ', date: 'Future' });
    // Staff who never paid: the bottom row is still the status's, TRIAL, not a $4.99 PAID (QA).
    for (const role of ['Admin', 'Super', 'Moderator'] as const) {
      expect(historyRows(sub({}), role).bottom.label).toBe('TRIAL');
      expect(historyRows(sub({ status: 3, trial_period: true }), role).bottom.label).toBe('TRIAL');
      expect(historyRows(sub({ status: 2, trial_period: false }), role).bottom.label).toBe('PAID');
    }
  });

  it('dates are "Month DD, YYYY" in New York', () => {
    // 02:00 UTC on 1 April is still 31 March in New York.
    expect(longDate('2026-04-01T02:00:00.000Z')).toBe('March 31, 2026');
  });

  it("the grace period's end is to the minute, in New York time", () => {
    // 14:30 UTC on 2 April is 10:30 in New York (daylight time); 02:05 UTC on 1 December is 21:05 on 30 November.
    expect(longDateTime('2026-04-02T14:30:00.000Z')).toBe('April 02, 2026, 10:30 AM ET');
    expect(longDateTime('2026-12-01T02:05:00.000Z')).toBe('November 30, 2026, 9:05 PM ET');
  });
});
