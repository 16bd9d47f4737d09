import { billingMessages as m } from '@oj/contracts/billing';
import { DAY_MS } from '@oj/contracts/business-date';
import { effectiveSubscriptionStatus, GRACE_PERIOD_DAYS, subscriptionStatusCodes as codes, type CardSummary } from '@oj/contracts/subscriptions';
import type { SubscriptionEvent } from '@oj/contracts/subscription-events';
import type { SubscriptionState } from './state.ts';

/**
 * Every transition of the subscription lifecycle (part 2 §4) and its rule, in one pure function. User
 * commands that also act at Stripe are checked here first (`assertAllowed`), then decided with what Stripe
 * answered, so Stripe is never asked to do something the lifecycle refuses. Webhook commands never refuse:
 * a redelivered, stale or foreign Stripe event decides nothing (an empty list), because Stripe only
 * retries a webhook that did not answer 2xx.
 */

export interface StripeSource {
  eventId: string;
  /** Stripe's `created`, in seconds. */
  created: number;
}
export interface PaymentMethodFacts {
  id: string;
  card: CardSummary | null;
}

export type SubscriptionCommand =
  | { type: 'StartTrial'; trialStart: string; trialEnd: string }
  | { type: 'Subscribe'; customerId: string; paymentMethod: PaymentMethodFacts; stripeSubscriptionId: string; trialing: boolean; periodStart: string; periodEnd: string; invoiceId: string | null }
  | { type: 'Cancel' }
  | { type: 'Uncancel' }
  | { type: 'Reactivate'; stripeSubscriptionId: string; periodStart: string; periodEnd: string; invoiceId: string | null }
  | { type: 'UpdatePaymentMethod'; customerId: string; paymentMethod: PaymentMethodFacts }
  | { type: 'RecordInvoicePaid'; stripeSubscriptionId: string; invoiceId: string; amountPaid: number; periodStart: string; periodEnd: string; stripe?: StripeSource }
  | { type: 'RecordPaymentFailed'; stripeSubscriptionId: string; invoiceId: string; stripe: StripeSource }
  | { type: 'RecordPaymentMethodAttached'; customerId: string; paymentMethod: PaymentMethodFacts; stripe: StripeSource }
  | { type: 'SyncStripeSubscription'; stripeSubscriptionId: string; stripeStatus: string; cancelAtPeriodEnd: boolean; stripe: StripeSource }
  /** `stripe` absent: learnt by asking Stripe (a renewal awaited, see `awaitingRenewal`), not from a webhook. */
  | { type: 'RecordSubscriptionDeleted'; stripeSubscriptionId: string; stripe?: StripeSource }
  | { type: 'RecordChargeDeclined'; during: 'subscribe' | 'reactivate' | 'renew'; paymentMethodId: string; reason: string }
  | { type: 'ExpireGrace' }
  | { type: 'ExpireAtPeriodEnd' };

export type SubscriptionCommandType = SubscriptionCommand['type'];

export interface DecideContext {
  now: Date;
}

/** A transition the lifecycle does not allow (HTTP 409), with the message the user sees. */
export class SubscriptionConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SubscriptionConflict';
  }
}

const effective = (s: SubscriptionState, now: Date) => effectiveSubscriptionStatus(s.status, s.periodEnd === null ? null : new Date(s.periodEnd), now);
const periodOver = (s: SubscriptionState, now: Date) => s.periodEnd !== null && new Date(s.periodEnd).getTime() <= now.getTime();
const lapsed = (s: SubscriptionState, now: Date) => {
  const e = effective(s, now);
  return e === codes.expired || e === codes.canceled || e === codes.pending;
};

/**
 * The period ended, but not the Stripe subscription: nobody cancelled it, so Stripe is renewing it (or
 * charging the trial's first month) and its invoice.paid or invoice.payment_failed has not come yet. The
 * plan counts as expired meanwhile (part 2 §4), yet a second subscription would charge the card twice
 * (QA): Subscribe and Reactivate refuse until Stripe's answer is known (the commands ask Stripe first).
 */
export const awaitingRenewal = (s: SubscriptionState, now: Date): boolean =>
  s.stripeSubscriptionId !== null && (s.status === codes.active || s.status === codes.trial) && !s.cancelAtPeriodEnd && periodOver(s, now);

