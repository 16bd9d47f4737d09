import { billingMessages as m } from '@oj/contracts/billing';
import { AppError } from '../app/errors.ts';
import { cardOf, invoicePeriod, invoiceSubscriptionId, isStripeMissing, userOfCustomer, type BillingContext } from './commands.ts';
import { decide, type SubscriptionCommand } from './domain/decide.ts';
import type { Stripe } from './stripe-client.ts';
import { checkStripeEvent } from './stripe-events.ts';
import { runCommand, stripeActor } from './store.ts';

/**
 * POST /payments/stripe/webhook. The signature is checked on the raw body before anything is read or
 * written (a bad one is a 400 and leaves no trace). Each Stripe event id is handled once: the
 * `billing_stripe_events` row answers a redelivery at once, and should a crash come between the append and
 * that row, the stream itself knows the event (its events carry the Stripe id) and decides nothing again.
 * Order is Stripe's to choose: a subscription's state is read from Stripe when an event says it changed,
 * so a late event applies today's state, not its own copy; an invoice of an earlier period never moves
 * the period back (see the decider's RecordInvoicePaid and SyncStripeSubscription).
 */
export async function handleStripeWebhook(ctx: BillingContext, rawBody: Buffer, signature: string | undefined): Promise<{ duplicate: boolean }> {
  const secret = ctx.config.STRIPE_WEBHOOK_SECRET;
  if (!ctx.stripe || ctx.config.mode.billing !== 'stripe' || !secret) throw new AppError('not_found', m.selfHosted);
  let signed: unknown;
  try {
    signed = ctx.stripe.webhooks.constructEvent(rawBody, signature ?? '', secret);
  } catch {
    throw new AppError('bad_request', m.badSignature);
  }
  const checked = checkStripeEvent(signed);
  if (!checked.ok && checked.kind === 'envelope') {
    ctx.logger?.warn({ why: checked.why }, 'stripe webhook refused: signed, but not an event');
    throw new AppError('bad_request', m.malformedEvent);
  }
  const { event } = checked;
  const known = await ctx.db.selectFrom('billing_stripe_events').select('event_id').where('event_id', '=', event.id).executeTakeFirst();
  if (known) return { duplicate: true };

  const routed = checked.ok ? await commandOf(ctx, checked.event) : ignored(ctx, event, `its object is not what a ${event.type} carries (${checked.why})`);
  let appended = 0;
  if (routed) {
    const now = ctx.clock.now();
    const result = await runCommand(ctx, routed.userId, (state) => decide(routed.command, state, { now }), {
      actor: stripeActor,
      command: routed.command.type,
      causationId: event.id,
    });
    appended = result.appended.length;
  }
  await ctx.db
    .insertInto('billing_stripe_events')
    .values({ event_id: event.id, type: event.type, user_uid: routed?.userId ?? null, appended, processed_at: ctx.clock.now() })
    .onConflict((oc) => oc.column('event_id').doNothing())
    .execute();
  return { duplicate: false };
}

/**
 * A signed event that says nothing this journal can use (QA: an invoice without lines or period was a 500,
 * a subscription without an id a 503, each retried by Stripe for days): acknowledged, recorded as handled
 * with nothing appended, and logged.
 */
function ignored(ctx: BillingContext, event: { id: string; type: string }, why: string): null {
  ctx.logger?.warn({ event: event.id, type: event.type }, `stripe webhook ignored: ${why}`);
  return null;
}

const idOf = (ref: string | { id: string } | null | undefined): string | null => (ref == null ? null : typeof ref === 'string' ? ref : ref.id);

/** The subscription as Stripe has it now; the event's copy only if Stripe no longer knows it. */
async function currentSubscription(ctx: BillingContext, sent: Stripe.Subscription, eventId: string): Promise<Stripe.Subscription> {
  try {
    return await ctx.stripe!.subscriptions.retrieve(sent.id);
  } catch (error) {
    if (isStripeMissing(error)) return sent;
    // Not recorded as handled: Stripe retries a webhook answered with an error.
    ctx.logger?.error({ err: error, event: eventId }, 'stripe call failed while handling a webhook');
    throw new AppError('unavailable', m.providerUnavailable);
  }
}

