import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { Elements, PaymentElement, useElements, useStripe } from '@stripe/react-stripe-js';
// The pure entry loads Stripe.js from js.stripe.com only when loadStripe is called: only when this form opens.
import { loadStripe } from '@stripe/stripe-js/pure';
import type { Stripe } from '@stripe/stripe-js';
import { billingMessages as m } from '@oj/contracts/billing';
import { Button } from '@/components/ui/button.tsx';
import type { CardStepResult } from './card-step.ts';

const loaded = new Map<string, Promise<Stripe | null>>();
/**
 * Stripe.js for a key, loaded once. A load that fails (js.stripe.com blocked by an ad blocker, a proxy,
 * or no network) is forgotten, so the next attempt loads it again instead of failing from a cache.
 */
const stripeFor = (publishableKey: string) => {
  let p = loaded.get(publishableKey);
  if (!p) {
    p = loadStripe(publishableKey).then((stripe) => {
      if (!stripe) throw new Error('Stripe.js did not load');
      return stripe;
    });
    p.catch(() => loaded.delete(publishableKey));
    loaded.set(publishableKey, p);
  }
  return p;
};

export interface CardFormProps {
  publishableKey: string;
  clientSecret: string;
  submitLabel: string;
  busy: boolean;
  onResult: (result: CardStepResult) => void;
  /** Stripe.js could not be loaded: the form can never become ready, so the dialog says so. */
  onLoadFailed: () => void;
}

/** Stripe Elements: the card never touches our pages or servers. */
export default function StripeCardForm(props: CardFormProps) {
  const { publishableKey, onLoadFailed } = props;
  const loading = useMemo(() => stripeFor(publishableKey), [publishableKey]);
  // Elements is given a promise that does not reject: a failed load is reported once, here.
  const stripe = useMemo(() => loading.catch(() => null), [loading]);
  useEffect(() => {
    let live = true;
    loading.catch(() => live && onLoadFailed());
    return () => {
      live = false;
    };
  }, [loading, onLoadFailed]);
  return (
    <Elements stripe={stripe} options={{ clientSecret: props.clientSecret, appearance: { theme: 'stripe' } }}>
      <ElementsForm {...props} />
    </Elements>
  );
}

function ElementsForm({ submitLabel, busy, onResult }: Omit<CardFormProps, 'onLoadFailed'>) {
  const stripe = useStripe();
  const elements = useElements();
  const [confirming, setConfirming] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!stripe || !elements) return onResult({ error: { message: m.paymentFormNotReady } });
    setConfirming(true);
    try {
      // Cards confirm in place (3-D Secure in Stripe's own modal); only a redirect-based method leaves the page.
      const { error, setupIntent } = await stripe.confirmSetup({ elements, redirect: 'if_required', confirmParams: { return_url: `${window.location.origin}/subscription` } });
      if (error) return onResult({ error: { message: error.message ?? m.unexpected(error.type) } });
      const pm = setupIntent.payment_method;
      onResult({ setupIntent: { status: setupIntent.status, payment_method: typeof pm === 'string' ? pm : (pm?.id ?? null) } });
    } catch (error) {
      onResult({ error: { message: m.unexpected(error instanceof Error ? error.message : String(error)) } });
    } finally {
      setConfirming(false);
    }
  };

  return (
    <form onSubmit={submit} className="payment-form">
      <PaymentElement />
      <Button type="submit" block loading={busy || confirming} disabled={!stripe || !elements}>
        {submitLabel}
      </Button>
    </form>
  );
}
