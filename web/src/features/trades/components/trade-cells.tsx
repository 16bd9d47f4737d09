import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { strategyByUid } from '@oj/contracts/strategies';
import { daysBetween } from '@oj/contracts/business-date';
import { Tooltip } from '@/components/ui/tooltip.tsx';
import { TickerLogo } from '@/components/ticker-logo.tsx';
import { formatDate } from '@/lib/format.ts';
import { expiryDisplay } from '../utils/expiry.ts';
import { formatStrikes, trimNumber } from '../utils/trade-labels.ts';
import { NoteIcon } from './icons.tsx';
import type { TradeAction } from './trade-actions.ts';

export const strategyName = (su: string): string => strategyByUid(su)?.name ?? su;

/**
 * Ticker over strategy, with the note as a tooltip on its icon (below it: above, it would cover the column
 * header of the first rows); on paper, the note's text under the strategy instead of the icon.
 */
export function TickerCell({ trade }: { trade: TradeListItem }) {
  return (
    <div className="ticker-with-logo">
      <TickerLogo ticker={trade.ticker} />
      {/* On paper the note is printed under the strategy (trades.css), where its icon cannot be hovered. */}
      <div className="tc-stack" data-note={trade.notes || undefined}>
        <span className="tc-ticker">
          {trade.ticker}
          {trade.notes && (
            <Tooltip content={trade.notes} placement="bottom">
              <button type="button" className="tc-note" aria-label={`Notes: ${trade.notes}`}>
                <NoteIcon />
              </button>
            </Tooltip>
          )}
        </span>
        <span className="tc-sub">{strategyName(trade.su)}</span>
      </div>
    </div>
  );
}

export function StrikeCell({ trade }: { trade: TradeListItem }) {
  return (
    <div className="tc-stack">
      <span>{formatStrikes(trade.sp)}</span>
      <span className="tc-sub">
        Δ {trimNumber(trade.nd)} · {trade.cs} {trade.cs === 1 ? 'contract' : 'contracts'}
      </span>
    </div>
  );
}

/** Open date (a button to the trades of that day) over the account name. */
export function OpenDateCell({ trade, accountName, onAction }: { trade: TradeListItem; accountName: string; onAction: (a: TradeAction) => void }) {
  return (
    <div className="tc-stack">
      <button type="button" className="tc-link" onClick={() => onAction({ type: 'by-date', date: trade.tod })} title="Trades of this date">
        {formatDate(trade.tod)}
      </button>
      <span className="tc-sub">{accountName}</span>
    </div>
  );
}

export function ExpiryText({ ed, today }: { ed: string; today: string }) {
  const { text, tone } = expiryDisplay(daysBetween(today, ed));
  return <span className={`tc-expiry tc-${tone}`}>{text}</span>;
}
