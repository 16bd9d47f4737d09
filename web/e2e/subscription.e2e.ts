import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { billingMessages as m } from '@oj/contracts/billing';
import { addDays, isWeekend } from '@oj/contracts/business-date';
import { businessToday } from './support/business-day.ts';
import { PRICE_ID, StripeTestServer } from '@oj/services/billing/testing/stripe-test-server';
import { runBillingTick } from '@oj/services/billing/scheduler';
import { launchBrowser, newContext, screenshots } from './support/browser.ts';
import { startServer, type E2eServer } from './support/server.ts';

/**
 * The Subscription page in Chromium against the real product in Stripe mode, whose `stripe` SDK talks to
 * the local Stripe test server. Stripe.js cannot load in this offline browser, so the card step (typing a
 * card into Stripe Elements) is injected: `window.__ojCardStep` confirms the SetupIntent at the test
 * server, as Stripe.js would at Stripe. Everything else is the product: the page, its calls, the server,
 * the SDK requests, the signed webhooks.
 */
const WEBHOOK_SECRET = 'whsec_e2e_subscription';
let stripe: StripeTestServer;
let server: E2eServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** The card the next card step saves (Stripe Elements' card field, as the trader would type it). */
let nextCard: { declined?: boolean; last4: string } = { last4: '4242' };

const longDate = (unixSeconds: number) => new Date(unixSeconds * 1000).toLocaleDateString('en-US', { month: 'long', day: '2-digit', year: 'numeric', timeZone: 'America/New_York' });

beforeAll(async () => {
  stripe = new StripeTestServer();
  const url = await stripe.start();
  server = await startServer({
    env: { STRIPE_SECRET_KEY: 'sk_test_e2e', STRIPE_PUBLISHABLE_KEY: 'pk_test_e2e', STRIPE_PRICE_ID: PRICE_ID, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_URL: url },
  });
  browser = await launchBrowser();
  context = await newContext(browser, server.baseUrl);
  await context.exposeFunction('__ojConfirmSetupAtTestStripe', (clientSecret: string) => {
    const intent = stripe.confirmSetupIntent(clientSecret, { ...nextCard, expMonth: 8, expYear: 2030 });
    return { setupIntent: { status: intent.status as string, payment_method: intent.payment_method as string } };
  });
  await context.addInitScript(() => {
    const w = window as unknown as { __ojCardStep: unknown; __ojConfirmSetupAtTestStripe: (s: string) => Promise<unknown> };
    w.__ojCardStep = { confirm: (clientSecret: string) => w.__ojConfirmSetupAtTestStripe(clientSecret) };
  });
  page = await context.newPage();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
  await stripe?.close();
});

async function createTrader(): Promise<{ email: string; password: string }> {
  const email = `sam.subscriber.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = 'Premium#2026a';
  const api = (path: string, init: RequestInit = {}) => fetch(`${server.baseUrl}/api/v1${path}`, { ...init, headers: { 'content-type': 'application/json' } });
  expect((await api('/users/signup', { method: 'POST', body: JSON.stringify({ name: 'Sam Subscriber', email, password, agreed_to_terms: true }) })).status).toBe(201);
  const link = await server.waitForLink('/users/account-verify', { to: email });
  expect((await api(`/users/verify/${new URL(link).searchParams.get('token')}`)).status).toBe(200);
  return { email, password };
}

/** A trade in the trader's journal (an account, then an open put), through the API. */
async function addTrade(trader: { email: string; password: string }, ticker: string): Promise<void> {
  const api = async (path: string, body: unknown, token?: string) => {
    const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    return res.json() as Promise<any>;
  };
  const { access_token: token } = await api('/users/login', { email: trader.email, password: trader.password });
  const account = await api('/accounts/add-account', { name: 'Income', broker: 'schwab', ac_type: 2 }, token);
  let day = businessToday();
  while (isWeekend(day)) day = addDays(day, -1);
  let expiry = addDays(day, 30);
  while (isWeekend(expiry)) expiry = addDays(expiry, 1);
  const trade_data = {
    ticker,
    account_uid: account.uid,
    strategy_uid: 'cash-secured-put',
    strike_prices: [100],
    trade_open_date: day,
    expiration_date: expiry,
    contract_size: 1,
    premium_at_open: 250,
    net_fee_to_open: 0.65,
    open_transaction: 1,
    net_delta: 0.2,
    stock_price_at_open: 105,
    cost_basis: null,
    notes: '',
  };
  await api('/trades/add-trade', { trade_data, tag_data: [] }, token);
}

async function signIn(trader: { email: string; password: string }) {
  // A fresh browser session for each trader.
  await context.clearCookies();
  await page.evaluate(() => localStorage.clear()).catch(() => undefined);
  await page.goto('/signin');
  await page.getByLabel('Email').fill(trader.email);
  await page.getByLabel('Password', { exact: true }).fill(trader.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/dashboard');
}

async function deliver(type: string, object: Record<string, unknown>) {
  const event = stripe.event(type, object);
  const res = await fetch(`${server.baseUrl}/api/v1/payments/stripe/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': event.signature(WEBHOOK_SECRET) },
    body: event.payload,
  });
  expect(res.status).toBe(200);
}

