import type { Kysely } from 'kysely';
import { billingMessages as m, type CreateSubscriptionRequest } from '@oj/contracts/billing';
import { effectiveSubscriptionStatus, subscriptionStatusCodes as codes, type SubscriptionDetails } from '@oj/contracts/subscriptions';
import type { Config } from '@oj/infra/config';
import { uuidv7 } from '@oj/infra/ids';
import type { Logger } from 'pino';
import { AppError } from '../app/errors.ts';
import type { Principal } from '../app/principal.ts';
import { findSubscription, subscriptionDetailsOf } from '../identity/subscriptions.ts';
import { assertAllowed, awaitingRenewal, decide, SubscriptionConflict, type PaymentMethodFacts, type SubscriptionCommand } from './domain/decide.ts';
import type { SubscriptionState } from './domain/state.ts';
import type { Stripe } from './stripe-client.ts';
import { loadSubscription, runCommand, userActor, type Actor, type StoreContext } from './store.ts';

/**
 * The user's billing commands (part 2 §7). Each one checks the lifecycle first, acts at Stripe (every call
 * with an idempotency key derived from what it does and the stream revision it was decided on, so a
 * retried request is the same request at Stripe), then records what Stripe answered as events. Whatever
 * the user may ask twice with the same values (the same card again, a retry after a decline) is a new
 * revision by then (the card change, the decline are events), so Stripe never answers it from its cache
 * of the earlier request (QA: a card changed back was not changed at Stripe; a retried card stayed
 * declined for a day).
 */
export interface BillingContext extends StoreContext {
  config: Pick<Config, 'mode' | 'STRIPE_PRICE_ID' | 'STRIPE_PUBLISHABLE_KEY' | 'STRIPE_WEBHOOK_SECRET'>;
  stripe: Stripe | null;
  logger?: Logger;
}

type Caller = Pick<Principal, 'userId' | 'email'>;

export async function subscriptionDetails(ctx: Pick<BillingContext, 'db' | 'config' | 'clock'>, userId: string): Promise<SubscriptionDetails> {
  return subscriptionDetailsOf(
    await findSubscription(ctx.db, userId),
    { mode: ctx.config.mode.billing, publishableKey: ctx.config.STRIPE_PUBLISHABLE_KEY ?? null, priceId: ctx.config.STRIPE_PRICE_ID ?? null },
    ctx.clock.now(),
  );
}

function stripeOf(ctx: BillingContext): Stripe {
  if (!ctx.stripe || ctx.config.mode.billing !== 'stripe') throw new AppError('conflict', m.selfHosted);
  // A key without the plan's price can sell nothing: refuse before asking Stripe for anything.
  if (!ctx.config.STRIPE_PRICE_ID) throw new AppError('conflict', m.paymentsNotConfigured, { resolution: 'Set STRIPE_PRICE_ID (see docs/billing.md).' });
  return ctx.stripe;
}

const conflictOf = (fn: () => void) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof SubscriptionConflict) throw new AppError('conflict', error.message);
    throw error;
  }
};

/** A charge Stripe's card network refused (a decline): the user's to fix. */
const isCardError = (error: unknown): boolean => (error as { type?: string } | null)?.type === 'StripeCardError';
/** Stripe has no such object (removed since, or never there). */
export const isStripeMissing = (error: unknown): boolean => (error as { code?: string } | null)?.code === 'resource_missing';

/**
 * Stripe's refusals: a card problem is the user's to fix (402, Stripe's message, worded by `cardMessage`
 * where the call's context says more); the rest is ours (503).
 */
function providerError(error: unknown, fallback: string, logger?: Logger, cardMessage: (reason: string) => string = (reason) => reason): never {
  if (error instanceof AppError) throw error;
  const e = error as { type?: string; message?: string; code?: string; statusCode?: number };
  if (isCardError(error)) throw new AppError('payment_required', cardMessage(e.message ?? m.cardDeclined));
  if (e?.type === 'StripeInvalidRequestError' && isStripeMissing(error)) throw new AppError('not_found', m.paymentMethodNotFound);
  logger?.error({ err: error }, 'stripe call failed');
  throw new AppError('unavailable', fallback, { resolution: m.providerUnavailable });
}