/** The checks of the user commands that act at Stripe first; `decide` applies them again. */
export function assertAllowed(type: 'Subscribe' | 'Cancel' | 'Uncancel' | 'Reactivate' | 'UpdatePaymentMethod', state: SubscriptionState, ctx: DecideContext): void {
  const now = ctx.now;
  switch (type) {
    case 'Subscribe':
      if (state.status === codes.due) throw new SubscriptionConflict(m.inGrace);
      if (awaitingRenewal(state, now)) throw new SubscriptionConflict(m.renewalPending);
      if (state.stripeSubscriptionId !== null && !lapsed(state, now)) throw new SubscriptionConflict(m.alreadySubscribed);
      if (effective(state, now) === codes.active) throw new SubscriptionConflict(m.alreadySubscribed);
      return;
    case 'Cancel':
      // Active, or in the trial with a subscription whose first charge comes at its end: "Cancel any time"
      // (part 2 §1; QA: a trial with a card could not stop that charge).
      if ((state.status !== codes.active && state.status !== codes.trial) || periodOver(state, now) || state.stripeSubscriptionId === null) throw new SubscriptionConflict(m.notActive);
      if (state.cancelAtPeriodEnd) throw new SubscriptionConflict(m.alreadyCanceling);
      return;
    case 'Uncancel':
      if (!state.cancelAtPeriodEnd || state.stripeSubscriptionId === null) throw new SubscriptionConflict(m.nothingToUncancel);
      if (periodOver(state, now)) throw new SubscriptionConflict(m.periodEnded);
      return;
    case 'Reactivate':
      if (state.status === codes.due) throw new SubscriptionConflict(m.inGrace);
      if (awaitingRenewal(state, now)) throw new SubscriptionConflict(m.renewalPending);
      if (!lapsed(state, now)) throw new SubscriptionConflict(m.notExpired);
      if (state.paymentMethod === null || state.customerId === null) throw new SubscriptionConflict(m.noPaymentMethod);
      return;
    case 'UpdatePaymentMethod': {
      const live = state.stripeSubscriptionId !== null && (state.status === codes.active || state.status === codes.due || state.status === codes.trial);
      if (!live) throw new SubscriptionConflict(m.cannotUpdatePayment);
      return;
    }
  }
}

