import { createColumnHelper } from '@tanstack/react-table';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { BREAKABLE_STRATEGY_TYPE, strategyByUid } from '@oj/contracts/strategies';
import { formatDate, formatMoney } from '@/lib/format.ts';
import { openActionLabel } from '../utils/trade-labels.ts';
import type { TradeTableMeta } from './trade-actions.ts';
import { ExpiryText, OpenDateCell, StrikeCell, TickerCell } from './trade-cells.tsx';
import { TradeRowMenu } from './trade-row-menu.tsx';

const col = createColumnHelper<TradeListItem>();

/** Open and Expiring lists (part 1 §2). */
export const openTradeColumns = [
  col.display({ id: 'ticker', header: 'Ticker', cell: ({ row }) => <TickerCell trade={row.original} /> }),
  col.display({ id: 'strikes', header: 'Strikes', cell: ({ row }) => <StrikeCell trade={row.original} /> }),
  col.display({
    id: 'open',
    header: 'Open Date',
    cell: ({ row, table }) => {
      const meta = table.options.meta as TradeTableMeta;
      return <OpenDateCell trade={row.original} accountName={meta.accountName(row.original.au)} onAction={meta.onAction} />;
    },
  }),
  col.display({
    id: 'expiry',
    header: 'Exp Date',
    cell: ({ row, table }) => (
      <div className="tc-stack">
        <span>{formatDate(row.original.ed)}</span>
        <ExpiryText ed={row.original.ed} today={(table.options.meta as TradeTableMeta).today} />
      </div>
    ),
  }),
  col.display({
    id: 'premium',
    header: 'Premium',
    cell: ({ row }) => (
      <div className="tc-stack">
        <span className="tc-num">{formatMoney(row.original.pao)}</span>
        <span className={`tc-action tc-action-${openActionLabel(row.original.ot).toLowerCase()}`}>{openActionLabel(row.original.ot)}</span>
      </div>
    ),
  }),
  col.display({
    id: 'exit',
    header: 'Exit',
    cell: ({ row, table }) => {
      const { onAction } = table.options.meta as TradeTableMeta;
      const trade = row.original;
      const breakable = strategyByUid(trade.su)?.type === BREAKABLE_STRATEGY_TYPE;
      return (
        <div className="tc-exit">
          <button type="button" className="btn btn-sm tc-exit-close" onClick={() => onAction({ type: 'close', trade })} aria-label={`Close ${trade.ticker}`}>
            CLOSE
          </button>
          <button type="button" className="btn btn-sm tc-exit-roll" onClick={() => onAction({ type: 'roll', trade })} aria-label={`Roll ${trade.ticker}`}>
            ROLL
          </button>
          {breakable && (
            <button type="button" className="btn btn-sm tc-exit-break" onClick={() => onAction({ type: 'split', trade })} aria-label={`Break ${trade.ticker}`}>
              BREAK
            </button>
          )}
        </div>
      );
    },
  }),
  col.display({
    id: 'menu',
    header: () => <span className="visually-hidden">Actions</span>,
    cell: ({ row, table }) => <TradeRowMenu trade={row.original} variant="open" meta={table.options.meta as TradeTableMeta} />,
  }),
];
