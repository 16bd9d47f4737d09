import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { EmptyState } from '@/components/ui/empty-state.tsx';
import { Modal } from '@/components/ui/modal.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { formatDate, formatDateTime, formatMoney } from '@/lib/format.ts';
import { useSplitHistory } from '../api/get-split-history.ts';
import { closedStatusLabel, formatStrikes, openActionLabel } from '../utils/trade-labels.ts';
import { Summary } from './form-controls.tsx';
import { strategyName } from './trade-cells.tsx';
import './trade-dialogs.css';

/** Split History: the two-leg trade as it was, and the trades its legs became (part 1 §2, §3 "Histories"). */
export function SplitHistoryDialog({ trade, onClose }: { trade: TradeListItem; onClose: () => void }) {
  const auid = trade.auid ?? trade.uid;
  const history = useSplitHistory(auid, trade.uid);
  const record = history.data;
  return (
    <Modal open onClose={onClose} title={`Split History · ${trade.ticker}`} size="md" closeOnBackdrop={false}>
      {history.isPending ? (
        <div className="dialog-loading">
          <Spinner label="Loading split history" />
        </div>
      ) : history.isError ? (
        <Alert tone="danger">
          {errorMessage(history.error, 'Failed to fetch split history')}{' '}
          <Button size="sm" variant="secondary" onClick={() => void history.refetch()}>
            Retry
          </Button>
        </Alert>
      ) : !record || record.trades.length === 0 ? (
        <EmptyState title="No split history data available" />
      ) : (
        <div className="split-history">
          <section className="detail-panel">
            <h3>Original: {strategyName(record.su)}</h3>
            <Summary
              rows={[
                ['Open Date', formatDate(record.gene.tod)],
                ['Expiration Date', formatDate(record.gene.ed)],
                ['Contracts', String(record.gene.cs)],
                ['Premium at Open', formatMoney(record.gene.pao)],
                record.gene.cause ? ['Cause', record.gene.cause] : null,
                ['Split On', formatDateTime(record.created_at)],
              ]}
            />
          </section>
          <ol className="split-legs">
            {record.trades.map((t) => (
              <li key={t.uid} className={`detail-panel${t.uid === trade.uid ? ' roll-node-current' : ''}`}>
                <h3>
                  {strategyName(t.su)} <span className="muted">{formatStrikes(t.sp)}</span>
                </h3>
                <Summary
                  rows={[
                    ['Status', t.status === 1 ? 'Open' : closedStatusLabel(t)],
                    ['Premium at Open', `${formatMoney(t.pao)} ${openActionLabel(t.ot)}`],
                    t.tcd ? ['Closed', formatDate(t.tcd)] : null,
                    t.pac !== null ? ['Premium at Close', formatMoney(t.pac)] : null,
                  ]}
                />
              </li>
            ))}
          </ol>
        </div>
      )}
    </Modal>
  );
}
