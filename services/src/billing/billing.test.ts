import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingMessages as m } from '@oj/contracts/billing';
import { runBillingTick } from './scheduler.ts';
import { createStripeClient } from './stripe-client.ts';
import { startBillingApp, type BillingApp } from './testing/billing-harness.ts';
import { PRICE_CENTS, PRICE_ID } from './testing/stripe-test-server.ts';

const DAY = 86_400_000;
let b: BillingApp;
beforeAll(async () => {
  b = await startBillingApp('billing');
});
afterAll(async () => b?.close());

const tick = () => runBillingTick({ db: b.t.db.db, eventStore: b.t.deps.eventStore, clock: b.t.clock, publicUrl: 'http://journal.test', stripe: createStripeClient(b.t.config) });
const at = <T>(iso: string, fn: () => Promise<T>) => {
  b.t.clock.set(iso);
  b.syncStripeClock();
  return fn();
};
/** Each scenario has its own user and starts at its sign-up; the clock is the test's to move. */
const start = '2026-03-02T15:00:00.000Z';
const trialEnd = '2026-04-01T15:00:00.000Z';

describe('trial to paid, renewal', () => {
  it('saves a card in the trial, subscribes (charged at the trial end), renews monthly', async () => {
    b.t.clock.set(start);
    const u = await b.user();
    expect(await b.status(u)).toMatchObject({ status: 1, pm: false, cpe: trialEnd, mode: 'stripe', publishable_key: 'pk_test_billing', price_id: PRICE_ID });

    const pm = await b.saveCard(u);
    const created = await b.call(u, 'POST', '/auth/create-subscription', { paymentMethodId: pm, priceId: PRICE_ID });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ status: 'success', message: m.activated, subscription_data: { status: 1, pm: true, cpe: trialEnd, payment_status: 'paid', card: { last4: '4242', exp_month: 8, exp_year: 2030 }, trial_period: true } });
    // Stripe was asked for a trialing subscription that charges at our trial's end.
    const subId = await b.subscriptionIdOf(u.userId);
    expect(b.stripe.subscriptions.get(subId)).toMatchObject({ status: 'trialing', trial_end: Date.parse(trialEnd) / 1000, default_payment_method: pm });
    // Stripe's webhooks for what the API already recorded decide nothing new.
    const before = (await b.stream(u.userId)).length;
    expect((await b.deliver(b.stripe.event('setup_intent.succeeded', b.stripe.setupIntents.values().next().value!))).status).toBe(200);
    expect((await b.deliver(b.stripe.event('invoice.paid', b.stripe.invoices.get(b.stripe.subscriptions.get(subId)!.latest_invoice)!))).status).toBe(200);
    expect(await b.stream(u.userId)).toHaveLength(before);

    // The trial ends: Stripe charges 4.99 and says so.
    await at(trialEnd, async () => {
      const { invoice, paid } = b.stripe.renew(subId);
      expect([paid, invoice.amount_paid]).toEqual([true, PRICE_CENTS]);
      expect((await b.deliver(b.stripe.event('invoice.paid', invoice))).status).toBe(200);
    });
    expect(await b.status(u)).toMatchObject({ status: 2, cps: trialEnd, cpe: new Date(Date.parse(trialEnd) + 30 * DAY).toISOString(), payment_status: 'paid', trial_period: false });
    expect(await b.subsStatus(u)).toBe(2);

    // A month later: renewed again.
    const renewedAt = new Date(Date.parse(trialEnd) + 30 * DAY).toISOString();
    await at(renewedAt, async () => b.deliver(b.stripe.event('invoice.paid', b.stripe.renew(subId).invoice)));
    expect((await b.status(u)).cpe).toBe(new Date(Date.parse(renewedAt) + 30 * DAY).toISOString());

    const events = await b.stream(u.userId);
    expect(events.map((e) => [e.type, e.actor])).toEqual([
      ['TrialStarted', u.userId],
      ['PaymentMethodAttached', u.userId],
      ['SubscriptionActivated', u.userId],
      ['RenewalSucceeded', 'stripe-webhook'],
      ['RenewalSucceeded', 'stripe-webhook'],
    ]);
    // One Stripe customer for the user, however many calls needed it; every POST carried an idempotency key.
    expect(b.stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/customers' && r.params.metadata?.user_uid === u.userId)).toHaveLength(1);
    expect(b.stripe.requests.filter((r) => r.method === 'POST' && !r.idempotencyKey)).toEqual([]);
  });

  it('after the trial ended, subscribing charges at once and lets the user back in with their data', async () => {
    b.t.clock.set(start);
    const u = await b.user();
    const account = await b.call(u, 'POST', '/accounts/add-account', { name: 'Main', broker: 'ibkr', ac_type: 1 });
    expect(account.status).toBe(201);
    await at('2026-04-05T12:00:00.000Z', async () => {
      expect(await b.subsStatus(u)).toBe(3);
      expect((await b.call(u, 'POST', '/accounts/add-account', { name: 'Second', broker: 'ibkr', ac_type: 1 })).status).toBe(403);
      const paid = await b.subscribe(u);
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      expect(paid.body.subscription_data).toMatchObject({ status: 2, cps: '2026-04-05T12:00:00.000Z', cpe: '2026-05-05T12:00:00.000Z', payment_status: 'paid' });
      expect(b.stripe.subscriptions.get(await b.subscriptionIdOf(u.userId))!.status).toBe('active');
      expect(await b.subsStatus(u)).toBe(2);
      const accounts = await b.call(u, 'GET', '/accounts/');
      expect(accounts.body.map((a: { name: string }) => a.name)).toEqual(['Main']);
      expect((await b.call(u, 'POST', '/accounts/add-account', { name: 'Second', broker: 'ibkr', ac_type: 1 })).status).toBe(201);
    });
  });

  it('a declined first charge is a 402 with the card message and records only the decline; the same card, approved since, goes through (QA)', async () => {
    b.t.clock.set('2026-04-10T12:00:00.000Z');
    const u = await b.user({});
    await at('2026-05-20T12:00:00.000Z', async () => {
      const pm = await b.saveCard(u, { declined: true });
      const res = await b.call(u, 'POST', '/auth/create-subscription', { paymentMethodId: pm, priceId: PRICE_ID });
      expect([res.status, res.body.message]).toEqual([402, 'Your card was declined.']);
      expect((await b.stream(u.userId)).map((e) => [e.type, e.data.during ?? null])).toEqual([
        ['TrialStarted', null],
        ['ChargeDeclined', 'subscribe'],
      ]);
      expect(await b.subsStatus(u)).toBe(3);
      // The trader calls the bank, which approves the card: the retry is a new request at Stripe, not the
      // declined one answered again from Stripe's idempotency cache.
      b.stripe.approve(pm);
      const retried = await b.call(u, 'POST', '/auth/create-subscription', { paymentMethodId: pm, priceId: PRICE_ID });
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      expect(await b.subsStatus(u)).toBe(2);
    });
  });

  it('subscribed in the trial, the trader can cancel before the first charge (and uncancel); cancelled, it ends with the trial, uncharged (QA)', async () => {
    b.t.clock.set(start);
    const u = await b.user();
    expect((await b.call(u, 'POST', '/auth/cancel-subscription')).status).toBe(409);
    expect((await b.subscribe(u)).status).toBe(200);
    const subId = await b.subscriptionIdOf(u.userId);
    expect(await b.status(u)).toMatchObject({ status: 1, subscribed: true, cape: false });
    const cancel = await at('2026-03-20T00:00:00.000Z', () => b.call(u, 'POST', '/auth/cancel-subscription'));
    expect(cancel).toMatchObject({ status: 200, body: { message: m.canceled, frontend_data: { status: 1, cape: true, cpe: trialEnd } } });
    expect(b.stripe.subscriptions.get(subId)!.cancel_at_period_end).toBe(true);
    expect((await at('2026-03-21T00:00:00.000Z', () => b.call(u, 'POST', '/auth/reactivate-subscription'))).body).toMatchObject({ message: m.restored });
    expect(b.stripe.subscriptions.get(subId)!.cancel_at_period_end).toBe(false);
    expect((await at('2026-03-22T00:00:00.000Z', () => b.call(u, 'POST', '/auth/cancel-subscription'))).status).toBe(200);
    // The trial still grants access until its end; then the scheduler ends it as cancelled, nothing charged.
    expect(await at('2026-04-01T14:59:59.000Z', () => tick())).toMatchObject({ periodsEnded: 0 });
    expect(await at(trialEnd, () => tick())).toMatchObject({ periodsEnded: 1 });
    expect(await b.status(u)).toMatchObject({ status: 4, cape: false, subscribed: false });
    const customer = b.stripe.subscriptions.get(subId)!.customer;
    expect([...b.stripe.invoices.values()].filter((i) => i.customer === customer && i.amount_paid > 0)).toEqual([]);
  });

  it('two subscriptions racing for one user: one wins, the other is a 409 before it reaches Stripe, and the card is charged once (QA)', async () => {
    b.t.clock.set('2026-02-01T00:00:00.000Z');
    const u = await b.user();
    await at('2026-03-10T00:00:00.000Z', async () => {
      const [one, two] = [await b.saveCard(u), await b.saveCard(u, { last4: '1111' })];
      const answers = await Promise.all([one, two].map((pm) => b.call(u, 'POST', '/auth/create-subscription', { paymentMethodId: pm, priceId: PRICE_ID })));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      const customer = b.stripe.customers.get([...b.stripe.customers.values()].find((c) => c.metadata.user_uid === u.userId)!.id)!;
      // One Stripe subscription was ever made, so one first invoice was paid (QA: both were, 4.99 twice,
      // and the loser's subscription was only cancelled, not refunded).
      const made = [...b.stripe.subscriptions.values()].filter((s) => s.customer === customer.id);
      expect(made.map((s) => s.id)).toEqual([await b.subscriptionIdOf(u.userId)]);
      const paid = [...b.stripe.invoices.values()].filter((i) => i.customer === customer.id && i.status === 'paid' && i.amount_paid > 0);
      expect(paid).toHaveLength(1);
      expect(answers.find((a) => a.status === 409)!.body.message).toMatch(/^(A payment for your subscription is already in progress|You already have an active subscription)/);
      expect((await b.stream(u.userId)).filter((e) => e.type === 'SubscriptionActivated')).toHaveLength(1);
    });
  });

  it('refuses a bad body, an unknown price and a second subscription', async () => {
    b.t.clock.set(start);
    const u = await b.user();
    expect((await b.call(u, 'POST', '/auth/create-subscription', { paymentMethodId: 'card 4242', priceId: PRICE_ID })).status).toBe(422);
    // Each field says what is wrong with it: missing, or of the wrong type (QA: a number read "required").
    for (const [body, message] of [
      [{ priceId: PRICE_ID }, 'paymentMethodId is required.'],
      [{ paymentMethodId: null, priceId: PRICE_ID }, 'paymentMethodId is required.'],
      [{ paymentMethodId: 5, priceId: PRICE_ID }, 'paymentMethodId must be a string.'],
      [{ paymentMethodId: 'pm_1', priceId: 1 }, 'priceId must be a string.'],
      [{ paymentMethodId: 'pm_1', priceId: '' }, 'priceId is required.'],
    ] as const) {
      expect(await b.call(u, 'POST', '/auth/create-subscription', body)).toMatchObject({ status: 422, body: { message } });
    }
    // A body far larger than two ids is refused unread.
    expect((await b.call(u, 'POST', '/auth/create-subscription', { paymentMethodId: 'pm_1', priceId: PRICE_ID, padding: 'x'.repeat(3 * 1024 * 1024) })).status).toBe(413);
    const pm = await b.saveCard(u);
    expect(await b.call(u, 'POST', '/auth/create-subscription', { paymentMethodId: pm, priceId: 'price_other' })).toMatchObject({ status: 422, body: { message: m.unknownPrice } });
    expect((await b.call(u, 'POST', '/auth/create-subscription', { paymentMethodId: pm, priceId: PRICE_ID })).status).toBe(200);
    expect(await b.call(u, 'POST', '/auth/create-subscription', { paymentMethodId: pm, priceId: PRICE_ID })).toMatchObject({ status: 409, body: { message: m.alreadySubscribed } });
    // Nothing to cancel without a subscription (a trial that never subscribed).
    expect(await b.call(await b.user(), 'POST', '/auth/cancel-subscription')).toMatchObject({ status: 409, body: { message: m.notActive } });
  });
});

