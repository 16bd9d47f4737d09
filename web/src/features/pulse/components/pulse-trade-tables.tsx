import type { ReactNode } from 'react';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { Icon } from '@/components/ui/icons.tsx';
import { strategyByUid } from '@oj/contracts/strategies';
import { formatDate, formatStrikes, formatMoney, formatPercent } from '@/lib/format.ts';

const name = (su: string) => strategyByUid(su)?.name ?? su;
const signed = (t: TradeListItem) => (t.ot === 2 ? -t.pao : t.pao);

function ShareCell({ trade, onShare }: { trade: TradeListItem; onShare: (t: TradeListItem) => void }) {
  return (
    <td className="pulse-share-cell">
      <button type="button" className="icon-button" aria-label={`Share ${trade.ticker} ${name(trade.su)} trade`} title="Share trade" onClick={() => onShare(trade)}>
        <Icon name="share" size={16} />
      </button>
    </td>
  );
}

interface Column {
  header: string;
  /** A figure: right-aligned. */
  num?: boolean;
  cell: (t: TradeListItem) => ReactNode;
  /** Extra class of the cell (gain or loss colour). */
  tone?: (t: TradeListItem) => string;
}

/** One of the pulse tables: the ticker's trades in the window, a row each, Share at the end when given. */
function PulseTable({ trades, empty, columns, onShare }: { trades: TradeListItem[]; empty: string; columns: Column[]; onShare?: ((t: TradeListItem) => void) | undefined }) {
  if (trades.length === 0) return <p className="pulse-empty">{empty}</p>;
  return (
    <div className="pulse-table-wrap">
      <table className="pulse-table phone-cards">
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} scope="col" className={c.num ? 'num' : undefined}>
                {c.header}
              </th>
            ))}
            {onShare && <th scope="col" aria-label="Share" />}
          </tr>
        </thead>
        <tbody>
          {trades.map((t) => (
            <tr key={t.uid}>
              {columns.map((c) => (
                <td key={c.header} data-label={c.header} className={[c.num ? 'num' : '', c.tone?.(t) ?? ''].filter(Boolean).join(' ') || undefined}>
                  {c.cell(t)}
                </td>
              ))}
              {onShare && <ShareCell trade={t} onShare={onShare} />}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const tone = (x: number) => (x >= 0 ? 'pulse-pos' : 'pulse-neg');

const openColumns: Column[] = [
  { header: 'Strategy', cell: (t) => name(t.su) },
  { header: 'Strikes', cell: (t) => formatStrikes(t.sp) },
  { header: 'Opened', cell: (t) => formatDate(t.tod) },
  { header: 'Expires', cell: (t) => formatDate(t.ed) },
  { header: 'Contracts', num: true, cell: (t) => t.cs },
  { header: 'Premium', num: true, cell: (t) => formatMoney(signed(t)), tone: (t) => tone(signed(t)) },
];

const closedColumns: Column[] = [
  { header: 'Strategy', cell: (t) => name(t.su) },
  { header: 'Strikes', cell: (t) => formatStrikes(t.sp) },
  { header: 'Closed', cell: (t) => formatDate(t.tcd) },
  { header: 'Disposition', cell: (t) => t.dis ?? '—' },
  { header: 'Captured', num: true, cell: (t) => formatMoney(t.npc), tone: (t) => tone(t.npc ?? 0) },
  { header: 'ROR', num: true, cell: (t) => formatPercent(t.ror) },
];

/** Open trades of the ticker opened in the window (part 2 §2; empty: "No open trades available."). */
export function OpenTradesTable({ trades, onShare }: { trades: TradeListItem[]; onShare?: (t: TradeListItem) => void }) {
  return <PulseTable trades={trades} empty="No open trades available." columns={openColumns} onShare={onShare} />;
}

/** Trades of the ticker closed in the window (empty: "No closed trades available."). */
export function ClosedTradesTable({ trades, onShare }: { trades: TradeListItem[]; onShare?: (t: TradeListItem) => void }) {
  return <PulseTable trades={trades} empty="No closed trades available." columns={closedColumns} onShare={onShare} />;
}