const statusCard = () => page.locator('section.subscription-status');

/** Update Payment from the card menu: a card saved through the dialog, which closes after its success message. */
async function updatePaymentFromMenu() {
  await statusCard().getByRole('button', { name: 'Subscription actions' }).click();
  await page.getByRole('menuitem', { name: 'Update Payment' }).click();
  const update = page.getByRole('dialog', { name: 'Update Payment' });
  await update.getByRole('button', { name: 'Save card' }).waitFor();
  // An active plan has no failed renewal for the card to pay.
  expect(await update.getByText(/renewal that failed/).count()).toBe(0);
  await update.getByRole('button', { name: 'Save card' }).click();
  await update.getByText(m.paymentUpdated).waitFor();
  await update.waitFor({ state: 'detached' });
}

/** A new trader, subscribed with a good card from the page, the first month paid at Stripe. */
async function paidTrader() {
  const trader = await createTrader();
  await signIn(trader);
  await page.goto('/subscription');
  await statusCard().getByRole('button', { name: 'Subscribe' }).click();
  await page.getByRole('dialog', { name: 'Subscribe to Premium' }).getByRole('button', { name: /Subscribe — \$4\.99/ }).click();
  await page.getByText(m.activated).waitFor();
  const sub = [...stripe.subscriptions.values()].at(-1)!;
  await deliver('invoice.paid', stripe.renew(sub.id as string).invoice);
  return { trader, sub };
}