/** The user's Stripe customer, created once (idempotency key and primary key both per user). */
export async function ensureCustomer(ctx: BillingContext, caller: Caller): Promise<string> {
  const stored = await customerOf(ctx.db, caller.userId);
  if (stored) return stored;
  const customer = await stripeOf(ctx).customers.create({ email: caller.email, metadata: { user_uid: caller.userId } }, { idempotencyKey: `customer:${caller.userId}` });
  await ctx.db
    .insertInto('billing_customers')
    .values({ user_uid: caller.userId, stripe_customer_id: customer.id, created_at: ctx.clock.now() })
    .onConflict((oc) => oc.column('user_uid').doNothing())
    .execute();
  return (await customerOf(ctx.db, caller.userId))!;
}

export async function customerOf(db: Kysely<any>, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom('billing_customers').select('stripe_customer_id').where('user_uid', '=', userId).executeTakeFirst();
  return row?.stripe_customer_id as string | undefined;
}

export async function userOfCustomer(db: Kysely<any>, customerId: string): Promise<string | undefined> {
  const row = await db.selectFrom('billing_customers').select('user_uid').where('stripe_customer_id', '=', customerId).executeTakeFirst();
  return row?.user_uid as string | undefined;
}

export const cardOf = (pm: Stripe.PaymentMethod): PaymentMethodFacts['card'] =>
  pm.card ? { brand: pm.card.brand, last4: pm.card.last4, exp_month: pm.card.exp_month, exp_year: pm.card.exp_year } : null;

/**
 * The payment method, made the customer's default. A payment method of another customer is "not found":
 * a user can never use (or learn about) someone else's card.
 */
async function adoptPaymentMethod(ctx: BillingContext, customerId: string, paymentMethodId: string, revision: number): Promise<PaymentMethodFacts> {
  const stripe = stripeOf(ctx);
  let pm: Stripe.PaymentMethod;
  try {
    pm = await stripe.paymentMethods.retrieve(paymentMethodId);
  } catch (error) {
    return providerError(error, m.updatePaymentFailed, ctx.logger);
  }
  const owner = typeof pm.customer === 'string' ? pm.customer : (pm.customer?.id ?? null);
  if (owner !== null && owner !== customerId) throw new AppError('not_found', m.paymentMethodNotFound);
  try {
    if (owner === null) await stripe.paymentMethods.attach(paymentMethodId, { customer: customerId }, { idempotencyKey: `attach:${customerId}:${paymentMethodId}` });
    await stripe.customers.update(customerId, { invoice_settings: { default_payment_method: paymentMethodId } }, { idempotencyKey: `default-pm:${customerId}:${revision}:${paymentMethodId}` });
  } catch (error) {
    return providerError(error, m.updatePaymentFailed, ctx.logger);
  }
  return { id: pm.id, card: cardOf(pm) };
}

/** The period of a subscription (API 2025 "basil": on its item) and its latest invoice. */
export function periodOf(sub: Stripe.Subscription): { periodStart: string; periodEnd: string; invoiceId: string | null } {
  const item = sub.items.data[0];
  const start = item?.current_period_start ?? sub.start_date;
  const end = item?.current_period_end ?? sub.trial_end ?? start;
  const invoice = sub.latest_invoice;
  return {
    periodStart: new Date(start * 1000).toISOString(),
    periodEnd: new Date(end * 1000).toISOString(),
    invoiceId: invoice === null ? null : typeof invoice === 'string' ? invoice : (invoice.id ?? null),
  };
}

/** POST auth/create-payment-intent: a SetupIntent saves a card without charging it (the trial needs none). */
export async function createSetupIntent(ctx: BillingContext, caller: Caller): Promise<{ clientSecret: string }> {
  const stripe = stripeOf(ctx);
  try {
    const customer = await ensureCustomer(ctx, caller);
    const intent = await stripe.setupIntents.create(
      { customer, usage: 'off_session', payment_method_types: ['card'], metadata: { user_uid: caller.userId } },
      // A SetupIntent charges nothing; a fresh one per request lets a user whose card failed try again.
      { idempotencyKey: `setup-intent:${caller.userId}:${uuidv7(ctx.clock.now().getTime())}` },
    );
    if (!intent.client_secret) throw new Error('SetupIntent without client_secret');
    return { clientSecret: intent.client_secret };
  } catch (error) {
    return providerError(error, m.paymentSetupFailed, ctx.logger);
  }
}