/** A user on a paid plan from `start` (subscribed after a trial that ended at once). */
async function paidUser() {
  b.t.clock.set(start);
  const u = await b.user();
  const res = await at('2026-04-02T10:00:00.000Z', () => b.subscribe(u));
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return { ...u, subId: await b.subscriptionIdOf(u.userId) };
}
const periodEnd = '2026-05-02T10:00:00.000Z';

describe('failed payments and the grace period', () => {
  it('a failed renewal starts 2 days of grace; unpaid, the scheduler expires it; reactivation restores', async () => {
    const u = await paidUser();
    // The card starts failing at Stripe.
    const declined = b.stripe.createPaymentMethod({ customer: b.stripe.subscriptions.get(u.subId)!.customer, declined: true });
    b.stripe.subscriptions.get(u.subId)!.default_payment_method = declined.id;
    const failed = await at(periodEnd, async () => {
      const { invoice, paid } = b.stripe.renew(u.subId);
      expect(paid).toBe(false);
      const event = b.stripe.event('invoice.payment_failed', invoice);
      expect((await b.deliver(event)).status).toBe(200);
      return event;
    });
    // The page says when the grace period ends (QA: the trader was not told).
    expect(await b.status(u)).toMatchObject({ status: 5, payment_status: 'open', grace_ends_at: '2026-05-04T10:00:00.000Z' });
    expect(await b.subsStatus(u)).toBe(5);
    expect((await b.row(u.userId)).grace_ends_at).toEqual(new Date('2026-05-04T10:00:00.000Z'));
    // Stripe retries the charge and fails again: the grace period does not restart.
    await at('2026-05-03T10:00:00.000Z', async () => b.deliver(b.stripe.event('invoice.payment_failed', JSON.parse(failed.payload).data.object)));
    expect((await b.row(u.userId)).grace_ends_at).toEqual(new Date('2026-05-04T10:00:00.000Z'));

    await at('2026-05-04T09:59:59.000Z', async () => expect((await tick()).gracesExpired).toBe(0));
    await at('2026-05-04T10:00:00.000Z', async () => expect((await tick()).gracesExpired).toBe(1));
    expect(await b.status(u)).toMatchObject({ status: 3, trial_period: false, grace_ends_at: null });
    // Stripe stops retrying the invoice: the subscription is cancelled there too.
    expect(b.stripe.subscriptions.get(u.subId)!.status).toBe('canceled');
    expect(await at('2026-05-04T11:00:00.000Z', () => tick())).toMatchObject({ gracesExpired: 0 });

    // Reactivate: a new paid period at once, on the card on file.
    const back = await at('2026-05-06T08:00:00.000Z', () => b.call(u, 'POST', '/auth/reactivate-subscription'));
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body).toMatchObject({ message: m.activated, frontend_data: { status: 2, cps: '2026-05-06T08:00:00.000Z', cpe: '2026-06-05T08:00:00.000Z' } });
    expect((await b.stream(u.userId)).map((e) => [e.type, e.actor]).slice(-3)).toEqual([
      ['PaymentFailed', 'stripe-webhook'],
      ['GraceExpired', 'billing-scheduler'],
      ['Reactivated', u.userId],
    ]);
  });

  it('a first charge at the trial end that fails, left unpaid: expired, and the last period is still the trial (nothing was paid)', async () => {
    b.t.clock.set(start);
    const u = await b.user();
    const created = await b.call(u, 'POST', '/auth/create-subscription', { paymentMethodId: await b.saveCard(u), priceId: PRICE_ID });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const subId = await b.subscriptionIdOf(u.userId);
    b.stripe.subscriptions.get(subId)!.default_payment_method = b.stripe.createPaymentMethod({ customer: b.stripe.subscriptions.get(subId)!.customer, declined: true }).id;
    await at(trialEnd, async () => {
      const { invoice, paid } = b.stripe.renew(subId);
      expect(paid).toBe(false);
      expect((await b.deliver(b.stripe.event('invoice.payment_failed', invoice))).status).toBe(200);
    });
    expect(await b.status(u)).toMatchObject({ status: 5, payment_status: 'open', cpe: trialEnd, trial_period: true });
    await at('2026-04-03T15:00:00.000Z', async () => expect((await tick()).gracesExpired).toBe(1));
    expect(await b.status(u)).toMatchObject({ status: 3, cpe: trialEnd, trial_period: true });
  });

  it('in the grace period a new card whose charge is declined is on file, and the answer says so (QA)', async () => {
    const u = await paidUser();
    const declined = b.stripe.createPaymentMethod({ customer: b.stripe.subscriptions.get(u.subId)!.customer, declined: true });
    b.stripe.subscriptions.get(u.subId)!.default_payment_method = declined.id;
    await at(periodEnd, async () => b.deliver(b.stripe.event('invoice.payment_failed', b.stripe.renew(u.subId).invoice)));
    const res = await at('2026-05-03T09:00:00.000Z', async () => {
      const pm = await b.saveCard(u, { declined: true, last4: '0341' });
      return b.call(u, 'POST', '/auth/update-payment-method', { paymentMethodId: pm });
    });
    expect([res.status, res.body.message]).toEqual([402, m.cardSavedPaymentDeclined('Your card was declined.')]);
    expect(await b.status(u)).toMatchObject({ status: 5, card: { last4: '0341' } });
    // Another card pays it (and leaves no grace period behind for the scenarios after this one).
    const good = await at('2026-05-03T09:05:00.000Z', async () => b.call(u, 'POST', '/auth/update-payment-method', { paymentMethodId: await b.saveCard(u, { last4: '1881' }) }));
    expect(good.status, JSON.stringify(good.body)).toBe(200);
    expect(await b.status(u)).toMatchObject({ status: 2, card: { last4: '1881' } });
  });

  it('in the grace period a new card (Renew) pays the open invoice at once; the webhook adds nothing', async () => {
    const u = await paidUser();
    const declined = b.stripe.createPaymentMethod({ customer: b.stripe.subscriptions.get(u.subId)!.customer, declined: true });
    b.stripe.subscriptions.get(u.subId)!.default_payment_method = declined.id;
    const invoice = await at(periodEnd, async () => {
      const { invoice } = b.stripe.renew(u.subId);
      await b.deliver(b.stripe.event('invoice.payment_failed', invoice));
      return invoice;
    });
    expect((await b.status(u)).status).toBe(5);
    const renewed = await at('2026-05-03T09:00:00.000Z', async () => {
      const pm = await b.saveCard(u, { last4: '1881', expMonth: 11, expYear: 2031 });
      return b.call(u, 'POST', '/auth/update-payment-method', { paymentMethodId: pm });
    });
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
    expect(renewed.body).toMatchObject({ status: 'success', message: m.paymentUpdated, subscription_data: { status: 2, payment_status: 'paid', cpe: '2026-06-01T10:00:00.000Z', card: { last4: '1881', exp_month: 11, exp_year: 2031 } } });
    expect(b.stripe.invoices.get(invoice.id)!.status).toBe('paid');
    const n = (await b.stream(u.userId)).length;
    await at('2026-05-03T09:00:05.000Z', async () => b.deliver(b.stripe.event('invoice.paid', b.stripe.invoices.get(invoice.id)!)));
    expect(await b.stream(u.userId)).toHaveLength(n);
    expect(await at('2026-05-10T00:00:00.000Z', () => tick())).toMatchObject({ gracesExpired: 0 });
    expect((await b.status(u)).status).toBe(2);
  });
});

