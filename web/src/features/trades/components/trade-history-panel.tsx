import type { FieldChange, TradeChange } from '@oj/contracts/audit';
import { tradeShortId } from '@oj/contracts/trades';
import { tradeStatusNames } from '@oj/contracts/journal-events';
import { Alert } from '@/components/ui/alert.tsx';
import { Badge } from '@/components/ui/badge.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { formatDateTime } from '@/lib/format.ts';
import { useTradeHistory } from '../api/get-trade-history.ts';
import './trade-history-panel.css';

const labels: Record<string, string> = { TradeOpened: 'Opened', TradeClosed: 'Closed', TradeRolled: 'Rolled', TradeSplit: 'Split', TradeEdited: 'Edited', TradeDeleted: 'Deleted' };
const fieldLabels: Record<string, string> = {
  ticker: 'Ticker', strategyUid: 'Strategy', accountUid: 'Account', strikePrices: 'Strikes', openDate: 'Open date', expirationDate: 'Expiration',
  contractSize: 'Contracts', premiumAtOpen: 'Premium at open', netFeeToOpen: 'Fee to open', openTransaction: 'Open action', netDelta: 'Net delta',
  stockPriceAtOpen: 'Stock price at open', costBasis: 'Cost basis', leapsValue: 'LEAPS value', notes: 'Notes', tags: 'Tags', status: 'Status', close: 'Close',
  rolledFrom: 'Rolled from', ancestorUid: 'Split from', partialOf: 'Remainder of', hasRollHistory: 'Has roll history',
};
const statusNames: Record<number, string> = tradeStatusNames;

function show(field: string, v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (field === 'status' && typeof v === 'number') return statusNames[v] ?? String(v);
  if (field === 'close' && typeof v === 'object') {
    const c = v as { closeDate?: string; premiumAtClose?: number; netFeeToClose?: number; closeAction?: string };
    return `${c.closeAction ?? ''} ${c.closeDate ?? ''} at ${c.premiumAtClose ?? 0}, fee ${c.netFeeToClose ?? 0}`.trim();
  }
  if (Array.isArray(v)) return v.join(' / ');
  if (typeof v === 'string') return v === '' ? '(empty)' : v;
  return String(v);
}

function Changes({ change, self }: { change: TradeChange; self: boolean }) {
  // A created trade lists only the fields it was created with; a changed one, old and new values.
  const fields: FieldChange[] = change.change === 'created' ? [] : change.fields.filter((f) => f.field !== 'hasRollHistory' || change.fields.length === 1);
  return (
    <div className="history-change">
      <div className="muted">
        {change.change === 'created' ? 'New trade' : change.change === 'removed' ? 'Trade removed' : 'Changed'} <code>{tradeShortId(change.uid)}</code>
        {self && ' (this trade)'}
      </div>
      {fields.length > 0 && change.change === 'changed' && (
        <ul>
          {fields.map((f) => (
            <li key={f.field}>
              {fieldLabels[f.field] ?? f.field}: <s className="history-old">{show(f.field, f.before)}</s> → <strong>{show(f.field, f.after)}</strong>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The History tab of the trade detail dialog: the trade's lineage, event by event (own trades only). */
export function TradeHistoryPanel({ uid }: { uid: string }) {
  const history = useTradeHistory(uid, true);
  if (history.isPending) return <Spinner label="Loading the history" />;
  if (history.isError) return <Alert tone="danger">{errorMessage(history.error, 'Could not load the history.')}</Alert>;
  return (
    <ol className="trade-history" aria-label="Trade history">
      {history.data.items.map((e) => (
        <li key={e.position}>
          <div className="trade-history-head">
            <Badge tone={e.type === 'TradeDeleted' ? 'danger' : e.type === 'TradeEdited' ? 'neutral' : 'primary'}>{labels[e.type] ?? e.type}</Badge>
            <span className="muted">{formatDateTime(e.recorded_at)}</span>
            {e.actor_role !== 'trader' && <Badge tone="warning">by {e.actor_role}</Badge>}
          </div>
          <div>{e.sentence}</div>
          {e.trades.map((c) => (
            <Changes key={c.uid} change={c} self={c.uid === uid} />
          ))}
        </li>
      ))}
    </ol>
  );
}
