import { subscriptionStreamId } from '@oj/contracts/subscription-events';
import { accessTokenFor } from '../../identity/commands.ts';
import { identityContext } from '../../identity/routes.ts';
import { createTestApp, signInAs, type TestApp } from '../../identity/testing.ts';
import { PRICE_ID, StripeTestServer } from './stripe-test-server.ts';

export const WEBHOOK_SECRET = 'whsec_billing_tests';

/** A gateway in Stripe mode whose SDK talks to a local Stripe test server; helpers for the calls. */
export async function startBillingApp(label: string, options: { now?: string; pglite?: boolean } = {}) {
  const stripe = new StripeTestServer();
  const url = await stripe.start();
  const t: TestApp = await createTestApp({
    label,
    ...(options.now ? { now: options.now } : {}),
    ...(options.pglite ? { pglite: true } : {}),
    env: { STRIPE_SECRET_KEY: 'sk_test_billing', STRIPE_PUBLISHABLE_KEY: 'pk_test_billing', STRIPE_PRICE_ID: PRICE_ID, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_URL: url },
  });
  // Stripe's objects are dated by the test's clock.
  const syncStripeClock = () => (stripe.now = Math.floor(t.clock.now().getTime() / 1000));
  syncStripeClock();

  // Access tokens live 15 minutes and the tests move the clock by months: each call signs in anew.
  const call = async (user: { userId: string }, method: 'GET' | 'POST', path: string, payload?: unknown) => {
    syncStripeClock();
    const { accessToken } = await accessTokenFor(identityContext(t.deps), user.userId);
    const res = await t.app.inject({ method, url: `/api/v1${path}`, headers: { authorization: `Bearer ${accessToken}` }, ...(payload !== undefined ? { payload: payload as object } : {}) });
    return { status: res.statusCode, body: res.json() };
  };
  const deliver = async (event: { payload: string; signature: (secret: string) => string }, secret = WEBHOOK_SECRET) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/payments/stripe/webhook', headers: { 'content-type': 'application/json', 'stripe-signature': event.signature(secret) }, payload: event.payload });
    return { status: res.statusCode, body: res.json() };
  };
  const stream = async (userId: string) => (await t.deps.eventStore.readStream(subscriptionStreamId(userId))).map((e) => ({ type: e.type, actor: e.metadata.actor.id, data: e.data as any }));
  const row = async (userId: string) => t.db.db.selectFrom('subscriptions').selectAll().where('user_uid', '=', userId).executeTakeFirstOrThrow();
  const status = async (user: { userId: string }) => (await call(user, 'GET', '/subscription/current')).body;
  const subsStatus = async (user: { userId: string }) => (await call(user, 'GET', '/users/current_user')).body.subs_status as number;

  /** The browser's part: a SetupIntent from the API, confirmed with a card as Stripe.js would. */
  const saveCard = async (user: { userId: string }, card: { declined?: boolean; expMonth?: number; expYear?: number; last4?: string } = {}) => {
    const intent = await call(user, 'POST', '/auth/create-payment-intent');
    if (intent.status !== 200) throw new Error(`create-payment-intent: ${intent.status} ${JSON.stringify(intent.body)}`);
    const confirmed = stripe.confirmSetupIntent(intent.body.clientSecret, card);
    return confirmed.payment_method as string;
  };
  const subscribe = async (user: { userId: string }, card: Parameters<typeof saveCard>[1] = {}) => {
    const pm = await saveCard(user, card);
    return call(user, 'POST', '/auth/create-subscription', { paymentMethodId: pm, priceId: PRICE_ID });
  };
  const subscriptionIdOf = async (userId: string) => (await row(userId)).stripe_subscription_id as string;

  return {
    t,
    stripe,
    call,
    deliver,
    stream,
    row,
    status,
    subsStatus,
    saveCard,
    subscribe,
    subscriptionIdOf,
    syncStripeClock,
    user: (options?: Parameters<typeof signInAs>[1]) => signInAs(t, options),
    async close() {
      await t.close();
      await stripe.close();
    },
  };
}
export type BillingApp = Awaited<ReturnType<typeof startBillingApp>>;