describe('cancel, uncancel, expiry at the period end, reactivation', () => {
  it('cancel keeps access to the period end; uncancel restores; at the end it is canceled; reactivate', async () => {
    const u = await paidUser();
    const cancel = await at('2026-04-20T00:00:00.000Z', () => b.call(u, 'POST', '/auth/cancel-subscription'));
    expect(cancel).toMatchObject({ status: 200, body: { message: m.canceled, frontend_data: { status: 2, cape: true, cpe: periodEnd } } });
    expect(b.stripe.subscriptions.get(u.subId)!.cancel_at_period_end).toBe(true);
    expect(await b.call(u, 'POST', '/auth/cancel-subscription')).toMatchObject({ status: 409, body: { message: m.alreadyCanceling } });
    expect(await b.subsStatus(u)).toBe(2);
    // Stripe's echo of our own change decides nothing.
    const n = (await b.stream(u.userId)).length;
    await b.deliver(b.stripe.event('customer.subscription.updated', b.stripe.subscriptions.get(u.subId)!));
    expect(await b.stream(u.userId)).toHaveLength(n);

    const uncancel = await at('2026-04-21T00:00:00.000Z', () => b.call(u, 'POST', '/auth/reactivate-subscription'));
    expect(uncancel).toMatchObject({ status: 200, body: { message: m.restored, frontend_data: { status: 2, cape: false } } });
    expect(b.stripe.subscriptions.get(u.subId)!.cancel_at_period_end).toBe(false);

    await at('2026-04-22T00:00:00.000Z', () => b.call(u, 'POST', '/auth/cancel-subscription'));
    await at('2026-05-02T09:59:59.000Z', async () => expect((await tick()).periodsEnded).toBe(0));
    await at(periodEnd, async () => expect((await tick()).periodsEnded).toBe(1));
    expect(await b.status(u)).toMatchObject({ status: 4, cape: false, trial_period: false });
    expect(await b.subsStatus(u)).toBe(4);
    // Stripe deletes the subscription at the period end too: already recorded, nothing new.
    const m2 = (await b.stream(u.userId)).length;
    await at('2026-05-02T10:00:30.000Z', async () => b.deliver(b.stripe.event('customer.subscription.deleted', { ...b.stripe.subscriptions.get(u.subId)!, status: 'canceled' })));
    expect(await b.stream(u.userId)).toHaveLength(m2);
    expect(await b.call(u, 'POST', '/auth/cancel-subscription')).toMatchObject({ status: 409, body: { message: m.notActive } });

    const back = await at('2026-05-09T00:00:00.000Z', () => b.call(u, 'POST', '/auth/reactivate-subscription'));
    expect(back).toMatchObject({ status: 200, body: { frontend_data: { status: 2, cape: false, cpe: '2026-06-08T00:00:00.000Z' } } });
    expect((await b.stream(u.userId)).map((e) => [e.type, e.actor]).slice(-6)).toEqual([
      ['SubscriptionActivated', u.userId],
      ['CancellationScheduled', u.userId],
      ['CancellationUndone', u.userId],
      ['CancellationScheduled', u.userId],
      ['SubscriptionExpired', 'billing-scheduler'],
      ['Reactivated', u.userId],
    ]);
  });

  it('a card changed back to an earlier one is changed at Stripe too: the journal and Stripe name the same card (QA)', async () => {
    const u = await paidUser();
    const first = b.stripe.subscriptions.get(u.subId)!.default_payment_method as string;
    const second = await at('2026-04-15T00:00:00.000Z', () => b.saveCard(u, { last4: '2222' }));
    for (const pm of [second, first, second, first]) {
      const res = await b.call(u, 'POST', '/auth/update-payment-method', { paymentMethodId: pm });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const sub = b.stripe.subscriptions.get(u.subId)!;
      expect([(await b.row(u.userId)).card_last4, sub.default_payment_method, b.stripe.customers.get(sub.customer)!.invoice_settings.default_payment_method]).toEqual([
        b.stripe.paymentMethods.get(pm)!.card.last4,
        pm,
        pm,
      ]);
    }
  });

  it('card update on an active plan replaces the card on file and the subscription default', async () => {
    const u = await paidUser();
    const pm = await at('2026-04-15T00:00:00.000Z', () => b.saveCard(u, { last4: '5556', expMonth: 1, expYear: 2029 }));
    const res = await b.call(u, 'POST', '/auth/update-payment-method', { paymentMethodId: pm });
    expect(res).toMatchObject({ status: 200, body: { status: 'success', subscription_data: { status: 2, card: { last4: '5556', exp_month: 1, exp_year: 2029 } } } });
    expect(b.stripe.subscriptions.get(u.subId)!.default_payment_method).toBe(pm);
    expect(b.stripe.customers.get(b.stripe.subscriptions.get(u.subId)!.customer)!.invoice_settings.default_payment_method).toBe(pm);
    expect((await b.stream(u.userId)).at(-1)).toMatchObject({ type: 'PaymentMethodUpdated', actor: u.userId, data: { paymentMethod: { id: pm } } });
  });
});

