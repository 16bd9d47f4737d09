import { subscriptionStatusCodes as codes, type CardSummary } from '@oj/contracts/subscriptions';
import type { SubscriptionEvent } from '@oj/contracts/subscription-events';

/** The subscription as its events left it. Pure data; `evolve` is the only way it changes. */
export interface SubscriptionState {
  /** Revision of the last event folded in; -1 for a stream that does not exist yet. */
  revision: number;
  status: number;
  periodStart: string | null;
  periodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  paymentMethod: { id: string; card: CardSummary | null } | null;
  paymentStatus: 'paid' | 'open' | null;
  customerId: string | null;
  stripeSubscriptionId: string | null;
  trialEnd: string | null;
  graceEndsAt: string | null;
  /** Invoices already counted, so a renewal told twice (answer and webhook) is one renewal. */
  invoices: readonly string[];
  /** Stripe events already applied: a redelivery decides nothing. */
  stripeEvents: readonly string[];
}

export const emptySubscription: SubscriptionState = Object.freeze({
  revision: -1,
  status: codes.unknown,
  periodStart: null,
  periodEnd: null,
  cancelAtPeriodEnd: false,
  paymentMethod: null,
  paymentStatus: null,
  customerId: null,
  stripeSubscriptionId: null,
  trialEnd: null,
  graceEndsAt: null,
  invoices: [],
  stripeEvents: [],
});

function withSource(state: SubscriptionState, source: { eventId: string; created: number } | undefined): SubscriptionState {
  if (!source) return state;
  return { ...state, stripeEvents: [...state.stripeEvents, source.eventId] };
}

const withInvoice = (state: SubscriptionState, invoiceId: string | null) => (invoiceId === null || state.invoices.includes(invoiceId) ? state.invoices : [...state.invoices, invoiceId]);

export function evolve(state: SubscriptionState, event: SubscriptionEvent): SubscriptionState {
  const next = { ...state, revision: state.revision + 1 };
  switch (event.type) {
    case 'TrialStarted':
      return { ...next, status: codes.trial, periodStart: event.data.trialStart, periodEnd: event.data.trialEnd, trialEnd: event.data.trialEnd };
    case 'PaymentMethodAttached':
      return withSource({ ...next, customerId: event.data.customerId, paymentMethod: event.data.paymentMethod }, event.data.stripe);
    case 'SubscriptionActivated':
      return {
        ...next,
        // Subscribed in the trial: still a trial (with a card) until the first charge at its end.
        status: event.data.trialing ? codes.trial : codes.active,
        customerId: event.data.customerId,
        stripeSubscriptionId: event.data.stripeSubscriptionId,
        periodStart: event.data.periodStart,
        periodEnd: event.data.periodEnd,
        cancelAtPeriodEnd: false,
        // Stripe's first invoice of a trialing subscription is a paid 0.00 one.
        paymentStatus: 'paid',
        graceEndsAt: null,
        invoices: withInvoice(state, event.data.invoiceId),
      };
    case 'RenewalSucceeded':
      return withSource(
        { ...next, status: codes.active, periodStart: event.data.periodStart, periodEnd: event.data.periodEnd, paymentStatus: 'paid', graceEndsAt: null, invoices: withInvoice(state, event.data.invoiceId) },
        event.data.stripe,
      );
    case 'PaymentFailed':
      return withSource({ ...next, status: codes.due, paymentStatus: 'open', graceEndsAt: event.data.graceEndsAt }, event.data.stripe);
    case 'GraceExpired':
      return { ...next, status: codes.expired, paymentStatus: null, graceEndsAt: null, cancelAtPeriodEnd: false, stripeSubscriptionId: null };
    case 'CancellationScheduled':
      return withSource({ ...next, cancelAtPeriodEnd: true }, event.data.stripe);
    case 'CancellationUndone':
      return withSource({ ...next, cancelAtPeriodEnd: false }, event.data.stripe);
    case 'SubscriptionExpired':
      return withSource(
        { ...next, status: state.cancelAtPeriodEnd ? codes.canceled : codes.expired, cancelAtPeriodEnd: false, paymentStatus: null, graceEndsAt: null, stripeSubscriptionId: null },
        event.data.stripe,
      );
    case 'Reactivated':
      return {
        ...next,
        status: codes.active,
        stripeSubscriptionId: event.data.stripeSubscriptionId,
        periodStart: event.data.periodStart,
        periodEnd: event.data.periodEnd,
        cancelAtPeriodEnd: false,
        paymentStatus: 'paid',
        graceEndsAt: null,
        invoices: withInvoice(state, event.data.invoiceId),
      };
    case 'PaymentMethodUpdated':
      return withSource({ ...next, paymentMethod: event.data.paymentMethod }, event.data.stripe);
    case 'ChargeDeclined':
      return next;
  }
}

export const fold = (events: Iterable<SubscriptionEvent>, from: SubscriptionState = emptySubscription): SubscriptionState => {
  let state = from;
  for (const e of events) state = evolve(state, e);
  return state;
};
