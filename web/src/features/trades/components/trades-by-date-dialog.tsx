import { tradeDaySummary, type TradeDaySection, type TradeOfDay } from '@oj/contracts/trade-views';
import type { ReactNode } from 'react';
import { Alert } from '@/components/ui/alert.tsx';
import { EmptyState } from '@/components/ui/empty-state.tsx';
import { Modal } from '@/components/ui/modal.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { ApiError } from '@/lib/api-client.ts';
import { formatDate, formatMoney } from '@/lib/format.ts';
import { useTradesByDate } from '../api/get-trades-by-date.ts';
import { closeActionLabel, formatStrikes, openActionLabel } from '../utils/trade-labels.ts';
import { Summary } from './form-controls.tsx';
import { strategyName } from './trade-cells.tsx';
import './trade-dialogs.css';
import { TickerLogo } from '@/components/ticker-logo.tsx';

function Section({ title, section, day, closing = false }: { title: string; section: TradeDaySection; day: readonly TradeOfDay[]; closing?: boolean }) {
  const trades = day.filter((t) => t.section === section);
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
              <TickerLogo ticker={t.ticker} size={20} /> <strong>{t.ticker}</strong> <span className="muted">{strategyName(t.su)}</span> <span>{formatStrikes(t.sp)}</span>{' '}
              <span className="tc-num">
                {formatMoney(t.pao)} {openActionLabel(t.ot)}
                {closing && t.pac !== null ? ` · ${formatMoney(t.pac)} ${closeActionLabel(t.ct)}` : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Trades-by-date: Summary, Open Trades, Scalp Trades, Closed Trades (part 1 §2). */
export function TradesByDateDialog({ date, onClose, footer }: { date: string; onClose: () => void; footer?: ReactNode }) {
  const query = useTradesByDate(date);
  const day = query.data;
  const summary = day ? tradeDaySummary(day) : undefined;
  const failure = query.error instanceof ApiError && typeof query.error.detail === 'string' ? query.error.detail : 'Failed to fetch trades.';
  return (
    <Modal open onClose={onClose} title={`Trades on ${formatDate(date)}`} size="md" footer={footer}>
      {query.isPending ? (
        <div className="dialog-loading">
          <Spinner label="Loading trades" />
        </div>
      ) : query.isError || !day || !summary ? (
        <Alert tone="danger">{failure}</Alert>
      ) : summary.trades === 0 ? (
        <EmptyState title="No trade data available" />
      ) : (
        <div className="by-date">
          <section className="by-date-section" aria-label="Summary">
            <h3>Summary</h3>
            <Summary
              rows={[
                ['Trades', String(summary.trades)],
                ['Premium', formatMoney(summary.premium)],
                ['Fees', formatMoney(summary.fees)],
                ['Net', formatMoney(summary.net)],
              ]}
            />
          </section>
          <Section title="Open Trades" section="open" day={day} />
          <Section title="Scalp Trades" section="scalp" day={day} closing />
          <Section title="Closed Trades" section="closed" day={day} closing />
        </div>
      )}
    </Modal>
  );
}