describe('a period that ended before its renewal webhook came (QA: a second subscription charged the card twice)', () => {
  const subscriptionsOf = (customer: string) => [...b.stripe.subscriptions.values()].filter((s) => s.customer === customer);

  it('subscribed in the trial, at its end: no second subscription while Stripe charges; a renewal Stripe made is taken, not charged again', async () => {
    b.t.clock.set(start);
    const u = await b.user();
    expect((await b.subscribe(u)).status).toBe(200);
    const subId = await b.subscriptionIdOf(u.userId);
    const customer = b.stripe.subscriptions.get(subId)!.customer as string;
    const afterTrial = new Date(Date.parse(trialEnd) + 20 * 60_000).toISOString();
    await at(afterTrial, async () => {
      // Stripe is still charging (it charges about an hour after the period's end): the plan keeps its
      // access and reads as renewing (QA: it read as expired, and every paying trader was locked out for
      // that hour); a second subscription is still refused.
      expect(await b.subsStatus(u)).toBe(1);
      expect(await b.status(u)).toMatchObject({ status: 1, cpe: trialEnd, renewing: true });
      expect((await b.call(u, 'POST', '/accounts/add-account', { name: 'While renewing', broker: 'schwab', ac_type: 2 })).status).toBe(201);
      expect(await b.call(u, 'POST', '/auth/reactivate-subscription')).toMatchObject({ status: 409, body: { message: m.renewalPending } });
      const other = await b.saveCard(u, { last4: '1111' });
      expect(await b.call(u, 'POST', '/auth/create-subscription', { paymentMethodId: other, priceId: PRICE_ID })).toMatchObject({ status: 409, body: { message: m.renewalPending } });
      expect(subscriptionsOf(customer)).toHaveLength(1);

      // Stripe charges the first month; its invoice.paid is late. Reactivate finds the renewal at Stripe.
      const { invoice } = b.stripe.renew(subId);
      const res = await b.call(u, 'POST', '/auth/reactivate-subscription');
      expect(res).toMatchObject({ status: 200, body: { message: m.activated, frontend_data: { status: 2, cpe: new Date(Date.parse(trialEnd) + 30 * DAY).toISOString() } } });
      expect(subscriptionsOf(customer)).toHaveLength(1);
      expect(await b.subsStatus(u)).toBe(2);
      expect(await b.status(u)).toMatchObject({ status: 2, renewing: false });
      expect((await b.stream(u.userId)).at(-1)).toMatchObject({ type: 'RenewalSucceeded', data: { invoiceId: invoice.id } });
      // The webhook, when it comes, adds nothing.
      const n = (await b.stream(u.userId)).length;
      expect((await b.deliver(b.stripe.event('invoice.paid', invoice))).status).toBe(200);
      expect(await b.stream(u.userId)).toHaveLength(n);
    });
    const paidInvoices = [...b.stripe.invoices.values()].filter((i) => i.customer === customer && i.amount_paid > 0);
    expect(paidInvoices).toHaveLength(1);
  });

  it('an active plan Stripe ended (its webhook lost): Reactivate records the end and starts a new subscription', async () => {
    const u = await paidUser();
    const customer = b.stripe.subscriptions.get(u.subId)!.customer as string;
    await at(new Date(Date.parse(periodEnd) + 3_600_000).toISOString(), async () => {
      Object.assign(b.stripe.subscriptions.get(u.subId)!, { status: 'canceled', canceled_at: b.stripe.now, ended_at: b.stripe.now });
      const res = await b.call(u, 'POST', '/auth/reactivate-subscription');
      expect(res).toMatchObject({ status: 200, body: { message: m.activated, frontend_data: { status: 2 } } });
      expect(subscriptionsOf(customer).map((s) => s.status)).toEqual(['canceled', 'active']);
      expect((await b.stream(u.userId)).slice(-2).map((e) => [e.type, e.data.reason ?? null])).toEqual([
        ['SubscriptionExpired', 'stripe_deleted'],
        ['Reactivated', null],
      ]);
    });
  });

  it('with no word from Stripe two hours after the period end, the scheduler asks Stripe and records the renewal, or waits', async () => {
    b.t.clock.set(start);
    const u = await b.user();
    expect((await b.subscribe(u)).status).toBe(200);
    const subId = await b.subscriptionIdOf(u.userId);
    const soon = new Date(Date.parse(trialEnd) + 60 * 60_000).toISOString();
    const later = new Date(Date.parse(trialEnd) + 2 * 60 * 60_000).toISOString();
    // An hour after the trial's end the webhook is still waited for; two hours after, Stripe is asked,
    // and a charge still pending there is asked about again at the next tick.
    expect(await at(soon, () => tick())).toMatchObject({ renewalsSettled: 0 });
    // Meanwhile the plan keeps its access; from two hours on, with the charge still pending, it does not.
    expect(await b.subsStatus(u)).toBe(1);
    expect(await at(later, () => tick())).toMatchObject({ renewalsSettled: 0 });
    expect(await b.subsStatus(u)).toBe(3);
    expect(await b.status(u)).toMatchObject({ renewing: false });
    expect((await b.call(u, 'POST', '/accounts/add-account', { name: 'After two hours', broker: 'schwab', ac_type: 2 })).status).toBe(403);
    expect(await b.call(u, 'GET', '/trades/status/open')).toMatchObject({ status: 403, body: { message: 'Your subscription has expired, please renew' } });
    const { invoice } = await at(later, async () => b.stripe.renew(subId));
    expect(await at(later, () => tick())).toMatchObject({ renewalsSettled: 1 });
    expect(await at(later, () => b.subsStatus(u))).toBe(2);
    expect((await b.stream(u.userId)).at(-1)).toMatchObject({ type: 'RenewalSucceeded', actor: 'billing-scheduler', data: { invoiceId: invoice.id } });
    expect(await at(later, () => tick())).toMatchObject({ renewalsSettled: 0 });
  });

  it('a late invoice.paid of an earlier period never moves the period back (QA)', async () => {
    const u = await paidUser();
    const first = await at(periodEnd, async () => b.stripe.renew(u.subId).invoice);
    const second = await at(new Date(Date.parse(periodEnd) + 30 * DAY).toISOString(), async () => {
      const { invoice } = b.stripe.renew(u.subId);
      expect((await b.deliver(b.stripe.event('invoice.paid', invoice))).status).toBe(200);
      return invoice;
    });
    const cpe = (await b.status(u)).cpe;
    expect(cpe).toBe(new Date(second.lines.data[0].period.end * 1000).toISOString());
    // The first renewal's delivery, retried late.
    expect((await b.deliver(b.stripe.event('invoice.paid', first))).status).toBe(200);
    expect((await b.status(u)).cpe).toBe(cpe);
  });
});

