import { describe, expect, it } from 'vitest';
import { billingMessages as m } from '@oj/contracts/billing';
import { subscriptionStatusCodes as codes } from '@oj/contracts/subscriptions';
import type { SubscriptionEvent } from '@oj/contracts/subscription-events';
import { decide, SubscriptionConflict, type SubscriptionCommand } from './decide.ts';
import { emptySubscription, fold } from './state.ts';

// given: events so far; when: a command at an instant; then: the events decided (or the refusal).
const given = (...events: SubscriptionEvent[]) => fold(events, emptySubscription);
const when = (events: SubscriptionEvent[], command: SubscriptionCommand, now = '2026-03-10T12:00:00.000Z') => decide(command, given(...events), { now: new Date(now) });
const refusal = (events: SubscriptionEvent[], command: SubscriptionCommand, now?: string) => {
  try {
    when(events, command, now);
  } catch (e) {
    if (e instanceof SubscriptionConflict) return e.message;
    throw e;
  }
  return 'allowed';
};

const card = { brand: 'visa', last4: '4242', exp_month: 8, exp_year: 2030 };
const pm = { id: 'pm_1', card };
const trial: SubscriptionEvent = { type: 'TrialStarted', data: { trialStart: '2026-03-01T00:00:00.000Z', trialEnd: '2026-03-31T00:00:00.000Z' } };
const attached: SubscriptionEvent = { type: 'PaymentMethodAttached', data: { customerId: 'cus_1', paymentMethod: pm } };
const activated = (trialing: boolean): SubscriptionEvent => ({
  type: 'SubscriptionActivated',
  data: { customerId: 'cus_1', stripeSubscriptionId: 'sub_1', trialing, periodStart: '2026-03-01T00:00:00.000Z', periodEnd: trialing ? '2026-03-31T00:00:00.000Z' : '2026-04-01T00:00:00.000Z', invoiceId: trialing ? null : 'in_1' },
});
const paid = [trial, attached, activated(false)];
const src = (eventId: string, created = 100) => ({ eventId, created });

