import type { SubscriptionDetails } from '@oj/contracts/subscriptions';
import type { RoleName } from '@oj/contracts/users';
import { Badge, type BadgeTone } from '@/components/ui/badge.tsx';
import { historyRows, type HistoryRow } from '../lib/display-status.ts';

const tone: Record<string, BadgeTone> = { AUTO: 'success', PAID: 'success', TRIAL: 'info', PENDING: 'warning', 'GRACE PERIOD': 'warning', 'Past Due': 'danger', 'ADD PAYMENT': 'info', EXPIRED: 'danger', UNKNOWN: 'neutral' };

function Row({ row, title }: { row: HistoryRow; title: string }) {
  return (
    <li className="history-row">
      <div>
        <div className="history-title">{title}</div>
        <div className="muted">
          {row.prefix}
          {row.date}
        </div>
      </div>
      <Badge tone={tone[row.label] ?? 'neutral'}>{row.label}</Badge>
    </li>
  );
}

/** Subscription History: the next invoice (top) and the last one (bottom), part 2 §4's labels. */
export function HistoryCard({ subscription, privilege }: { subscription: SubscriptionDetails; privilege: RoleName | 7 }) {
  const { top, bottom } = historyRows(subscription, privilege);
  return (
    <section className="card subscription-history" aria-labelledby="subscription-history-title">
      <h2 id="subscription-history-title" className="card-title">
        Subscription History
      </h2>
      {subscription.mode === 'self-hosted' ? (
        // Nothing was ever charged: a "PAID" invoice of $4.99 (the staff rows of part 2 §4) would say otherwise (QA).
        <p className="muted">No invoices: this installation has no billing, so nothing has been charged or ever will be.</p>
      ) : (
        <ul className="history-list">
          <Row row={top} title="Premium — $4.99" />
          <Row row={bottom} title={bottom.label === 'TRIAL' ? 'Free trial — $0.00' : 'Premium — $4.99'} />
        </ul>
      )}
    </section>
  );
}