describe('Subscription page', () => {
  it('walks a trial to paid, then cancel and uncancel', async () => {
    const trader = await createTrader();
    await signIn(trader);
    await page.goto('/subscription');
    await page.getByRole('heading', { name: 'Manage Your Subscription' }).waitFor();
    const trialEnd = (await sql<{ cpe: Date }>`select current_period_end as cpe from subscriptions s join users u on u.uid = s.user_uid where u.email = ${trader.email}`.execute(server.runtime.deps.database.db)).rows[0]!.cpe;
    const trialEndText = trialEnd.toLocaleDateString('en-US', { month: 'long', day: '2-digit', year: 'numeric', timeZone: 'America/New_York' });
    await statusCard().getByText(`Your trial ends on ${trialEndText}. Subscribe to continue.`).waitFor();
    await page.locator('.subscription-history').getByText('ADD PAYMENT', { exact: true }).waitFor();
    await page.locator('.subscription-history').getByText('TRIAL', { exact: true }).waitFor();
    await screenshots(page, 'subscription-page-trial');

    // Subscribe: SetupIntent from the server, the card step, then the subscription.
    await statusCard().getByRole('button', { name: 'Subscribe' }).click();
    const dialog = page.getByRole('dialog', { name: 'Subscribe to Premium' });
    await dialog.getByText('4.99 USD a month. During your free trial nothing is charged until the trial ends. Cancel any time.').waitFor();
    await dialog.getByRole('button', { name: /Subscribe — \$4\.99/ }).click();
    await page.getByText(m.activated).waitFor();
    await dialog.waitFor({ state: 'detached' });
    await statusCard().getByText(`After trial period, auto renews ${trialEndText}`).waitFor();
    await statusCard().getByText('VISA ending in 4242, expires 08/2030').waitFor();
    expect(await statusCard().getByRole('button', { name: 'Active' }).isDisabled()).toBe(true);
    const sub = [...stripe.subscriptions.values()].at(-1)!;
    expect(sub.status).toBe('trialing');
    await screenshots(page, 'subscription-page-trial-with-card');
    // "Cancel any time": the first charge can be called off in the trial, and taken back (QA); the card
    // menu stays for active plans (part 2 §4).
    expect(await statusCard().getByRole('button', { name: 'Subscription actions' }).count()).toBe(0);
    await statusCard().getByRole('button', { name: 'Cancel before the first charge' }).click();
    await page.getByRole('dialog', { name: 'Cancel Subscription' }).getByRole('button', { name: 'Yes' }).click();
    await statusCard().getByText(`Your subscription will cancel on ${trialEndText}`).waitFor();
    expect(sub.cancel_at_period_end).toBe(true);
    await statusCard().getByRole('button', { name: 'Uncancel' }).click();
    await page.getByRole('dialog', { name: 'Uncancel Subscription' }).getByRole('button', { name: 'Yes' }).click();
    await statusCard().getByText(`After trial period, auto renews ${trialEndText}`).waitFor();
    expect(sub.cancel_at_period_end).toBe(false);

    // The trial ends at Stripe: the renewal's invoice.paid webhook makes the plan active.
    const { invoice } = stripe.renew(sub.id as string);
    await deliver('invoice.paid', invoice);
    await page.reload();
    const renews = longDate(sub.items.data[0].current_period_end as number);
    await statusCard().getByText(`Renews on ${renews}`).waitFor();
    await page.locator('.subscription-history').getByText('AUTO', { exact: true }).waitFor();
    await page.locator('.subscription-history').getByText(`Processing on - ${renews}`).waitFor();
    await screenshots(page, 'subscription-page-active');

    // Card menu: Cancel Subscription, with the spec's confirmation.
    await statusCard().getByRole('button', { name: 'Subscription actions' }).click();
    await page.getByRole('menuitem', { name: 'Update Payment' }).waitFor();
    await page.getByRole('menuitem', { name: 'Cancel Subscription' }).click();
    const confirm = page.getByRole('dialog', { name: 'Cancel Subscription' });
    await confirm.getByText(m.cancelConfirm).waitFor();
    await screenshots(page, 'subscription-page-cancel-confirm');
    await confirm.getByRole('button', { name: 'Yes' }).click();
    await page.getByText(m.canceled).waitFor();
    await statusCard().getByText(`Your subscription will cancel on ${renews}`).waitFor();
    expect(await statusCard().getByRole('button', { name: 'Subscription actions' }).count()).toBe(0);
    // Paid and cancelling: the label rules are tested in the spec's listed order, so AUTO (paid) wins.
    await page.locator('.subscription-history').getByText('AUTO', { exact: true }).waitFor();
    await page.locator('.subscription-history').getByText(`Cancellation on - ${renews}`).waitFor();
    expect(stripe.subscriptions.get(sub.id)!.cancel_at_period_end).toBe(true);
    await screenshots(page, 'subscription-page-pending-cancellation');

    // Uncancel.
    await statusCard().getByRole('button', { name: 'Uncancel' }).click();
    const undo = page.getByRole('dialog', { name: 'Uncancel Subscription' });
    await undo.getByText(m.uncancelConfirm).waitFor();
    await undo.getByRole('button', { name: 'Yes' }).click();
    await page.getByText(m.restored).waitFor();
    await statusCard().getByText(`Renews on ${renews}`).waitFor();
    expect(stripe.subscriptions.get(sub.id)!.cancel_at_period_end).toBe(false);
  });

  it('an expired trial: locked screens lead here; Reactivate pays and lets the user back in, with the journal kept', async () => {
    const trader = await createTrader();
    await addTrade(trader, 'KEPT');
    await sql`update subscriptions set current_period_end = now() - interval '1 day' where user_uid = (select uid from users where email = ${trader.email})`.execute(server.runtime.deps.database.db);
    // The billing scheduler ends the trial as it would in production (status 3, an event of the scheduler).
    const { deps } = server.runtime;
    expect(await runBillingTick({ db: deps.database.db, eventStore: deps.eventStore, clock: deps.clock, publicUrl: server.baseUrl })).toMatchObject({ periodsEnded: 1 });
    await signIn(trader);
    await page.goto('/trades/open');
    await page.getByRole('heading', { name: 'Your subscription has expired, please renew' }).waitFor();
    await page.locator('.sidebar-renew').waitFor();
    await page.locator('main').getByRole('link', { name: 'Renew Now' }).click();
    await page.waitForURL('**/subscription');
    await statusCard().getByText('Expired Plan').waitFor();
    await statusCard().getByText('Reactivate your subscription to restore access.').waitFor();
    // Nothing was ever paid: the history's last period is the free trial, not a 4.99 payment.
    const history = page.locator('.subscription-history');
    await history.getByText('Free trial — $0.00').waitFor();
    expect(await history.getByText('TRIAL', { exact: true }).count()).toBe(1);
    expect(await history.getByText('PAID', { exact: true }).count()).toBe(0);
    await screenshots(page, 'subscription-page-expired');

    // No card on file: Reactivate asks for one and starts a paid month at once (no trial is promised).
    await statusCard().getByRole('button', { name: 'Reactivate' }).click();
    const dialog = page.getByRole('dialog', { name: 'Subscribe to Premium' });
    await dialog.getByText('4.99 USD a month, charged today and then every month. Cancel any time.').waitFor();
    expect(await dialog.getByText(/During your free trial/).count()).toBe(0);
    await dialog.getByRole('button', { name: /Subscribe — \$4\.99/ }).click();
    await page.getByText(m.activated).waitFor();
    const sub = [...stripe.subscriptions.values()].at(-1)!;
    expect(sub.status).toBe('active');
    await statusCard().getByText(`Renews on ${longDate(sub.items.data[0].current_period_end as number)}`).waitFor();
    // The refreshed token lifts the locks without signing in again.
    expect(await page.locator('.sidebar-renew').count()).toBe(0);
    await page.goto('/trades/open');
    await page.getByRole('heading', { name: 'Your subscription has expired, please renew' }).waitFor({ state: 'detached', timeout: 10_000 }).catch(() => undefined);
    expect(await page.getByRole('heading', { name: 'Your subscription has expired, please renew' }).count()).toBe(0);
    // The trade entered before the trial ran out is there again.
    await page.locator('main').getByText('KEPT').first().waitFor();
  });

  it('a failed renewal: the grace period variant; Renew with a new card restores access; Update Payment from the menu', async () => {
    const { trader, sub } = await paidTrader();
    // The card on file starts failing at Stripe; the next renewal fails.
    sub.default_payment_method = stripe.createPaymentMethod({ customer: sub.customer as string, declined: true }).id;
    const { invoice, paid } = stripe.renew(sub.id as string);
    expect(paid).toBe(false);
    const failedAt = Date.now();
    await deliver('invoice.payment_failed', invoice);
    await page.reload();
    await statusCard().getByText('Grace period active. Renew to restore access.').waitFor();
    // When it ends, to the minute in New York: 2 days after the failure (part 2 §4), as stored.
    const graceEnds = (await sql<{ g: Date }>`select grace_ends_at as g from subscriptions s join users u on u.uid = s.user_uid where u.email = ${trader.email}`.execute(server.runtime.deps.database.db)).rows[0]!.g;
    expect(graceEnds.getTime() - failedAt).toBeGreaterThanOrEqual(2 * 86_400_000 - 1000);
    expect(graceEnds.getTime() - Date.now()).toBeLessThanOrEqual(2 * 86_400_000);
    const day = graceEnds.toLocaleDateString('en-US', { month: 'long', day: '2-digit', year: 'numeric', timeZone: 'America/New_York' });
    const time = graceEnds.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit', timeZone: 'America/New_York' });
    await statusCard().getByText(`Renew by ${day}, ${time} ET to keep your plan; after that it expires until you reactivate.`).waitFor();
    await page.locator('.subscription-history').getByText('GRACE PERIOD', { exact: true }).waitFor();
    await page.locator('.sidebar-renew').waitFor();
    await screenshots(page, 'subscription-page-grace');

    await statusCard().getByRole('button', { name: 'Renew' }).click();
    const renew = page.getByRole('dialog', { name: 'Update Payment' });
    // The dialog says that saving the card pays the failed renewal (QA: only "Save card", nothing of a charge).
    await renew.getByText('The renewal that failed (4.99 USD) is charged to the card you save here, at once, and your access comes back.').waitFor();
    await screenshots(page, 'subscription-renew-dialog');
    await renew.getByRole('button', { name: 'Save card' }).click();
    await renew.getByText(m.paymentUpdated).waitFor();
    // The dialog closes 1.5 s after the success message (part 2 §4).
    await renew.waitFor({ state: 'detached' });
    expect(stripe.invoices.get(invoice.id as string)!.status).toBe('paid');
    await statusCard().getByText(`Renews on ${longDate(invoice.lines.data[0].period.end as number)}`).waitFor();
    expect(await page.locator('.sidebar-renew').count()).toBe(0);

    await updatePaymentFromMenu();
    const customer = stripe.customers.get(sub.customer as string)!;
    expect(sub.default_payment_method).toBe(customer.invoice_settings.default_payment_method);
  });

  it('a renewal that fails mid-session locks the console at the next page, not when the token runs out (QA)', async () => {
    const { sub } = await paidTrader();
    await page.getByRole('link', { name: 'Open', exact: true }).click();
    await page.waitForURL('**/trades/open');
    await page.getByText(/No trade data available|Showing \d+ out of \d+ Trades/).first().waitFor();
    // The renewal fails at Stripe while the trader's tab is open (its access token still says active).
    sub.default_payment_method = stripe.createPaymentMethod({ customer: sub.customer as string, declined: true }).id;
    const { invoice, paid } = stripe.renew(sub.id as string);
    expect(paid).toBe(false);
    await deliver('invoice.payment_failed', invoice);
    // The next page in the same tab, no reload: the locked screen, the sidebar's Renew, no trade items.
    await page.getByRole('link', { name: 'Closed', exact: true }).click();
    await page.waitForURL('**/trades/closed');
    await page.getByRole('heading', { name: 'Your subscription has expired, please renew' }).waitFor();
    await page.locator('.sidebar-renew').waitFor();
    await page.getByRole('button', { name: /New Record/ }).click();
    expect(await page.getByRole('menuitem', { name: 'Open Trade' }).isDisabled()).toBe(true);
    await page.keyboard.press('Escape');
    await screenshots(page, 'subscription-lapsed-mid-session');
    // Renewed with a good card, the tab is let back in, again without a reload (and no grace is left over
    // for the scheduler's ticks of the tests after this one).
    await page.locator('main').getByRole('link', { name: 'Renew Now' }).click();
    await page.waitForURL('**/subscription');
    nextCard = { last4: '4242' };
    await statusCard().getByRole('button', { name: 'Renew' }).click();
    const renew = page.getByRole('dialog', { name: 'Update Payment' });
    await renew.getByRole('button', { name: 'Save card' }).click();
    await renew.waitFor({ state: 'detached' });
    expect(stripe.invoices.get(invoice.id as string)!.status).toBe('paid');
    await page.getByRole('link', { name: 'Closed', exact: true }).click();
    await page.getByText(/No trade data available|Showing \d+ out of \d+ Trades/).first().waitFor();
    expect(await page.getByRole('heading', { name: 'Your subscription has expired, please renew' }).count()).toBe(0);
  });

  it('a period that has just ended while Stripe charges its renewal: "being processed", and the console stays open (QA)', async () => {
    const { trader } = await paidTrader();
    // Stripe started the next period ten minutes ago; its invoice is charged about an hour after.
    await sql`update subscriptions s set current_period_end = now() - interval '10 minutes' from users u where u.uid = s.user_uid and u.email = ${trader.email}`.execute(server.runtime.deps.database.db);
    await page.reload();
    await statusCard().getByText('Your renewal is being processed').waitFor();
    expect(await statusCard().getByText('Expired Plan').count()).toBe(0);
    await screenshots(page, 'subscription-renewing');
    await page.getByRole('link', { name: 'Closed', exact: true }).click();
    await page.waitForURL('**/trades/closed');
    await page.getByText(/No trade data available|Showing \d+ out of \d+ Trades/).first().waitFor();
    expect(await page.getByRole('heading', { name: 'Your subscription has expired, please renew' }).count()).toBe(0);
    expect(await page.locator('.sidebar-renew').count()).toBe(0);
  });

  it('an expired plan whose card on file is declined: Reactivate says so and opens the card dialog, where another card pays (QA)', async () => {
    const { sub: first } = await paidTrader();
    await page.reload();
    // The trader saves a card that every charge will decline (it saves; only a charge tells).
    nextCard = { declined: true, last4: '0341' };
    try {
      await updatePaymentFromMenu();
    } finally {
      nextCard = { last4: '4242' };
    }
    await statusCard().getByText(/VISA ending in 0341/).waitFor();
    // The renewal fails on it, the grace period runs out unpaid, and the plan expires.
    const { invoice, paid } = stripe.renew(first.id as string);
    expect(paid).toBe(false);
    await deliver('invoice.payment_failed', invoice);
    // The scheduler's tick after the 2 days of grace (part 2 §4).
    const { deps } = server.runtime;
    const afterGrace = { now: () => new Date(deps.clock.now().getTime() + 2 * 86_400_000 + 60_000) };
    expect(await runBillingTick({ db: deps.database.db, eventStore: deps.eventStore, clock: afterGrace, publicUrl: server.baseUrl })).toMatchObject({ gracesExpired: 1 });
    await page.reload();
    await statusCard().getByText('Reactivate your subscription to restore access.').waitFor();

    // Reactivate charges the card on file at once: declined, said on the page, and the card dialog opens.
    const subscriptionsBefore = stripe.subscriptions.size;
    await statusCard().getByRole('button', { name: 'Reactivate' }).click();
    const dialog = page.getByRole('dialog', { name: 'Subscribe to Premium' });
    await dialog.waitFor();
    // Said inside the dialog, which covers the page (QA), and on the page behind it.
    await dialog.getByText(m.reactivateDeclined('Your card was declined.')).waitFor();
    await page.locator('main').getByText('Your card was declined.').first().waitFor();
    expect(stripe.subscriptions.size).toBe(subscriptionsBefore);
    await screenshots(page, 'subscription-reactivate-declined');
    // Another card subscribes: a paid month at once, and the locks lift.
    await dialog.getByText('4.99 USD a month, charged today and then every month. Cancel any time.').waitFor();
    await dialog.getByRole('button', { name: /Subscribe — \$4\.99/ }).click();
    await page.getByText(m.activated).waitFor();
    const sub = [...stripe.subscriptions.values()].at(-1)!;
    expect(sub.id).not.toBe(first.id);
    expect(sub.status).toBe('active');
    await statusCard().getByText('VISA ending in 4242, expires 08/2030').waitFor();
    expect(await page.locator('.sidebar-renew').count()).toBe(0);
    // The decline was the failed Reactivate's; the card that paid clears it (QA: the red banner stayed
    // above the Active card until a reload).
    await statusCard().getByText('Active', { exact: true }).first().waitFor();
    await page.locator('main').getByText('Your card was declined.').first().waitFor({ state: 'detached', timeout: 5_000 });
    await screenshots(page, 'subscription-reactivated-after-decline');
  });

  it('Stripe.js blocked (an ad blocker, a proxy): the payment dialog says so and Try again starts over, never a dead button', async () => {
    const trader = await createTrader();
    // A browser without the test harness's card step: the real Stripe Elements form, whose Stripe.js
    // cannot be fetched.
    const plain = await newContext(browser, server.baseUrl);
    const stripeJs: string[] = [];
    await plain.route('https://js.stripe.com/**', (route) => {
      stripeJs.push(route.request().url());
      return route.abort('blockedbyclient');
    });
    try {
      const p = await plain.newPage();
      await p.goto('/signin');
      await p.getByLabel('Email').fill(trader.email);
      await p.getByLabel('Password', { exact: true }).fill(trader.password);
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.waitForURL('**/dashboard');
      await p.goto('/subscription');
      await p.locator('section.subscription-status').getByRole('button', { name: 'Subscribe' }).click();
      const dialog = p.getByRole('dialog', { name: 'Subscribe to Premium' });
      await dialog.getByText(m.paymentSetupFailed).waitFor();
      expect(await dialog.getByRole('button', { name: /Subscribe — \$4\.99/ }).count()).toBe(0);
      expect(stripeJs.length).toBeGreaterThan(0);
      await screenshots(p, 'subscription-payment-blocked', { fullPage: false });
      // Try again asks again (a new SetupIntent, Stripe.js fetched again): still blocked, still said.
      const tries = stripeJs.length;
      await dialog.getByRole('button', { name: 'Try again' }).click();
      await dialog.getByText(m.paymentSetupFailed).waitFor();
      await expect.poll(() => stripeJs.length).toBeGreaterThan(tries);
      await p.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    } finally {
      await plain.close();
    }
  });

  it('opens the Subscription Guide', async () => {
    await page.goto('/subscription');
    await page.getByRole('button', { name: 'Subscription Guide' }).click();
    const guide = page.getByRole('dialog', { name: 'Subscription Guide' });
    for (const title of ['Free trial', 'Expired', 'Active', 'Cancelled / pending cancellation', 'Payment update', 'Grace period']) await guide.getByText(title, { exact: true }).waitFor();
    await screenshots(page, 'subscription-page-guide');
    await page.keyboard.press('Escape');
  });

  it('a subscription that cannot be read is said so, never shown as none with a Subscribe button (QA)', async () => {
    await page.route('**/api/v1/subscription/current', (route) => route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ message: 'Service unavailable' }) }));
    try {
      await page.goto('/subscription');
      await page.getByRole('alert').getByText('Service unavailable').waitFor({ timeout: 30_000 });
      expect(await page.getByText('No Active Subscription').count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Subscribe', exact: true }).count()).toBe(0);
    } finally {
      await page.unroute('**/api/v1/subscription/current');
    }
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.locator('.subscription-headline').waitFor();
  });
});