/** The user (through the Stripe customer) and the command an event means; null for anything else. */
async function commandOf(ctx: BillingContext, event: Stripe.Event): Promise<{ userId: string; command: SubscriptionCommand } | null> {
  const stripe = { eventId: event.id, created: event.created };
  const forCustomer = async (customer: string | { id: string } | null | undefined, command: SubscriptionCommand | null) => {
    const customerId = idOf(customer);
    if (!customerId || !command) return null;
    const userId = await userOfCustomer(ctx.db, customerId);
    return userId ? { userId, command } : null;
  };
  switch (event.type) {
    case 'invoice.paid': {
      const invoice = event.data.object;
      const subscriptionId = invoiceSubscriptionId(invoice);
      const period = invoicePeriod(invoice);
      if (!subscriptionId || !invoice.id) return null;
      if (!period) return ignored(ctx, event, 'an invoice without a period');
      return forCustomer(invoice.customer, { type: 'RecordInvoicePaid', stripeSubscriptionId: subscriptionId, invoiceId: invoice.id, amountPaid: invoice.amount_paid, ...period, stripe });
    }
    case 'invoice.payment_failed': {
      const invoice = event.data.object;
      const subscriptionId = invoiceSubscriptionId(invoice);
      if (!subscriptionId || !invoice.id) return null;
      return forCustomer(invoice.customer, { type: 'RecordPaymentFailed', stripeSubscriptionId: subscriptionId, invoiceId: invoice.id, stripe });
    }
    case 'customer.subscription.updated': {
      // The event says that the subscription changed; what it is now is read from Stripe. Stripe does not
      // deliver in order, and an older state carried by a late event could undo a newer one that left no
      // trace to compare it with (QA: the trader's own Uncancel, then a late "cancel at period end"
      // event: the journal locked at the period end while Stripe went on charging).
      const sub = await currentSubscription(ctx, event.data.object, event.id);
      return forCustomer(sub.customer, { type: 'SyncStripeSubscription', stripeSubscriptionId: sub.id, stripeStatus: sub.status, cancelAtPeriodEnd: sub.cancel_at_period_end, stripe });
    }
    case 'customer.subscription.deleted': {
      const sub = event.data.object;
      return forCustomer(sub.customer, { type: 'RecordSubscriptionDeleted', stripeSubscriptionId: sub.id, stripe });
    }
    case 'payment_method.attached': {
      const pm = event.data.object;
      const customerId = idOf(pm.customer);
      return forCustomer(customerId, customerId ? { type: 'RecordPaymentMethodAttached', customerId, paymentMethod: { id: pm.id, card: cardOf(pm) }, stripe } : null);
    }
    case 'setup_intent.succeeded': {
      const intent = event.data.object;
      const customerId = idOf(intent.customer);
      const pmRef = intent.payment_method;
      if (!customerId || !pmRef) return null;
      let pm: Stripe.PaymentMethod;
      try {
        pm = typeof pmRef === 'string' ? await ctx.stripe!.paymentMethods.retrieve(pmRef) : pmRef;
      } catch (error) {
        // A card Stripe does not know (removed since) is nothing to record; retrying would not change that.
        if (isStripeMissing(error)) return ignored(ctx, event, 'a payment method Stripe no longer has');
        // Not recorded as handled: Stripe retries a webhook answered with an error.
        ctx.logger?.error({ err: error, event: event.id }, 'stripe call failed while handling a webhook');
        throw new AppError('unavailable', m.providerUnavailable);
      }
      return forCustomer(customerId, { type: 'RecordPaymentMethodAttached', customerId, paymentMethod: { id: pm.id, card: cardOf(pm) }, stripe });
    }
    default:
      return null;
  }
}