describe('webhooks', () => {
  it('a bad signature is a 400 and records nothing', async () => {
    const u = await paidUser();
    const n = (await b.stream(u.userId)).length;
    const event = b.stripe.event('customer.subscription.deleted', b.stripe.subscriptions.get(u.subId)!);
    expect(await b.deliver(event, 'whsec_wrong')).toMatchObject({ status: 400, body: { message: m.badSignature } });
    const tampered = { payload: event.payload.replace('"customer.subscription.deleted"', '"customer.subscription.updated"'), signature: event.signature };
    expect((await b.deliver(tampered)).status).toBe(400);
    const unsigned = await b.t.app.inject({ method: 'POST', url: '/api/v1/payments/stripe/webhook', headers: { 'content-type': 'application/json' }, payload: event.payload });
    expect(unsigned.statusCode).toBe(400);
    expect(await b.stream(u.userId)).toHaveLength(n);
    expect(await b.t.db.db.selectFrom('billing_stripe_events').select('event_id').where('event_id', '=', event.id).execute()).toEqual([]);
    expect((await b.status(u)).status).toBe(2);
  });

  it('a redelivered event is processed once; an older customer.subscription.updated never overwrites a newer one', async () => {
    const u = await paidUser();
    const sub = b.stripe.subscriptions.get(u.subId)!;
    // Set to cancel at Stripe (the dashboard, say): the event reports it, a late older one the state before.
    const older = b.stripe.event('customer.subscription.updated', { ...sub, cancel_at_period_end: false }, { created: 1_999_999_000 });
    sub.cancel_at_period_end = true;
    const newer = b.stripe.event('customer.subscription.updated', { ...sub }, { created: 2_000_000_000 });
    expect((await b.deliver(newer)).body).toEqual({ received: true, duplicate: false });
    expect((await b.deliver(newer)).body).toEqual({ received: true, duplicate: true });
    const n = (await b.stream(u.userId)).length;
    expect((await b.deliver(older)).body).toEqual({ received: true, duplicate: false });
    expect(await b.stream(u.userId)).toHaveLength(n);
    expect(await b.status(u)).toMatchObject({ cape: true });
    expect((await b.stream(u.userId)).filter((e) => e.type === 'CancellationScheduled').map((e) => e.actor)).toEqual(['stripe-webhook']);
    // The same event after a crash between append and its row: the stream knows it (deterministic ids).
    await b.t.db.db.deleteFrom('billing_stripe_events').where('event_id', '=', newer.id).execute();
    expect((await b.deliver(newer)).body).toEqual({ received: true, duplicate: false });
    expect(await b.stream(u.userId)).toHaveLength(n);
  });

  it("a late event with an older state undoes nothing, even when the newer state came from the trader's own Uncancel (QA)", async () => {
    const u = await paidUser();
    expect((await at('2026-04-20T00:00:00.000Z', () => b.call(u, 'POST', '/auth/cancel-subscription'))).status).toBe(200);
    // Stripe's event for that cancel, held back by the network.
    const lateCancel = b.stripe.event('customer.subscription.updated', { ...b.stripe.subscriptions.get(u.subId)! });
    expect((await at('2026-04-21T00:00:00.000Z', () => b.call(u, 'POST', '/auth/reactivate-subscription'))).status).toBe(200);
    const uncancelEvent = b.stripe.event('customer.subscription.updated', { ...b.stripe.subscriptions.get(u.subId)! }, { created: lateCancel.created + 60 });
    const n = (await b.stream(u.userId)).length;
    // The newer (a no-op: already uncancelled) first, then the older one.
    expect((await b.deliver(uncancelEvent)).status).toBe(200);
    expect((await b.deliver(lateCancel)).status).toBe(200);
    expect(await b.stream(u.userId)).toHaveLength(n);
    expect(await b.status(u)).toMatchObject({ cape: false });
    expect(b.stripe.subscriptions.get(u.subId)!.cancel_at_period_end).toBe(false);
    // The trader can still cancel: the journal and Stripe agree.
    expect((await at('2026-04-22T00:00:00.000Z', () => b.call(u, 'POST', '/auth/cancel-subscription'))).status).toBe(200);
  });

  it('a customer.subscription.updated older than an invoice.paid still applies the state Stripe has now (QA)', async () => {
    const u = await paidUser();
    const sub = b.stripe.subscriptions.get(u.subId)!;
    // Cancelled at Stripe (the dashboard); the event is delivered late, after a newer invoice.paid.
    sub.cancel_at_period_end = true;
    const update = b.stripe.event('customer.subscription.updated', { ...sub }, { created: 2_000_000_000 });
    const { invoice } = await at(periodEnd, async () => b.stripe.renew(u.subId));
    expect((await b.deliver(b.stripe.event('invoice.paid', invoice, { created: 2_000_000_100 }))).status).toBe(200);
    expect((await b.deliver(update)).status).toBe(200);
    expect(await b.status(u)).toMatchObject({ cape: true });
  });

  it('signed events that name no period, no subscription or a card Stripe no longer has are acknowledged, change nothing, and are not retried (QA)', async () => {
    const u = await paidUser();
    const n = (await b.stream(u.userId)).length;
    const invoice = { ...b.stripe.invoices.get(b.stripe.subscriptions.get(u.subId)!.latest_invoice)!, id: 'in_no_period', lines: undefined, period_start: undefined, period_end: undefined };
    for (const event of [
      b.stripe.event('invoice.paid', invoice),
      b.stripe.event('customer.subscription.updated', {}),
      b.stripe.event('setup_intent.succeeded', { ...b.stripe.setupIntents.values().next().value!, payment_method: 'pm_gone' }),
    ]) {
      expect(await b.deliver(event)).toMatchObject({ status: 200, body: { received: true, duplicate: false } });
    }
    expect(await b.stream(u.userId)).toHaveLength(n);
  });

  it('signed payloads that are not Stripe events, or whose object lacks what its type carries, are 400 or acknowledged: never a 5xx, nothing appended (QA)', async () => {
    const u = await paidUser();
    const n = (await b.stream(u.userId)).length;
    const sub = b.stripe.subscriptions.get(u.subId)!;
    const invoice = b.stripe.invoices.get(sub.latest_invoice)!;
    const signer = createStripeClient(b.t.config)!;
    const raw = (body: unknown) => {
      const payload = JSON.stringify(body);
      return { payload, signature: (secret: string) => signer.webhooks.generateTestHeaderString({ payload, secret }) };
    };
    const envelope = (id: string, type: string, object: unknown) => ({ id, object: 'event', type, created: 2_000_000_000, data: { object } });
    // Not an event at all: there is nothing to record, so nothing is.
    for (const body of [[1, 2], { id: 'evt_nodata', type: 'invoice.paid' }, envelope('evt_nullobject', 'invoice.paid', null), 'text', envelope('', 'invoice.paid', {})]) {
      const res = await b.deliver(raw(body));
      expect(res, JSON.stringify(body)).toMatchObject({ status: 400, body: { message: m.malformedEvent } });
    }
    // Events whose object is not what the type carries: acknowledged once, never sent on to Stripe.
    const oddObjects: [string, unknown][] = [
      ['invoice.paid', { ...invoice, lines: { data: 'x' } }],
      ['invoice.paid', { ...invoice, amount_paid: 'all of it' }],
      ['invoice.payment_failed', { ...invoice, customer: 42 }],
      ['customer.subscription.updated', { ...sub, id: 123 }],
      ['customer.subscription.deleted', { ...sub, id: null }],
      ['payment_method.attached', { id: 'pm_odd', customer: sub.customer, card: { brand: 'visa' } }],
      ['setup_intent.succeeded', { customer: sub.customer, payment_method: 7 }],
    ];
    const stripeCalls = b.stripe.requests.length;
    for (const [i, [type, object]] of oddObjects.entries()) {
      const event = raw(envelope(`evt_odd_${i}`, type, object));
      expect(await b.deliver(event), type).toMatchObject({ status: 200, body: { received: true, duplicate: false } });
      expect(await b.deliver(event), type).toMatchObject({ status: 200, body: { received: true, duplicate: true } });
    }
    expect(b.stripe.requests.length).toBe(stripeCalls);
    expect(await b.stream(u.userId)).toHaveLength(n);
    expect(await b.status(u)).toMatchObject({ status: 2, cape: false });
  });

  it('events of unknown customers and of types not handled are acknowledged and change nothing', async () => {
    const res = await b.deliver(b.stripe.event('invoice.paid', { ...b.stripe.invoices.values().next().value!, customer: 'cus_nobody' }));
    expect(res).toMatchObject({ status: 200, body: { received: true } });
    expect((await b.deliver(b.stripe.event('plan.created', { id: 'plan_1', object: 'plan' }))).status).toBe(200);
  });
});

