import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { billingMessages as m } from '@oj/contracts/billing';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Modal } from '@/components/ui/modal.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { ApiError } from '@/lib/api-client.ts';
import { createPaymentIntent } from '../api/create-payment-intent.ts';
import { useCreateSubscription } from '../api/create-subscription.ts';
import { useUpdatePaymentMethod } from '../api/update-payment-method.ts';
import { injectedCardStep, type CardStepResult } from './card-step.ts';

// Stripe's React bindings and loader live in their own chunk, fetched when a payment dialog opens.
const StripeCardForm = lazy(() => import('./stripe-card-form.tsx'));

export type PaymentPurpose = 'subscribe' | 'update';

export interface PaymentDialogProps {
  open: boolean;
  purpose: PaymentPurpose;
  publishableKey: string | null;
  priceId: string | null;
  /** Subscribing inside the free trial: the first charge is at its end. Otherwise (reactivating) it is at once. */
  inTrial: boolean;
  /** Why the dialog opened on its own, said inside it (the page behind is covered): a declined card on file. */
  notice?: string | null;
  /** Renew in the grace period: the card saved here also pays the renewal that failed, at once. */
  paysDueInvoice?: boolean;
  /** The subscription or the new card was saved (before the dialog closes). */
  onSucceeded: () => void;
  onClose: () => void;
}

/**
 * Subscribe (or Reactivate without a card) and Update Payment / Renew: a SetupIntent from the server, the
 * card confirmed at Stripe, then the subscription or the new default card on the server (part 2 §7, §8).
 */
export function PaymentDialog({ open, purpose, publishableKey, priceId, inTrial, notice, paysDueInvoice = false, onSucceeded, onClose }: PaymentDialogProps) {
  const toast = useToast();
  const subscribe = useCreateSubscription();
  const update = useUpdatePaymentMethod();
  const [clientSecret, setClientSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The card form cannot be set up (the SetupIntent refused, or Stripe.js blocked or offline): no form,
  // the spec's message, and Try again, which starts over.
  const [setupFailed, setSetupFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const [success, setSuccess] = useState<string | null>(null);
  const closeTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const busy = subscribe.isPending || update.isPending;

  useEffect(() => {
    if (!open) return;
    setClientSecret(null);
    setError(null);
    setSetupFailed(false);
    setSuccess(null);
    let live = true;
    createPaymentIntent().then(
      (r) => live && setClientSecret(r.clientSecret),
      () => live && setSetupFailed(true),
    );
    return () => {
      live = false;
    };
  }, [open, attempt]);
  const onLoadFailed = useCallback(() => setSetupFailed(true), []);
  useEffect(() => () => void (closeTimer.current && clearTimeout(closeTimer.current)), []);

  const onResult = async (result: CardStepResult) => {
    setError(null);
    if (result.error) return setError(result.error.message);
    const intent = result.setupIntent;
    if (!intent || intent.status !== 'succeeded' || !intent.payment_method) return setError(m.setupIntentNotSucceeded(intent?.status ?? 'unknown'));
    if (purpose === 'subscribe') {
      try {
        await subscribe.mutateAsync({ paymentMethodId: intent.payment_method, priceId: priceId ?? '' });
        onSucceeded();
        toast.success(m.activatedTitle, m.activated);
        onClose();
      } catch (e) {
        setError(e instanceof ApiError && e.status !== 0 ? m.createFailed(e.message) : m.createError(e instanceof Error ? e.message : String(e)));
      }
      return;
    }
    try {
      await update.mutateAsync(intent.payment_method);
      onSucceeded();
      setSuccess(m.paymentUpdated);
      // Part 2 §4: the payment update modal closes 1.5 s after success.
      closeTimer.current = setTimeout(onClose, 1500);
    } catch (e) {
      if (e instanceof ApiError && (e.status === 0 || e.status >= 500)) setError(m.serverError);
      else if (e instanceof ApiError && e.message.startsWith(m.cardSavedPaymentDeclined(''))) setError(e.message);
      else setError(e instanceof ApiError && e.message ? `${m.updatePaymentFailed} ${e.message}` : m.updatePaymentFailed);
    }
  };

  const injected = injectedCardStep();
  const submitLabel = purpose === 'subscribe' ? 'Subscribe — $4.99 / month' : 'Save card';
  return (
    <Modal open={open} onClose={onClose} title={purpose === 'subscribe' ? 'Subscribe to Premium' : 'Update Payment'} size="md" dismissible={!busy} closeOnBackdrop={false}>
      {notice && <Alert tone="warning">{notice}</Alert>}
      {purpose === 'subscribe' && (
        <p className="muted">
          {inTrial ? '4.99 USD a month. During your free trial nothing is charged until the trial ends. Cancel any time.' : '4.99 USD a month, charged today and then every month. Cancel any time.'}
        </p>
      )}
      {purpose === 'update' && paysDueInvoice && (
        <p className="muted">The renewal that failed (4.99 USD) is charged to the card you save here, at once, and your access comes back.</p>
      )}
      {setupFailed && (
        <Alert tone="danger" title={m.paymentSetupFailed}>
          <Button variant="secondary" size="sm" onClick={() => setAttempt((n) => n + 1)}>
            Try again
          </Button>
        </Alert>
      )}
      {error && <Alert tone="danger">{error}</Alert>}
      {success && <Alert tone="success">{success}</Alert>}
      {!clientSecret && !error && !setupFailed && (
        <div className="payment-loading">
          <Spinner /> Preparing the secure card form…
        </div>
      )}
      {clientSecret && !success && !setupFailed && injected && (
        <div className="payment-form" data-testid="injected-card-step">
          <p className="muted">Card form provided by the test harness (Stripe.js stands-in).</p>
          <Button block loading={busy} onClick={() => injected.confirm(clientSecret).then(onResult, (e: unknown) => onResult({ error: { message: m.unexpected(String(e)) } }))}>
            {submitLabel}
          </Button>
        </div>
      )}
      {clientSecret && !success && !setupFailed && !injected && publishableKey && (
        <Suspense fallback={<Spinner />}>
          <StripeCardForm publishableKey={publishableKey} clientSecret={clientSecret} submitLabel={submitLabel} busy={busy} onResult={(r) => void onResult(r)} onLoadFailed={onLoadFailed} />
        </Suspense>
      )}
    </Modal>
  );
}
