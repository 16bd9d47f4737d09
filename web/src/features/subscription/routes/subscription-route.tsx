import { useEffect, useRef, useState } from 'react';
import { billingMessages as m } from '@oj/contracts/billing';
import { PageHeader } from '@/components/layout/page-header.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import { LoadingOverlay } from '@/components/ui/loading-overlay.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { ApiError, errorMessage, refreshAccessToken } from '@/lib/api-client.ts';
import { useSession } from '@/features/auth/hooks/use-session.ts';
import { useCancelSubscription } from '../api/cancel-subscription.ts';
import { useSubscription } from '../api/get-subscription.ts';
import { useReactivateSubscription } from '../api/reactivate-subscription.ts';
import { GuideModal } from '../components/guide-modal.tsx';
import { HistoryCard } from '../components/history-card.tsx';
import { PaymentDialog, type PaymentPurpose } from '../components/payment-dialog.tsx';
import { PlanCard } from '../components/plan-card.tsx';
import { StatusCard } from '../components/status-card.tsx';
import { displayStatus } from '../lib/display-status.ts';
import '../subscription.css';

/** "Manage Your Subscription" (part 2 §2): status, history and plan cards, the guide, payments. */
export function SubscriptionRoute() {
  const session = useSession();
  const subscription = useSubscription();
  const cancel = useCancelSubscription();
  const reactivate = useReactivateSubscription();
  const toast = useToast();
  const [payment, setPayment] = useState<PaymentPurpose | null>(null);
  const [paymentNotice, setPaymentNotice] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<'cancel' | 'uncancel' | null>(null);
  const [confirmError, setConfirmError] = useState<string | null>(null);
  const [guide, setGuide] = useState(false);
  // The last subscription action's failure, shown until another action succeeds (QA: a declined
  // Reactivate's "Your card was declined." stayed above the Active card after another card paid).
  const [pageError, setPageError] = useState<string | null>(null);
  const actionSucceeded = () => setPageError(null);

  const sub = subscription.data;
  const status = displayStatus(sub, session.privilege, new Date());

  // The session's status comes from the access token, which lives 15 minutes; a change made elsewhere (a
  // webhook: a failed renewal, a renewal) shows here first. A token that disagrees is refreshed once, so
  // the locked screens and the sidebar follow.
  const grantsAccess = ['selfHosted', 'staff', 'trial', 'active', 'renewing', 'pendingCancellation'].includes(status.kind);
  const refreshedFor = useRef<string | null>(null);
  useEffect(() => {
    if (!sub || grantsAccess === session.subscriptionActive) return;
    const key = `${sub.status}:${sub.cpe}:${grantsAccess}`;
    if (refreshedFor.current === key) return;
    refreshedFor.current = key;
    void refreshAccessToken(session.accessToken);
  }, [sub, grantsAccess, session.subscriptionActive, session.accessToken]);

  const runConfirm = () => {
    setConfirmError(null);
    if (confirm === 'cancel') {
      cancel.mutate(undefined, {
        onSuccess: () => {
          actionSucceeded();
          setConfirm(null);
          toast.success(m.canceled);
        },
        onError: () => setConfirmError(m.cancelFailed),
      });
    } else if (confirm === 'uncancel') {
      reactivate.mutate(undefined, {
        onSuccess: () => {
          actionSucceeded();
          setConfirm(null);
          toast.success(m.restored);
        },
        onError: () => setConfirmError(m.uncancelFailed),
      });
    }
  };

  // Reactivate charges the card on file at once; without one, it is a new subscription with a card.
  const onReactivate = () => {
    setPageError(null);
    if (!sub?.pm) return setPayment('subscribe');
    reactivate.mutate(undefined, {
      onSuccess: () => {
        actionSucceeded();
        toast.success(m.activatedTitle, m.activated);
      },
      onError: (e) => {
        setPageError(errorMessage(e, m.serverError));
        // The card on file was declined: another card subscribes anew (QA: Reactivate tried the dead card
        // again on every click, and nothing else was offered).
        if (e instanceof ApiError && e.status === 402) {
          setPaymentNotice(m.reactivateDeclined(e.message));
          setPayment('subscribe');
        }
      },
    });
  };

  return (
    <>
      <PageHeader
        title="Manage Your Subscription"
        description="Your plan, trial and billing history."
        breadcrumb={[{ label: 'Home', to: '/dashboard' }, { label: 'Subscription' }]}
        actions={
          <Button variant="secondary" onClick={() => setGuide(true)}>
            Subscription Guide
          </Button>
        }
      />
      {subscription.isError && (
        <Alert tone="danger">
          {errorMessage(subscription.error, 'Failed to fetch subscription.')}{' '}
          {!sub && (
            <Button size="sm" variant="secondary" onClick={() => void subscription.refetch()}>
              Try again
            </Button>
          )}
        </Alert>
      )}
      {pageError && <Alert tone="danger">{pageError}</Alert>}
      <LoadingOverlay show={subscription.isPending}>
        <div className="subscription-grid">
          {/* A subscription that could not be read is not "No Active Subscription" with a Subscribe button (QA). */}
          {(sub || !subscription.isError) && (
            <StatusCard
              status={status}
              subscription={sub}
              busy={reactivate.isPending}
              onSubscribe={() => setPayment('subscribe')}
              onCancel={() => setConfirm('cancel')}
              onUncancel={() => setConfirm('uncancel')}
              onReactivate={onReactivate}
              onUpdatePayment={() => setPayment('update')}
              onRenew={() => setPayment('update')}
            />
          )}
          {sub && <HistoryCard subscription={sub} privilege={session.privilege} />}
          <PlanCard billing={sub?.mode !== 'self-hosted'} />
        </div>
      </LoadingOverlay>
      <PaymentDialog open={payment !== null} purpose={payment ?? 'subscribe'} publishableKey={sub?.publishable_key ?? null} priceId={sub?.price_id ?? null} inTrial={status.kind === 'trial'}
        notice={payment === 'subscribe' ? paymentNotice : null}
        paysDueInvoice={status.kind === 'due'}
        onSucceeded={actionSucceeded}
        onClose={() => {
          setPayment(null);
          setPaymentNotice(null);
        }}
      />
      <ConfirmDialog
        open={confirm !== null}
        title={confirm === 'cancel' ? 'Cancel Subscription' : 'Uncancel Subscription'}
        message={confirm === 'cancel' ? m.cancelConfirm : m.uncancelConfirm}
        tone={confirm === 'cancel' ? 'danger' : 'primary'}
        confirmLabel="Yes"
        cancelLabel="No"
        busy={cancel.isPending || reactivate.isPending}
        error={confirmError}
        onConfirm={runConfirm}
        onCancel={() => {
          setConfirm(null);
          setConfirmError(null);
        }}
      />
      <GuideModal open={guide} onClose={() => setGuide(false)} />
    </>
  );
}