const inTrial = (state: SubscriptionState, now: Date) =>
  state.status === codes.trial && effectiveSubscriptionStatus(state.status, state.periodEnd ? new Date(state.periodEnd) : null, now) === codes.trial;

/** Longer than any Stripe call lasts (the SDK gives up after 80 s): an older claim's holder is gone. */
const CHARGE_CLAIM_MS = 120_000;

/**
 * Runs `work` (a call that may charge the card) as the user's only one: a second, from another tab or
 * process, is refused with 409 before it reaches Stripe, so it cannot charge a second time. The claim is
 * a row (`billing_charge_claims`), which holds across gateway processes and on PGlite alike.
 */
async function asOnlyCharge<T>(ctx: BillingContext, userId: string, work: () => Promise<T>): Promise<T> {
  const claimedAt = new Date();
  const staleBefore = new Date(claimedAt.getTime() - CHARGE_CLAIM_MS);
  const claimed = await ctx.db
    .insertInto('billing_charge_claims')
    .values({ user_uid: userId, claimed_at: claimedAt })
    .onConflict((oc) => oc.column('user_uid').doUpdateSet({ claimed_at: claimedAt }).where('billing_charge_claims.claimed_at', '<', staleBefore))
    .returning('user_uid')
    .executeTakeFirst();
  if (!claimed) throw new AppError('conflict', m.paymentInProgress);
  try {
    return await work();
  } finally {
    await ctx.db.deleteFrom('billing_charge_claims').where('user_uid', '=', userId).where('claimed_at', '=', claimedAt).execute();
  }
}

/** POST auth/create-subscription: in the trial the first charge is at its end; after it, at once. */
export function createSubscription(ctx: BillingContext, caller: Caller, input: CreateSubscriptionRequest): Promise<SubscriptionDetails> {
  // Self-hosted (or no price configured) says so first, as every payment call does (QA: 422 "Unknown price").
  stripeOf(ctx);
  if (input.priceId !== ctx.config.STRIPE_PRICE_ID) throw new AppError('invalid', m.unknownPrice, { detail: [{ field: 'priceId', message: m.unknownPrice }] });
  return asOnlyCharge(ctx, caller.userId, () => subscribe(ctx, caller, input));
}

async function subscribe(ctx: BillingContext, caller: Caller, input: CreateSubscriptionRequest): Promise<SubscriptionDetails> {
  const stripe = stripeOf(ctx);
  const now = ctx.clock.now();
  let { state } = await loadSubscription(ctx, caller.userId);
  // Renewed at Stripe meanwhile (its webhook late): active again, and nothing charged a second time.
  const awaited = await settleAwaitedRenewal({ ...ctx, stripe }, caller.userId, state, now, userActor(caller.userId));
  if (awaited.outcome === 'renewed') return subscriptionDetails(ctx, caller.userId);
  state = awaited.state;
  conflictOf(() => assertAllowed('Subscribe', state, { now }));
  const customerId = await ensureCustomer(ctx, caller).catch((e) => providerError(e, m.serverError, ctx.logger));
  const paymentMethod = await adoptPaymentMethod(ctx, customerId, input.paymentMethodId, state.revision);
  const trialing = inTrial(state, now);
  const sub = await chargeOrRecordDecline(ctx, caller.userId, { during: 'subscribe', paymentMethodId: paymentMethod.id }, () =>
    stripe.subscriptions.create(
      {
        customer: customerId,
        items: [{ price: input.priceId }],
        default_payment_method: paymentMethod.id,
        // A declined first charge fails this call instead of leaving an incomplete subscription behind.
        payment_behavior: 'error_if_incomplete',
        ...(trialing && state.periodEnd ? { trial_end: Math.floor(new Date(state.periodEnd).getTime() / 1000) } : {}),
        metadata: { user_uid: caller.userId },
      },
      { idempotencyKey: `subscribe:${caller.userId}:${state.revision}:${paymentMethod.id}` },
    ),
  );
  if (sub.status !== 'active' && sub.status !== 'trialing') throw new AppError('payment_required', m.setupIntentNotSucceeded(sub.status));
  const period = periodOf(sub);
  await recordOrUndo(ctx, caller.userId, sub.id, () =>
    runCommand(
      ctx,
      caller.userId,
      (s) => decide({ type: 'Subscribe', customerId, paymentMethod, stripeSubscriptionId: sub.id, trialing: sub.status === 'trialing', ...period }, s, { now }),
      { actor: userActor(caller.userId), command: 'Subscribe' },
    ),
  );
  return subscriptionDetails(ctx, caller.userId);
}

