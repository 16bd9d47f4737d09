import type { SubscriptionDetails } from '@oj/contracts/subscriptions';
import { Badge } from '@/components/ui/badge.tsx';
import { Button } from '@/components/ui/button.tsx';
import { DropdownMenu } from '@/components/ui/dropdown-menu.tsx';
import { Icon } from '@/components/ui/icons.tsx';
import { longDate, longDateTime, type DisplayStatus } from '../lib/display-status.ts';

export interface StatusCardProps {
  status: DisplayStatus;
  subscription: SubscriptionDetails | undefined;
  busy: boolean;
  onSubscribe: () => void;
  onCancel: () => void;
  onUncancel: () => void;
  onReactivate: () => void;
  onUpdatePayment: () => void;
  onRenew: () => void;
}

/** The status card: one variant per display status of part 2 §4; the card menu only when active, as §4 has it. */
export function StatusCard({ status, subscription, busy, onSubscribe, onCancel, onUncancel, onReactivate, onUpdatePayment, onRenew }: StatusCardProps) {
  const card = subscription?.card;
  return (
    <section className="card subscription-status" aria-labelledby="subscription-status-title">
      <div className="subscription-card-head">
        <h2 id="subscription-status-title" className="card-title">
          <Icon name="star" /> Premium
        </h2>
        {status.kind === 'active' && (
          <DropdownMenu
            label="Subscription actions"
            trigger={<Icon name="more" />}
            triggerClassName="icon-button"
            items={[
              { label: 'Cancel Subscription', onSelect: onCancel, tone: 'danger' },
              { label: 'Update Payment', onSelect: onUpdatePayment },
            ]}
          />
        )}
      </div>
      <StatusBody status={status} busy={busy} onSubscribe={onSubscribe} onCancel={onCancel} onUncancel={onUncancel} onReactivate={onReactivate} onRenew={onRenew} />
      {card && status.kind !== 'selfHosted' && status.kind !== 'staff' && (
        <p className="muted subscription-card-on-file">
          <Icon name="card" size={16} /> {card.brand.toUpperCase()} ending in {card.last4}, expires {String(card.exp_month).padStart(2, '0')}/{card.exp_year}
        </p>
      )}
    </section>
  );
}

function StatusBody({ status, busy, onSubscribe, onCancel, onUncancel, onReactivate, onRenew }: Pick<StatusCardProps, 'status' | 'busy' | 'onSubscribe' | 'onCancel' | 'onUncancel' | 'onReactivate' | 'onRenew'>) {
  const active = (
    <Button variant="secondary" disabled>
      Active
    </Button>
  );
  switch (status.kind) {
    case 'selfHosted':
      return (
        <div className="subscription-body">
          <Badge tone="success">Self-hosted</Badge>
          <p className="subscription-headline">Premium without end</p>
          <p className="muted">This journal runs without payments (no Stripe keys are configured), so every user has every Premium feature, for good.</p>
          {active}
        </div>
      );
    case 'staff':
      return (
        <div className="subscription-body">
          <p className="subscription-headline">{status.title}</p>
          <p className="muted">Expiration: Future</p>
          {active}
        </div>
      );
    case 'none':
      return (
        <div className="subscription-body">
          <p className="subscription-headline">No Active Subscription</p>
          <Button onClick={onSubscribe}>Subscribe</Button>
        </div>
      );
    case 'trial':
      return status.renews ? (
        <div className="subscription-body">
          <Badge tone="info">Free trial</Badge>
          <p className="subscription-headline">Trial ends {longDate(status.end)}</p>
          <p>After trial period, auto renews {longDate(status.end)}</p>
          {active}
          {/* "Cancel any time" (part 2 §1): subscribed in the trial, the first charge can still be called off
              (QA); the card menu stays for active plans, as part 2 §4 has it. */}
          <Button variant="ghost" size="sm" onClick={onCancel}>
            Cancel before the first charge
          </Button>
        </div>
      ) : (
        <div className="subscription-body">
          <Badge tone="info">Free trial</Badge>
          <p className="subscription-headline">Your trial ends on {longDate(status.end)}. Subscribe to continue.</p>
          <Button onClick={onSubscribe}>Subscribe</Button>
        </div>
      );
    case 'active':
      return (
        <div className="subscription-body">
          <Badge tone="success">Active</Badge>
          <p className="subscription-headline">Renews on {longDate(status.renews)}</p>
          {active}
        </div>
      );
    case 'renewing':
      return (
        <div className="subscription-body">
          <Badge tone="info">Renewing</Badge>
          <p className="subscription-headline">Your renewal is being processed</p>
          <p className="muted">
            The period that ended {longDate(status.periodEnded)} is being renewed: Stripe charges your card within the hour. Your access continues meanwhile.
          </p>
          {active}
        </div>
      );
    case 'pendingCancellation':
      return (
        <div className="subscription-body">
          <Badge tone="warning">Pending cancellation</Badge>
          <p className="subscription-headline">Your subscription will cancel on {longDate(status.cancels)}</p>
          <Button onClick={onUncancel} loading={busy}>
            Uncancel
          </Button>
        </div>
      );
    case 'expired':
      return (
        <div className="subscription-body">
          <Badge tone="danger">{status.canceled ? 'Canceled' : 'Expired'}</Badge>
          <p className="subscription-headline">Expired Plan</p>
          <p>Reactivate your subscription to restore access.</p>
          <Button onClick={onReactivate} loading={busy}>
            Reactivate
          </Button>
        </div>
      );
    case 'due':
      return (
        <div className="subscription-body">
          <Badge tone="warning">Grace period</Badge>
          <p className="subscription-headline">Grace period active. Renew to restore access.</p>
          {status.graceEnds && <p className="muted">Renew by {longDateTime(status.graceEnds)} to keep your plan; after that it expires until you reactivate.</p>}
          <Button onClick={onRenew}>Renew</Button>
        </div>
      );
    case 'other':
      return (
        <div className="subscription-body">
          <p className="subscription-headline">Unknown Status, please contact support</p>
        </div>
      );
  }
}