export function decide(command: SubscriptionCommand, state: SubscriptionState, ctx: DecideContext): SubscriptionEvent[] {
  const now = ctx.now;
  const seen = (source: StripeSource | undefined) => source !== undefined && state.stripeEvents.includes(source.eventId);
  const foreign = (stripeSubscriptionId: string) => state.stripeSubscriptionId !== stripeSubscriptionId;

  switch (command.type) {
    case 'StartTrial':
      if (state.revision >= 0) throw new SubscriptionConflict(m.noTrialToStart);
      return [{ type: 'TrialStarted', data: { trialStart: command.trialStart, trialEnd: command.trialEnd } }];

    case 'Subscribe': {
      assertAllowed('Subscribe', state, ctx);
      const events: SubscriptionEvent[] = [];
      if (state.paymentMethod?.id !== command.paymentMethod.id) {
        events.push(
          state.paymentMethod === null
            ? { type: 'PaymentMethodAttached', data: { customerId: command.customerId, paymentMethod: command.paymentMethod } }
            : { type: 'PaymentMethodUpdated', data: { paymentMethod: command.paymentMethod } },
        );
      }
      events.push({
        type: 'SubscriptionActivated',
        data: {
          customerId: command.customerId,
          stripeSubscriptionId: command.stripeSubscriptionId,
          trialing: command.trialing,
          periodStart: command.periodStart,
          periodEnd: command.periodEnd,
          invoiceId: command.invoiceId,
        },
      });
      return events;
    }

    case 'Cancel':
      assertAllowed('Cancel', state, ctx);
      return [{ type: 'CancellationScheduled', data: {} }];

    case 'Uncancel':
      assertAllowed('Uncancel', state, ctx);
      return [{ type: 'CancellationUndone', data: {} }];

    case 'Reactivate':
      assertAllowed('Reactivate', state, ctx);
      return [{ type: 'Reactivated', data: { stripeSubscriptionId: command.stripeSubscriptionId, periodStart: command.periodStart, periodEnd: command.periodEnd, invoiceId: command.invoiceId } }];

    case 'UpdatePaymentMethod':
      assertAllowed('UpdatePaymentMethod', state, ctx);
      if (state.paymentMethod?.id === command.paymentMethod.id) return [];
      return [{ type: 'PaymentMethodUpdated', data: { paymentMethod: command.paymentMethod } }];

    case 'RecordInvoicePaid':
      if (seen(command.stripe) || state.invoices.includes(command.invoiceId) || foreign(command.stripeSubscriptionId)) return [];
      // The 0.00 invoice Stripe issues when a subscription starts in its trial pays for nothing.
      if (command.amountPaid === 0 && state.status === codes.trial) return [];
      // An invoice of an earlier period (a delivery retried late) pays for nothing new: the period never
      // moves back (QA: it did, and locked a paying user out).
      if (state.periodEnd !== null && Date.parse(command.periodEnd) <= Date.parse(state.periodEnd)) return [];
      return [
        {
          type: 'RenewalSucceeded',
          data: {
            stripeSubscriptionId: command.stripeSubscriptionId,
            invoiceId: command.invoiceId,
            periodStart: command.periodStart,
            periodEnd: command.periodEnd,
            ...(command.stripe ? { stripe: command.stripe } : {}),
          },
        },
      ];

    case 'RecordPaymentFailed':
      if (seen(command.stripe) || foreign(command.stripeSubscriptionId) || state.invoices.includes(command.invoiceId)) return [];
      // Stripe retries a failed charge and reports each failure; the grace period starts at the first.
      if (state.status === codes.due) return [];
      return [
        {
          type: 'PaymentFailed',
          data: {
            stripeSubscriptionId: command.stripeSubscriptionId,
            invoiceId: command.invoiceId,
            graceEndsAt: new Date(now.getTime() + GRACE_PERIOD_DAYS * DAY_MS).toISOString(),
            stripe: command.stripe,
          },
        },
      ];

    case 'RecordPaymentMethodAttached':
      // A card saved at Stripe becomes the one on file only when there is none; replacing it is the
      // user's Update Payment.
      if (seen(command.stripe) || state.paymentMethod !== null) return [];
      return [{ type: 'PaymentMethodAttached', data: { customerId: command.customerId, paymentMethod: command.paymentMethod, stripe: command.stripe } }];

    case 'SyncStripeSubscription':
      if (seen(command.stripe) || foreign(command.stripeSubscriptionId)) return [];
      // No check of the event's age: the state here is the subscription as Stripe has it now (the
      // webhook reads it when it handles the event), never an older copy (QA: a redelivered event older
      // than an invoice.paid was dropped, and with it a cancellation made at Stripe).
      if (command.stripeStatus === 'canceled') return [{ type: 'SubscriptionExpired', data: { reason: 'stripe_deleted', stripe: command.stripe } }];
      if (command.cancelAtPeriodEnd === state.cancelAtPeriodEnd) return [];
      return [{ type: command.cancelAtPeriodEnd ? 'CancellationScheduled' : 'CancellationUndone', data: { stripe: command.stripe } }];

    case 'RecordSubscriptionDeleted':
      if (seen(command.stripe) || foreign(command.stripeSubscriptionId)) return [];
      return [{ type: 'SubscriptionExpired', data: { reason: 'stripe_deleted', stripe: command.stripe } }];

    case 'RecordChargeDeclined':
      return [{ type: 'ChargeDeclined', data: { during: command.during, paymentMethodId: command.paymentMethodId, reason: command.reason } }];

    case 'ExpireGrace':
      if (state.status !== codes.due || state.graceEndsAt === null || new Date(state.graceEndsAt).getTime() > now.getTime()) {
        throw new SubscriptionConflict('The grace period has not ended.');
      }
      return [{ type: 'GraceExpired', data: { graceEndedAt: state.graceEndsAt } }];

    case 'ExpireAtPeriodEnd':
      if (!periodOver(state, now)) throw new SubscriptionConflict('The period has not ended.');
      if ((state.status === codes.active || state.status === codes.trial) && state.cancelAtPeriodEnd) return [{ type: 'SubscriptionExpired', data: { reason: 'period_end' } }];
      if (state.status === codes.trial && state.stripeSubscriptionId === null) return [{ type: 'SubscriptionExpired', data: { reason: 'trial_end' } }];
      throw new SubscriptionConflict('Nothing ends at this period end.');
  }
}