/**
 * Records a subscription Stripe has just made. Two requests racing (two tabs) are kept apart before
 * Stripe by `asOnlyCharge`; should two subscriptions still meet here (a claim taken over from a holder
 * thought gone), the stream lets one win and the loser's Stripe subscription is cancelled at once.
 */
async function recordOrUndo(ctx: BillingContext, userId: string, stripeSubscriptionId: string, record: () => Promise<{ state: SubscriptionState }>): Promise<void> {
  try {
    await record();
  } catch (error) {
    if (error instanceof AppError && error.kind === 'conflict') {
      const { state } = await loadSubscription(ctx, userId);
      if (state.stripeSubscriptionId !== stripeSubscriptionId) {
        await stripeOf(ctx)
          .subscriptions.cancel(stripeSubscriptionId, {}, { idempotencyKey: `undo:${stripeSubscriptionId}` })
          .catch((e) => ctx.logger?.error({ err: e, stripeSubscriptionId }, 'could not cancel a subscription that lost a race'));
      }
    }
    throw error;
  }
}

/** POST /auth/cancel-subscription: cancel at the period end; access stays until then. */
export async function cancelSubscription(ctx: BillingContext, caller: Caller): Promise<SubscriptionDetails> {
  const stripe = stripeOf(ctx);
  const now = ctx.clock.now();
  const { state } = await loadSubscription(ctx, caller.userId);
  conflictOf(() => assertAllowed('Cancel', state, { now }));
  try {
    await stripe.subscriptions.update(state.stripeSubscriptionId!, { cancel_at_period_end: true }, { idempotencyKey: `cancel:${state.stripeSubscriptionId}:${state.revision}` });
  } catch (error) {
    return providerError(error, m.cancelFailed, ctx.logger);
  }
  await runCommand(ctx, caller.userId, (s) => decide({ type: 'Cancel' }, s, { now }), { actor: userActor(caller.userId), command: 'Cancel' });
  return subscriptionDetails(ctx, caller.userId);
}

/**
 * POST /auth/reactivate-subscription: within the period a scheduled cancellation is undone (Uncancel);
 * after an expiry a new paid period starts at once on the card on file (Reactivate).
 */
export function reactivateSubscription(ctx: BillingContext, caller: Caller): Promise<{ details: SubscriptionDetails; message: string }> {
  return asOnlyCharge(ctx, caller.userId, () => reactivate(ctx, caller));
}

async function reactivate(ctx: BillingContext, caller: Caller): Promise<{ details: SubscriptionDetails; message: string }> {
  const stripe = stripeOf(ctx);
  const now = ctx.clock.now();
  const { state } = await loadSubscription(ctx, caller.userId);
  const periodLive = state.periodEnd !== null && new Date(state.periodEnd).getTime() > now.getTime();
  if (state.cancelAtPeriodEnd && periodLive) {
    conflictOf(() => assertAllowed('Uncancel', state, { now }));
    try {
      await stripe.subscriptions.update(state.stripeSubscriptionId!, { cancel_at_period_end: false }, { idempotencyKey: `uncancel:${state.stripeSubscriptionId}:${state.revision}` });
    } catch (error) {
      return providerError(error, m.uncancelFailed, ctx.logger);
    }
    await runCommand(ctx, caller.userId, (s) => decide({ type: 'Uncancel' }, s, { now }), { actor: userActor(caller.userId), command: 'Uncancel' });
    return { details: await subscriptionDetails(ctx, caller.userId), message: m.restored };
  }
  // Renewed at Stripe meanwhile (its webhook late): active again, and nothing charged a second time.
  const awaited = await settleAwaitedRenewal({ ...ctx, stripe }, caller.userId, state, now, userActor(caller.userId));
  if (awaited.outcome === 'renewed') return { details: await subscriptionDetails(ctx, caller.userId), message: m.activated };
  const current = awaited.state;
  conflictOf(() => assertAllowed('Reactivate', current, { now }));
  const price = ctx.config.STRIPE_PRICE_ID;
  if (!price) throw new AppError('unavailable', m.serverError, { resolution: 'STRIPE_PRICE_ID is not configured.' });
  const paymentMethodId = current.paymentMethod!.id;
  const sub = await chargeOrRecordDecline(ctx, caller.userId, { during: 'reactivate', paymentMethodId }, () =>
    stripe.subscriptions.create(
      {
        customer: current.customerId!,
        items: [{ price }],
        default_payment_method: paymentMethodId,
        payment_behavior: 'error_if_incomplete',
        metadata: { user_uid: caller.userId },
      },
      { idempotencyKey: `reactivate:${caller.userId}:${current.revision}` },
    ),
  );
  const period = periodOf(sub);
  await recordOrUndo(ctx, caller.userId, sub.id, () =>
    runCommand(ctx, caller.userId, (s) => decide({ type: 'Reactivate', stripeSubscriptionId: sub.id, ...period }, s, { now }), {
      actor: userActor(caller.userId),
      command: 'Reactivate',
    }),
  );
  return { details: await subscriptionDetails(ctx, caller.userId), message: m.activated };
}

