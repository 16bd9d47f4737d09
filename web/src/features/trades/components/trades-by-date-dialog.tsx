import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { Alert } from '../../../components/ui/alert.tsx';
import { EmptyState } from '../../../components/ui/empty-state.tsx';
import { Modal } from '../../../components/ui/modal.tsx';
import { Spinner } from '../../../components/ui/spinner.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { formatDate, formatMoney } from '../../../lib/format.ts';
import { useTradesByDate } from '../api/get-trades-by-date.ts';
import { formatStrikes, openActionLabel, signOf } from '../utils/trade-labels.ts';
import { Summary } from './form-controls.tsx';
import { strategyName } from './trade-cells.tsx';

/** The day's trades in the spec's sections; a scalp (opened and closed that day) counts as two trades. */
export function groupTradesOfDate(trades: readonly TradeListItem[], date: string) {
  const scalp = trades.filter((t) => t.tod === date && t.tcd === date);
  const opened = trades.filter((t) => t.tod === date && t.tcd !== date);
  const closed = trades.filter((t) => t.tcd === date && t.tod !== date);
  // Credit adds, debit subtracts: opens by their open transaction, closes by their close transaction.
  const openSum = (xs: TradeListItem[]) => xs.reduce((s, t) => s + signOf(t.ot) * t.pao, 0);
  const closeSum = (xs: TradeListItem[]) => xs.reduce((s, t) => s + signOf(t.ct) * (t.pac ?? 0), 0);
  const net = openSum(opened) + openSum(scalp) + closeSum(closed) + closeSum(scalp);
  return { opened, scalp, closed, count: opened.length + closed.length + 2 * scalp.length, net };
}

function Section({ title, trades }: { title: string; trades: TradeListItem[] }) {
  return (
    <section className="by-date-section" aria-label={title}>
      <h3>
        {title} <span className="muted">({trades.length})</span>
      </h3>
      {trades.length === 0 ? (
        <p className="muted">None</p>
      ) : (
        <ul className="by-date-list">
          {trades.map((t) => (
            <li key={t.uid}>
              <strong>{t.ticker}</strong> <span className="muted">{strategyName(t.su)}</span> <span>{formatStrikes(t.sp)}</span>{' '}
              <span className="tc-num">
                {formatMoney(t.pao)} {openActionLabel(t.ot)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Trades-by-date: Summary, Open Trades, Scalp Trades, Closed Trades (part 1 §2). */
export function TradesByDateDialog({ date, onClose }: { date: string; onClose: () => void }) {
  const query = useTradesByDate(date);
  const groups = query.data ? groupTradesOfDate(query.data, date) : null;
  const failure = query.error instanceof ApiError && typeof query.error.detail === 'string' ? query.error.detail : 'Failed to fetch trades.';
  return (
    <Modal open onClose={onClose} title={`Trades on ${formatDate(date)}`} size="md">
      {query.isPending ? (
        <div className="dialog-loading">
          <Spinner label="Loading trades" />
        </div>
      ) : query.isError || !groups ? (
        <Alert tone="danger">{failure}</Alert>
      ) : query.data.length === 0 ? (
        <EmptyState title="No trade data available" />
      ) : (
        <div className="by-date">
          <section className="by-date-section" aria-label="Summary">
            <h3>Summary</h3>
            <Summary
              rows={[
                ['Trades', String(groups.count)],
                ['Net Premium', formatMoney(groups.net)],
              ]}
            />
          </section>
          <Section title="Open Trades" trades={groups.opened} />
          <Section title="Scalp Trades" trades={groups.scalp} />
          <Section title="Closed Trades" trades={groups.closed} />
        </div>
      )}
    </Modal>
  );
}