describe('isolation', () => {
  it('a user can use neither another user\'s card nor change their subscription', async () => {
    const a = await paidUser();
    const other = await b.user();
    const aCard = b.stripe.subscriptions.get(a.subId)!.default_payment_method as string;
    const aBefore = await b.stream(a.userId);
    expect(await b.call(other, 'POST', '/auth/create-subscription', { paymentMethodId: aCard, priceId: PRICE_ID })).toMatchObject({ status: 404, body: { message: m.paymentMethodNotFound } });
    expect((await b.call(other, 'POST', '/auth/cancel-subscription')).status).toBe(409);
    expect((await b.call(other, 'POST', '/auth/reactivate-subscription')).status).toBe(409);
    expect((await b.call(other, 'POST', '/auth/update-payment-method', { paymentMethodId: aCard })).status).toBe(409);
    // A SetupIntent is always for the caller's own Stripe customer.
    const intent = await b.call(other, 'POST', '/auth/create-payment-intent');
    const setup = b.stripe.setupIntents.get(intent.body.clientSecret.split('_secret_')[0])!;
    expect(b.stripe.customers.get(setup.customer)!.metadata.user_uid).toBe(other.userId);
    expect(setup.customer).not.toBe(b.stripe.subscriptions.get(a.subId)!.customer);
    const mine = await b.status(other);
    expect([mine.status, mine.card, mine.pm]).toEqual([1, null, false]);
    expect(await b.stream(a.userId)).toEqual(aBefore);
    // Stripe's events about A's customer change A only (set to cancel at Stripe, then reported).
    b.stripe.subscriptions.get(a.subId)!.cancel_at_period_end = true;
    await b.deliver(b.stripe.event('customer.subscription.updated', { ...b.stripe.subscriptions.get(a.subId)! }));
    expect((await b.status(a)).cape).toBe(true);
    expect((await b.status(other)).cape).toBe(false);
    // The refused calls were refused before anything was appended for the other user either.
    expect(await b.stream(other.userId)).toEqual([]);
  });

  it('every billing call needs a signed-in verified user', async () => {
    for (const path of ['/auth/create-payment-intent', '/auth/create-subscription', '/auth/cancel-subscription', '/auth/reactivate-subscription', '/auth/update-payment-method']) {
      expect((await b.t.app.inject({ method: 'POST', url: `/api/v1${path}` })).statusCode).toBe(401);
    }
    expect((await b.t.app.inject({ method: 'GET', url: '/api/v1/subscription/current' })).statusCode).toBe(401);
  });
});
