import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBillingApp, type BillingApp } from './testing/billing-harness.ts';

// Embedded mode (PGlite) with Stripe keys: the same handler, projection and webhook on the in-process database.
let b: BillingApp;
beforeAll(async () => {
  b = await startBillingApp('billing-pglite', { pglite: true });
});
afterAll(async () => b?.close());

describe('billing on PGlite', () => {
  it('subscribes after the trial, cancels, and takes a renewal webhook once', async () => {
    b.t.clock.set('2026-03-02T15:00:00.000Z');
    const u = await b.user();
    b.t.clock.set('2026-04-10T00:00:00.000Z');
    const paid = await b.subscribe(u);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(await b.subsStatus(u)).toBe(2);
    expect((await b.call(u, 'POST', '/auth/cancel-subscription')).body.frontend_data).toMatchObject({ status: 2, cape: true });
    const subId = await b.subscriptionIdOf(u.userId);
    // Uncancelled at Stripe (the dashboard, say), then reported.
    b.stripe.subscriptions.get(subId)!.cancel_at_period_end = false;
    const event = b.stripe.event('customer.subscription.updated', { ...b.stripe.subscriptions.get(subId)! });
    expect((await b.deliver(event)).body).toEqual({ received: true, duplicate: false });
    expect((await b.deliver(event)).body).toEqual({ received: true, duplicate: true });
    expect(await b.status(u)).toMatchObject({ cape: false });
    expect((await b.stream(u.userId)).map((e) => e.type)).toEqual(['TrialStarted', 'PaymentMethodAttached', 'SubscriptionActivated', 'CancellationScheduled', 'CancellationUndone']);
  });
});

describe('a Stripe key without the plan price', () => {
  it('refuses every payment call with a 409 naming the missing variable, before calling Stripe', async () => {
    const { createTestApp, signInAs } = await import('../identity/testing.ts');
    const { billingMessages: m } = await import('@oj/contracts/billing');
    const t = await createTestApp({ pglite: true, env: { STRIPE_SECRET_KEY: 'sk_test_no_price' } });
    try {
      const u = await signInAs(t);
      for (const path of ['/auth/create-payment-intent', '/auth/cancel-subscription', '/auth/reactivate-subscription']) {
        const res = await t.app.inject({ method: 'POST', url: `/api/v1${path}`, headers: { authorization: u.authorization } });
        expect([path, res.statusCode, res.json().message]).toEqual([path, 409, m.paymentsNotConfigured]);
      }
    } finally {
      await t.close();
    }
  });
});
