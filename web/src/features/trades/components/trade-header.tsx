import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { formatDate, formatMoney } from '@/lib/format.ts';
import { formatStrikes, openActionLabel } from '../utils/trade-labels.ts';
import { strategyName } from './trade-cells.tsx';

/** The trade a dialog acts on: ticker, strategy, open action, opening premium, open and expiration dates (red once expired). */
export function TradeHeader({ trade, today }: { trade: TradeListItem; today: string }) {
  const expired = trade.ed < today;
  return (
    <div className="trade-header">
      <div className="trade-header-main">
        <span className="trade-header-ticker">{trade.ticker}</span>
        <span className="trade-header-strategy">{strategyName(trade.su)}</span>
        <span className={`tc-action tc-action-${openActionLabel(trade.ot).toLowerCase()}`}>{openActionLabel(trade.ot)}</span>
      </div>
      <dl className="trade-header-facts">
        <div>
          <dt>Premium</dt>
          <dd>{formatMoney(trade.pao)}</dd>
        </div>
        <div>
          <dt>Strikes</dt>
          <dd>{formatStrikes(trade.sp)}</dd>
        </div>
        <div>
          <dt>Contracts</dt>
          <dd>{trade.cs}</dd>
        </div>
        <div>
          <dt>Opened</dt>
          <dd>{formatDate(trade.tod)}</dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd className={expired ? 'tc-danger' : undefined}>
            {formatDate(trade.ed)}
            {expired ? ' (expired)' : ''}
          </dd>
        </div>
      </dl>
    </div>
  );
}