/**
 * POST /auth/update-payment-method: the new card becomes the default for the customer and the
 * subscription. In the grace period the open invoice is paid with it at once (Renew).
 */
export async function updatePaymentMethod(ctx: BillingContext, caller: Caller, paymentMethodId: string): Promise<SubscriptionDetails> {
  const stripe = stripeOf(ctx);
  const now = ctx.clock.now();
  const { state } = await loadSubscription(ctx, caller.userId);
  conflictOf(() => assertAllowed('UpdatePaymentMethod', state, { now }));
  const customerId = state.customerId ?? (await ensureCustomer(ctx, caller));
  const paymentMethod = await adoptPaymentMethod(ctx, customerId, paymentMethodId, state.revision);
  const subscriptionId = state.stripeSubscriptionId!;
  try {
    await stripe.subscriptions.update(
      subscriptionId,
      { default_payment_method: paymentMethod.id },
      { idempotencyKey: `sub-pm:${subscriptionId}:${state.revision}:${paymentMethod.id}` },
    );
  } catch (error) {
    return providerError(error, m.updatePaymentFailed, ctx.logger);
  }
  const updated = await runCommand(ctx, caller.userId, (s) => decide({ type: 'UpdatePaymentMethod', customerId, paymentMethod }, s, { now }), {
    actor: userActor(caller.userId),
    command: 'UpdatePaymentMethod',
  });
  if (state.status === codes.due) await payOpenInvoice(ctx, caller.userId, subscriptionId, paymentMethod.id, updated.state.revision);
  return subscriptionDetails(ctx, caller.userId);
}

async function payOpenInvoice(ctx: BillingContext, userId: string, subscriptionId: string, paymentMethodId: string, revision: number): Promise<void> {
  const stripe = stripeOf(ctx);
  let open: Stripe.Invoice | undefined;
  try {
    open = (await stripe.invoices.list({ subscription: subscriptionId, status: 'open', limit: 1 })).data[0];
  } catch (error) {
    return providerError(error, m.updatePaymentFailed, ctx.logger);
  }
  const openId = open?.id;
  if (!openId) return;
  // A declined charge: the card is on file by now (recorded above), so say so rather than "failed to update" (QA).
  const invoice = await chargeOrRecordDecline(
    ctx,
    userId,
    { during: 'renew', paymentMethodId, fallback: m.updatePaymentFailed, cardMessage: m.cardSavedPaymentDeclined },
    () => stripe.invoices.pay(openId, { payment_method: paymentMethodId }, { idempotencyKey: `pay:${openId}:${revision}:${paymentMethodId}` }),
  );
  const period = invoice.status === 'paid' && invoice.id ? invoicePeriod(invoice) : null;
  if (!period) return;
  const now = ctx.clock.now();
  // The invoice.paid webhook will say the same; the invoice id makes it one renewal.
  await runCommand(
    ctx,
    userId,
    (s) => decide({ type: 'RecordInvoicePaid', stripeSubscriptionId: subscriptionId, invoiceId: invoice.id!, amountPaid: invoice.amount_paid, ...period }, s, { now }),
    { actor: userActor(userId), command: 'RecordInvoicePaid' },
  );
}

