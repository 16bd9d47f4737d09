import { z } from 'zod';
import type { Stripe } from './stripe-client.ts';

/**
 * What the webhook reads of a Stripe event, checked before anything is read from it. The signature says
 * who sent the bytes, not that they have the shape the SDK's types promise (QA: a signed `[1,2]` was a 500
 * on the event row's null id; an invoice whose `lines.data` was a string, or with `data.object` null, a
 * 500; a subscription whose id was a number went to Stripe and came back as a 503, which Stripe retries
 * for days). Only the fields the handlers read are checked, loosely (`looseObject`: everything else is
 * Stripe's to add), so a newer API version that adds fields still passes.
 */
const ref = z.union([z.string().min(1), z.looseObject({ id: z.string().min(1) })]);
const optionalRef = ref.nullish();
const unixSeconds = z.number().int().nonnegative();

/** The envelope: without these there is no event to record, even as ignored. */
const stripeEventEnvelope = z.looseObject({
  id: z.string().min(1).max(255),
  type: z.string().min(1).max(255),
  created: unixSeconds,
  data: z.looseObject({ object: z.looseObject({}) }),
});

const card = z.looseObject({ brand: z.string(), last4: z.string(), exp_month: z.number().int(), exp_year: z.number().int() }).nullish();

const invoice = z.looseObject({
  id: z.string().min(1).nullish(),
  customer: optionalRef,
  amount_paid: z.number().int().nonnegative(),
  period_start: unixSeconds.nullish(),
  period_end: unixSeconds.nullish(),
  parent: z.looseObject({ subscription_details: z.looseObject({ subscription: optionalRef }).nullish() }).nullish(),
  lines: z
    .looseObject({
      data: z.array(
        z.looseObject({
          period: z.looseObject({ start: unixSeconds, end: unixSeconds }).nullish(),
          parent: z.looseObject({ subscription_item_details: z.looseObject({ subscription: z.string().min(1).nullish() }).nullish() }).nullish(),
        }),
      ),
    })
    .nullish(),
});

const subscription = z.looseObject({ id: z.string().min(1), customer: optionalRef, status: z.string().optional(), cancel_at_period_end: z.boolean().optional() });
const paymentMethod = z.looseObject({ id: z.string().min(1), customer: optionalRef, card });
const setupIntent = z.looseObject({ customer: optionalRef, payment_method: z.union([z.string().min(1), paymentMethod]).nullish() });

/** `data.object` of each event type the webhook handles; other types are acknowledged unread. */
const objectOf = {
  'invoice.paid': invoice,
  'invoice.payment_failed': invoice,
  'customer.subscription.updated': subscription,
  'customer.subscription.deleted': subscription,
  'payment_method.attached': paymentMethod,
  'setup_intent.succeeded': setupIntent,
} as const;

export type StripeEventCheck =
  | { ok: true; event: Stripe.Event }
  | { ok: false; kind: 'envelope'; why: string }
  | { ok: false; kind: 'object'; event: { id: string; type: string }; why: string };

/**
 * The event as the handlers may read it, or why not: a bad envelope is a 400 (there is nothing to
 * record), a handled type whose object lacks what its handler reads is acknowledged and ignored.
 */
export function checkStripeEvent(parsed: unknown): StripeEventCheck {
  const envelope = stripeEventEnvelope.safeParse(parsed);
  if (!envelope.success) return { ok: false, kind: 'envelope', why: z.prettifyError(envelope.error) };
  const schema = (objectOf as Record<string, z.ZodType | undefined>)[envelope.data.type];
  if (schema) {
    const object = schema.safeParse(envelope.data.data.object);
    if (!object.success) return { ok: false, kind: 'object', event: { id: envelope.data.id, type: envelope.data.type }, why: z.prettifyError(object.error) };
  }
  // The checked fields have the SDK's types; the rest is read only where the SDK's types allow it.
  return { ok: true, event: envelope.data as unknown as Stripe.Event };
}