describe('subscription decider', () => {
  it('starts a trial once', () => {
    expect(when([], { type: 'StartTrial', trialStart: 'a', trialEnd: 'b' })).toEqual([{ type: 'TrialStarted', data: { trialStart: 'a', trialEnd: 'b' } }]);
    expect(refusal([trial], { type: 'StartTrial', trialStart: 'a', trialEnd: 'b' })).toBe(m.noTrialToStart);
  });

  it('subscribes in the trial: card attached, still a trial with a card, paid at the trial end', () => {
    const events = when([trial], { type: 'Subscribe', customerId: 'cus_1', paymentMethod: pm, stripeSubscriptionId: 'sub_1', trialing: true, periodStart: '2026-03-01T00:00:00.000Z', periodEnd: '2026-03-31T00:00:00.000Z', invoiceId: 'in_0' });
    expect(events.map((e) => e.type)).toEqual(['PaymentMethodAttached', 'SubscriptionActivated']);
    const state = given(trial, ...events);
    expect([state.status, state.paymentMethod?.id, state.periodEnd]).toEqual([codes.trial, 'pm_1', '2026-03-31T00:00:00.000Z']);
    // The 0.00 trial invoice activates nothing; the first real charge does.
    expect(when([trial, ...events], { type: 'RecordInvoicePaid', stripeSubscriptionId: 'sub_1', invoiceId: 'in_0', amountPaid: 0, periodStart: 'x', periodEnd: 'y' })).toEqual([]);
    const renewal = when([trial, ...events], { type: 'RecordInvoicePaid', stripeSubscriptionId: 'sub_1', invoiceId: 'in_2', amountPaid: 499, periodStart: '2026-03-31T00:00:00.000Z', periodEnd: '2026-04-30T00:00:00.000Z', stripe: src('evt_1') });
    expect(given(trial, ...events, ...renewal).status).toBe(codes.active);
  });

  it('refuses a second subscription and subscribing in the grace period', () => {
    expect(refusal(paid, { type: 'Subscribe', customerId: 'cus_1', paymentMethod: pm, stripeSubscriptionId: 'sub_2', trialing: false, periodStart: 'a', periodEnd: 'b', invoiceId: null })).toBe(m.alreadySubscribed);
    const failed: SubscriptionEvent = { type: 'PaymentFailed', data: { stripeSubscriptionId: 'sub_1', invoiceId: 'in_2', graceEndsAt: '2026-04-03T00:00:00.000Z' } };
    expect(refusal([...paid, failed], { type: 'Subscribe', customerId: 'cus_1', paymentMethod: pm, stripeSubscriptionId: 'sub_2', trialing: false, periodStart: 'a', periodEnd: 'b', invoiceId: null })).toBe(m.inGrace);
  });

  it('a renewal counts once, whoever reports it, and only for the current subscription', () => {
    const cmd: SubscriptionCommand = { type: 'RecordInvoicePaid', stripeSubscriptionId: 'sub_1', invoiceId: 'in_2', amountPaid: 499, periodStart: '2026-04-01T00:00:00.000Z', periodEnd: '2026-05-01T00:00:00.000Z', stripe: src('evt_2') };
    const renewed = when(paid, cmd);
    expect(renewed).toHaveLength(1);
    expect(given(...paid, ...renewed).periodEnd).toBe('2026-05-01T00:00:00.000Z');
    expect(when([...paid, ...renewed], cmd)).toEqual([]);
    expect(when([...paid, ...renewed], { ...cmd, stripe: src('evt_3') })).toEqual([]);
    expect(when(paid, { ...cmd, stripeSubscriptionId: 'sub_other' })).toEqual([]);
  });

  it('failed payment: grace for 2 days, then expired; or recovered by a payment', () => {
    const failed = when(paid, { type: 'RecordPaymentFailed', stripeSubscriptionId: 'sub_1', invoiceId: 'in_2', stripe: src('evt_f') }, '2026-04-01T01:00:00.000Z');
    expect(failed).toEqual([{ type: 'PaymentFailed', data: { stripeSubscriptionId: 'sub_1', invoiceId: 'in_2', graceEndsAt: '2026-04-03T01:00:00.000Z', stripe: src('evt_f') } }]);
    const due = [...paid, ...failed];
    expect([given(...due).status, given(...due).paymentStatus]).toEqual([codes.due, 'open']);
    // Stripe's retry fails again: the grace period does not restart.
    expect(when(due, { type: 'RecordPaymentFailed', stripeSubscriptionId: 'sub_1', invoiceId: 'in_2', stripe: src('evt_f2') })).toEqual([]);
    expect(refusal(due, { type: 'ExpireGrace' }, '2026-04-03T01:00:00.000Z')).toBe('allowed');
    expect(refusal(due, { type: 'ExpireGrace' }, '2026-04-03T00:59:59.000Z')).toBe('The grace period has not ended.');
    expect(given(...due, ...when(due, { type: 'ExpireGrace' }, '2026-04-04T00:00:00.000Z')).status).toBe(codes.expired);
    const recovered = when(due, { type: 'RecordInvoicePaid', stripeSubscriptionId: 'sub_1', invoiceId: 'in_2', amountPaid: 499, periodStart: '2026-04-01T00:00:00.000Z', periodEnd: '2026-05-01T00:00:00.000Z', stripe: src('evt_p') });
    expect([given(...due, ...recovered).status, given(...due, ...recovered).paymentStatus]).toEqual([codes.active, 'paid']);
  });

  it('cancel only when active; uncancel only a scheduled cancellation within the period', () => {
    expect(refusal([trial], { type: 'Cancel' })).toBe(m.notActive);
    const canceled = when(paid, { type: 'Cancel' });
    expect(canceled).toEqual([{ type: 'CancellationScheduled', data: {} }]);
    expect(refusal([...paid, ...canceled], { type: 'Cancel' })).toBe(m.alreadyCanceling);
    expect(refusal(paid, { type: 'Uncancel' })).toBe(m.nothingToUncancel);
    expect(when([...paid, ...canceled], { type: 'Uncancel' })).toEqual([{ type: 'CancellationUndone', data: {} }]);
    expect(refusal([...paid, ...canceled], { type: 'Uncancel' }, '2026-04-01T00:00:00.000Z')).toBe(m.periodEnded);
  });

  it('a scheduled cancellation ends at the period end as canceled (4); reactivation restores at once', () => {
    const pending = [...paid, { type: 'CancellationScheduled', data: {} } as SubscriptionEvent];
    expect(refusal(pending, { type: 'ExpireAtPeriodEnd' }, '2026-03-31T23:59:59.000Z')).toBe('The period has not ended.');
    const ended = when(pending, { type: 'ExpireAtPeriodEnd' }, '2026-04-01T00:00:00.000Z');
    const state = given(...pending, ...ended);
    expect([state.status, state.cancelAtPeriodEnd, state.stripeSubscriptionId]).toEqual([codes.canceled, false, null]);
    expect(refusal(paid, { type: 'Reactivate', stripeSubscriptionId: 'sub_2', periodStart: 'a', periodEnd: 'b', invoiceId: null })).toBe(m.notExpired);
    const back = when([...pending, ...ended], { type: 'Reactivate', stripeSubscriptionId: 'sub_2', periodStart: '2026-04-02T00:00:00.000Z', periodEnd: '2026-05-02T00:00:00.000Z', invoiceId: 'in_9' }, '2026-04-02T00:00:00.000Z');
    expect(given(...pending, ...ended, ...back).status).toBe(codes.active);
  });

  it('an ended trial without a card expires; reactivating it needs a card', () => {
    expect(refusal([trial], { type: 'ExpireAtPeriodEnd' }, '2026-03-30T00:00:00.000Z')).toBe('The period has not ended.');
    const ended = when([trial], { type: 'ExpireAtPeriodEnd' }, '2026-03-31T00:00:00.000Z');
    expect(ended).toEqual([{ type: 'SubscriptionExpired', data: { reason: 'trial_end' } }]);
    expect(refusal([trial, ...ended], { type: 'Reactivate', stripeSubscriptionId: 's', periodStart: 'a', periodEnd: 'b', invoiceId: null }, '2026-04-01T00:00:00.000Z')).toBe(m.noPaymentMethod);
    // Subscribing after the trial ended is allowed and is paid at once.
    expect(refusal([trial, ...ended], { type: 'Subscribe', customerId: 'cus_1', paymentMethod: pm, stripeSubscriptionId: 'sub_1', trialing: false, periodStart: 'a', periodEnd: 'b', invoiceId: null }, '2026-04-01T00:00:00.000Z')).toBe('allowed');
  });

  it('customer.subscription.updated applies the state Stripe has now, whatever the age of the event that said it changed', () => {
    const newer = when(paid, { type: 'SyncStripeSubscription', stripeSubscriptionId: 'sub_1', stripeStatus: 'active', cancelAtPeriodEnd: true, stripe: src('evt_new', 200) });
    expect(newer.map((e) => e.type)).toEqual(['CancellationScheduled']);
    expect(when([...paid, ...newer], { type: 'SyncStripeSubscription', stripeSubscriptionId: 'sub_1', stripeStatus: 'active', cancelAtPeriodEnd: true, stripe: src('evt_new', 200) })).toEqual([]);
    // The webhook reads the subscription when it handles the event, so an event older than one applied
    // still carries today's state: after an invoice.paid (created 300), a redelivered update of 150 whose
    // subscription Stripe now has cancelling is applied (QA: it was dropped, and the page said "Renews").
    const renewal = when(paid, { type: 'RecordInvoicePaid', stripeSubscriptionId: 'sub_1', invoiceId: 'in_2', amountPaid: 499, periodStart: '2026-04-01T00:00:00.000Z', periodEnd: '2026-05-01T00:00:00.000Z', stripe: src('evt_paid', 300) });
    expect(when([...paid, ...renewal], { type: 'SyncStripeSubscription', stripeSubscriptionId: 'sub_1', stripeStatus: 'active', cancelAtPeriodEnd: true, stripe: src('evt_old', 150) }).map((e) => e.type)).toEqual(['CancellationScheduled']);
  });

  it('an invoice of an earlier period, delivered late, never moves the period back', () => {
    const may: SubscriptionCommand = { type: 'RecordInvoicePaid', stripeSubscriptionId: 'sub_1', invoiceId: 'in_3', amountPaid: 499, periodStart: '2026-05-01T00:00:00.000Z', periodEnd: '2026-06-01T00:00:00.000Z', stripe: src('evt_may') };
    const april: SubscriptionCommand = { type: 'RecordInvoicePaid', stripeSubscriptionId: 'sub_1', invoiceId: 'in_2', amountPaid: 499, periodStart: '2026-04-01T00:00:00.000Z', periodEnd: '2026-05-01T00:00:00.000Z', stripe: src('evt_april') };
    const renewed = when(paid, may, '2026-05-01T01:00:00.000Z');
    expect(when([...paid, ...renewed], april, '2026-05-01T02:00:00.000Z')).toEqual([]);
    expect(given(...paid, ...renewed).periodEnd).toBe('2026-06-01T00:00:00.000Z');
  });

  it('a period ended while its Stripe subscription lives on: no second subscription until Stripe says what became of it', () => {
    const subscribe: SubscriptionCommand = { type: 'Subscribe', customerId: 'cus_1', paymentMethod: pm, stripeSubscriptionId: 'sub_2', trialing: false, periodStart: 'a', periodEnd: 'b', invoiceId: null };
    const reactivate: SubscriptionCommand = { type: 'Reactivate', stripeSubscriptionId: 'sub_2', periodStart: 'a', periodEnd: 'b', invoiceId: null };
    // Subscribed in the trial; the trial ended 20 minutes ago, and the first charge's invoice.paid has not come.
    const trialing = [trial, attached, activated(true)];
    const afterTrial = '2026-03-31T00:20:00.000Z';
    expect(refusal(trialing, subscribe, afterTrial)).toBe(m.renewalPending);
    expect(refusal(trialing, reactivate, afterTrial)).toBe(m.renewalPending);
    // An active plan past its end, renewal not reported yet: the same.
    expect(refusal(paid, subscribe, '2026-04-01T00:20:00.000Z')).toBe(m.renewalPending);
    expect(refusal(paid, reactivate, '2026-04-01T00:20:00.000Z')).toBe(m.renewalPending);
    // Stripe says it ended (asked, no webhook): a new subscription is allowed.
    const gone = when(trialing, { type: 'RecordSubscriptionDeleted', stripeSubscriptionId: 'sub_1' }, afterTrial);
    expect(gone).toEqual([{ type: 'SubscriptionExpired', data: { reason: 'stripe_deleted' } }]);
    expect(refusal([...trialing, ...gone], subscribe, afterTrial)).toBe('allowed');
    expect(refusal([...trialing, ...gone], reactivate, afterTrial)).toBe('allowed');
    // A plan that was cancelling ends at its period end at Stripe too: nothing to wait for.
    const cancelling = [...paid, { type: 'CancellationScheduled', data: {} } as SubscriptionEvent];
    expect(refusal(cancelling, reactivate, '2026-04-01T00:20:00.000Z')).toBe('allowed');
  });

  it('a declined charge is recorded and changes nothing but the revision', () => {
    const expired = [trial, attached, ...when([trial, attached], { type: 'ExpireAtPeriodEnd' }, '2026-03-31T00:00:00.000Z')];
    const declined = when(expired, { type: 'RecordChargeDeclined', during: 'reactivate', paymentMethodId: 'pm_1', reason: 'Your card was declined.' });
    expect(declined).toEqual([{ type: 'ChargeDeclined', data: { during: 'reactivate', paymentMethodId: 'pm_1', reason: 'Your card was declined.' } }]);
    const before = given(...expired);
    const after = given(...expired, ...declined);
    expect(after).toEqual({ ...before, revision: before.revision + 1 });
  });

  it('card update: only with a live subscription; the webhook never replaces the card on file', () => {
    expect(refusal([trial], { type: 'UpdatePaymentMethod', customerId: 'cus_1', paymentMethod: { id: 'pm_2', card } })).toBe(m.cannotUpdatePayment);
    expect(when(paid, { type: 'UpdatePaymentMethod', customerId: 'cus_1', paymentMethod: { id: 'pm_2', card } }).map((e) => e.type)).toEqual(['PaymentMethodUpdated']);
    expect(when(paid, { type: 'RecordPaymentMethodAttached', customerId: 'cus_1', paymentMethod: { id: 'pm_2', card }, stripe: src('evt_pm') })).toEqual([]);
    expect(when([trial], { type: 'RecordPaymentMethodAttached', customerId: 'cus_1', paymentMethod: pm, stripe: src('evt_pm') }).map((e) => e.type)).toEqual(['PaymentMethodAttached']);
  });

  it('customer.subscription.deleted expires the current subscription only', () => {
    expect(when(paid, { type: 'RecordSubscriptionDeleted', stripeSubscriptionId: 'sub_old', stripe: src('evt_d') })).toEqual([]);
    const ended = when(paid, { type: 'RecordSubscriptionDeleted', stripeSubscriptionId: 'sub_1', stripe: src('evt_d') });
    expect(given(...paid, ...ended).status).toBe(codes.expired);
  });
});
