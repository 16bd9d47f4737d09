import { createColumnHelper } from '@tanstack/react-table';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { formatDate, formatMoney, formatMoneyShort, formatPercent } from '@/lib/format.ts';
import { holdingPeriod } from '../utils/expiry.ts';
import { closedStatusLabel } from '../utils/trade-labels.ts';
import type { TradeTableMeta } from './trade-actions.ts';
import { OpenDateCell, StrikeCell, TickerCell } from './trade-cells.tsx';
import { TradeRowMenu } from './trade-row-menu.tsx';

const col = createColumnHelper<TradeListItem>();

const signedClass = (n: number | null) => (n === null ? '' : n > 0 ? ' tc-success' : n < 0 ? ' tc-danger' : '');

/** Closed and Rolled lists (part 1 §2). */
export const closedTradeColumns = [
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
    cell: ({ row }) => (
      <div className="tc-stack">
        <span>{formatDate(row.original.ed)}</span>
        <span className="tc-sub">{holdingPeriod(row.original.do)}</span>
      </div>
    ),
  }),
  col.display({
    id: 'closed',
    header: 'Closed Date',
    cell: ({ row }) => (
      <div className="tc-stack">
        <span>{formatDate(row.original.tcd)}</span>
        {/* Part 1 §4: "Closed Date with disposition", how it ended as the dashboard and pulse count it
            ("Early Exit", "Expired", "Rolled"); the status with its close action where there is none. */}
        <span className="tc-sub">{row.original.dis ?? closedStatusLabel(row.original)}</span>
      </div>
    ),
  }),
  col.display({
    id: 'premiums',
    header: 'Open / Close Premium',
    cell: ({ row }) => (
      <div className="tc-stack">
        <span className="tc-num">{formatMoney(row.original.pao)}</span>
        <span className="tc-sub tc-num">{formatMoney(row.original.pac)}</span>
      </div>
    ),
  }),
  col.display({
    id: 'net',
    header: 'Net Premium',
    cell: ({ row }) => (
      <div className="tc-stack">
        <span className={`tc-num${signedClass(row.original.npc)}`}>{formatMoney(row.original.npc)}</span>
        <span className="tc-sub tc-num">Fee {formatMoney(row.original.nfto + (row.original.nftc ?? 0))}</span>
      </div>
    ),
  }),
  col.display({
    id: 'collateral',
    header: 'Collateral',
    cell: ({ row }) => (
      <div className="tc-stack">
        {/* Part 1 §9: amounts abbreviate with K and M from 1000; the exact figure is the title. */}
        <span className="tc-num" title={formatMoney(row.original.c)}>
          {formatMoneyShort(row.original.c)}
        </span>
        <span className="tc-sub tc-num">ROR {formatPercent(row.original.ror)}</span>
        <span className="tc-sub tc-num">ARR {formatPercent(row.original.aroc)}</span>
      </div>
    ),
  }),
  col.display({
    id: 'menu',
    header: () => <span className="visually-hidden">Actions</span>,
    cell: ({ row, table }) => <TradeRowMenu trade={row.original} variant="closed" meta={table.options.meta as TradeTableMeta} />,
  }),
];