/** The service period an invoice pays for: its subscription line's period; null when it names none. */
export function invoicePeriod(invoice: Stripe.Invoice): { periodStart: string; periodEnd: string } | null {
  const line = invoice.lines?.data?.find((l) => l.parent?.subscription_item_details) ?? invoice.lines?.data?.[0];
  const start = line?.period?.start ?? invoice.period_start;
  const end = line?.period?.end ?? invoice.period_end;
  if (!Number.isFinite(start) || !Number.isFinite(end)) return null;
  return { periodStart: new Date(start * 1000).toISOString(), periodEnd: new Date(end * 1000).toISOString() };
}

/**
 * A Stripe call that may charge the card. A decline is recorded (`ChargeDeclined`) before the 402 goes
 * back: it is part of the history, and it makes the user's next try a new request at Stripe.
 */
async function chargeOrRecordDecline<T>(
  ctx: BillingContext,
  userId: string,
  charge: { during: 'subscribe' | 'reactivate' | 'renew'; paymentMethodId: string; fallback?: string; cardMessage?: (reason: string) => string },
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isCardError(error)) {
      const now = ctx.clock.now();
      const reason = (error as { message?: string }).message ?? m.cardDeclined;
      const command: SubscriptionCommand = { type: 'RecordChargeDeclined', during: charge.during, paymentMethodId: charge.paymentMethodId, reason };
      await runCommand(ctx, userId, (s) => decide(command, s, { now }), { actor: userActor(userId), command: command.type });
    }
    return providerError(error, charge.fallback ?? m.serverError, ctx.logger, charge.cardMessage);
  }
}

/**
 * A period that ended while its Stripe subscription lives on (`awaitingRenewal`: a renewal or a trial's
 * first charge whose webhook has not come). Before anything could start a second subscription, Stripe is
 * asked what became of it, and that is recorded as its webhook will record it (the invoice id makes the
 * two one renewal): renewed (an invoice paid for a later period), ended (cancelled at Stripe), or still
 * pending, which the decider then refuses with "renewal pending".
 */
export async function settleAwaitedRenewal(
  ctx: StoreContext & { stripe: Stripe; logger?: Logger },
  userId: string,
  state: SubscriptionState,
  now: Date,
  actor: Actor,
): Promise<{ outcome: 'renewed' | 'ended' | 'pending' | 'not-awaited'; state: SubscriptionState }> {
  if (!awaitingRenewal(state, now)) return { outcome: 'not-awaited', state };
  const stripe = ctx.stripe;
  const subscriptionId = state.stripeSubscriptionId!;
  let ended = false;
  let paid: Stripe.Invoice | undefined;
  try {
    const sub = await stripe.subscriptions.retrieve(subscriptionId);
    ended = sub.status === 'canceled' || sub.status === 'incomplete_expired';
    if (!ended) paid = (await stripe.invoices.list({ subscription: subscriptionId, status: 'paid', limit: 1 })).data[0];
  } catch (error) {
    if (!isStripeMissing(error)) return providerError(error, m.serverError, ctx.logger);
    ended = true;
  }
  const record = (command: SubscriptionCommand) => runCommand(ctx, userId, (s) => decide(command, s, { now }), { actor, command: command.type });
  if (ended) return { outcome: 'ended', state: (await record({ type: 'RecordSubscriptionDeleted', stripeSubscriptionId: subscriptionId })).state };
  const period = paid?.id ? invoicePeriod(paid) : null;
  if (paid?.id && period) {
    const after = await record({ type: 'RecordInvoicePaid', stripeSubscriptionId: subscriptionId, invoiceId: paid.id, amountPaid: paid.amount_paid, ...period });
    if (after.appended.length > 0) return { outcome: 'renewed', state: after.state };
  }
  return { outcome: 'pending', state };
}

export const invoiceSubscriptionId = (invoice: Stripe.Invoice): string | null => {
  const ref = invoice.parent?.subscription_details?.subscription;
  if (ref) return typeof ref === 'string' ? ref : ref.id;
  const line = invoice.lines?.data.find((l) => l.parent?.subscription_item_details?.subscription);
  return line?.parent?.subscription_item_details?.subscription ?? null;
};
