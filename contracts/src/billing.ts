import { z } from 'zod';
import { subscriptionDetails } from './subscriptions.ts';

/** Part 2 §8: every payment and subscription message, shared by the server and the console. */
export const billingMessages = {
  paymentSetupFailed: 'Failed to initialize payment. Please try again.',
  paymentFormNotReady: 'Payment form not ready. Please try again.',
  unexpected: (reason: string) => `An unexpected error occurred: ${reason}`,
  setupIntentNotSucceeded: (status: string) => `Setup Intent did not succeed. Status: ${status}`,
  createFailed: (reason: string) => `Failed to create subscription: ${reason}`,
  createError: (reason: string) => `Error creating subscription: ${reason}`,
  updatePaymentFailed: 'Failed to update payment method.',
  /** Renew in the grace period: the new card is on file, but the open invoice's charge was declined. */
  cardSavedPaymentDeclined: (reason: string) => `Your new card was saved, but the payment was declined: ${reason}`,
  /** Reactivate: the card on file was declined; the card dialog opens for another card. */
  reactivateDeclined: (reason: string) => `The card on file was declined: ${reason} Enter another card to reactivate.`,
  serverError: 'Server error. Please try again.',
  paymentUpdated: 'Payment method updated!',
  cancelFailed: 'Failed to cancel subscription. Please try again.',
  uncancelFailed: 'Failed to uncancel subscription. Please try again.',
  activatedTitle: 'Subscription Activated',
  activated: 'Your Pro Plan is now active!',
  canceled: 'Your subscription has been canceled.',
  restored: 'Your subscription has been restored.',
  cancelConfirm: 'Are you sure you want to cancel your subscription? You will lose access to premium features at the end of your billing cycle.',
  uncancelConfirm: 'Your subscription will become active again.',
  // Server-side refusals (409 for a transition the lifecycle does not allow, 4xx for bad input).
  selfHosted: 'Payments are off on this self-hosted journal: every user has Premium without end.',
  paymentsNotConfigured: 'Payments are not set up on this journal yet (STRIPE_PRICE_ID is missing).',
  unknownPrice: 'Unknown price: this journal sells one plan.',
  paymentMethodNotFound: 'Payment method not found.',
  alreadySubscribed: 'You already have an active subscription.',
  paymentInProgress: 'A payment for your subscription is already in progress (another window?). Wait a moment, then reload.',
  inGrace: 'Your last payment failed: update your payment method to renew.',
  renewalPending:
    'Stripe is charging your card for the next period; your plan is active again as soon as the payment goes through. Nothing more to do: subscribing again would charge you twice.',
  notActive: 'Only an active subscription can be canceled.',
  alreadyCanceling: 'Your subscription is already set to cancel at the end of the billing period.',
  nothingToUncancel: 'There is no scheduled cancellation to undo.',
  periodEnded: 'The billing period has ended: reactivate your subscription instead.',
  notExpired: 'Only an expired or canceled subscription can be reactivated.',
  noPaymentMethod: 'Add a payment method first.',
  cannotUpdatePayment: 'There is no subscription to update the payment method of.',
  noTrialToStart: 'A trial has already started for this user.',
  cardDeclined: 'Your card was declined.',
  providerUnavailable: 'The payment provider could not be reached. Please try again.',
  badSignature: 'Invalid webhook signature.',
  malformedEvent: 'Malformed webhook event: it is signed, but it is not a Stripe event.',
  changedConcurrently: 'The subscription changed at the same time. Please try again.',
} as const;

/** A Stripe object id, named in its messages (QA: "is required", "must be a pm_… id" said not of what). */
/** A missing (or null) field is "required"; one of another type says what it must be (QA: 5 read "required"). */
const textOf = (field: string) => z.string({ error: (issue) => (issue.input === undefined || issue.input === null ? `${field} is required.` : `${field} must be a string.`) });
const stripeId = (field: string, prefix: string) =>
  textOf(field)
    .min(1, `${field} is required.`)
    .max(255, `${field} must be at most 255 characters.`)
    .regex(new RegExp(`^${prefix}_[A-Za-z0-9_]+$`), `${field} must be a Stripe id starting with ${prefix}_.`);

export const createPaymentIntentResponse = z.object({ clientSecret: z.string() });

export const createSubscriptionRequest = z.object({
  paymentMethodId: stripeId('paymentMethodId', 'pm'),
  priceId: textOf('priceId').min(1, 'priceId is required.').max(255, 'priceId must be at most 255 characters.'),
});
export type CreateSubscriptionRequest = z.infer<typeof createSubscriptionRequest>;

export const createSubscriptionResponse = z.object({ status: z.literal('success'), message: z.string(), subscription_data: subscriptionDetails });
export type CreateSubscriptionResponse = z.infer<typeof createSubscriptionResponse>;

/** Cancel, uncancel and reactivate answer the new state for the page (`frontend_data`). */
export const frontendDataResponse = z.object({ message: z.string(), frontend_data: subscriptionDetails });
export type FrontendDataResponse = z.infer<typeof frontendDataResponse>;

export const updatePaymentMethodRequest = z.object({ paymentMethodId: stripeId('paymentMethodId', 'pm') });
export type UpdatePaymentMethodRequest = z.infer<typeof updatePaymentMethodRequest>;
export const updatePaymentMethodResponse = z.object({ status: z.literal('success'), message: z.string(), subscription_data: subscriptionDetails });

export const webhookResponse = z.object({ received: z.literal(true), duplicate: z.boolean() });
