import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { Icon } from '../../../components/ui/icons.tsx';
import { strategyByUid } from '@oj/contracts/strategies';
import { formatDate, formatMoney, formatPercent } from '../../../lib/format.ts';

const strikes = (sp: number[]) => sp.map((s) => `$${s}`).join(' / ');
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

/** Open trades of the ticker opened in the window (part 2 §2; empty: "No open trades available."). */
export function OpenTradesTable({ trades, onShare }: { trades: TradeListItem[]; onShare?: (t: TradeListItem) => void }) {
  if (trades.length === 0) return <p className="pulse-empty">No open trades available.</p>;
  return (
    <div className="pulse-table-wrap">
      <table className="pulse-table">
        <thead>
          <tr>
            <th scope="col">Strategy</th>
            <th scope="col">Strikes</th>
            <th scope="col">Opened</th>
            <th scope="col">Expires</th>
            <th scope="col" className="num">
              Contracts
            </th>
            <th scope="col" className="num">
              Premium
            </th>
            {onShare && <th scope="col" aria-label="Share" />}
          </tr>
        </thead>
        <tbody>
          {trades.map((t) => (
            <tr key={t.uid}>
              <td>{name(t.su)}</td>
              <td>{strikes(t.sp)}</td>
              <td>{formatDate(t.tod)}</td>
              <td>{formatDate(t.ed)}</td>
              <td className="num">{t.cs}</td>
              <td className={`num ${signed(t) >= 0 ? 'pulse-pos' : 'pulse-neg'}`}>{formatMoney(signed(t))}</td>
              {onShare && <ShareCell trade={t} onShare={onShare} />}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Trades of the ticker closed in the window (empty: "No closed trades available."). */
export function ClosedTradesTable({ trades, onShare }: { trades: TradeListItem[]; onShare?: (t: TradeListItem) => void }) {
  if (trades.length === 0) return <p className="pulse-empty">No closed trades available.</p>;
  return (
    <div className="pulse-table-wrap">
      <table className="pulse-table">
        <thead>
          <tr>
            <th scope="col">Strategy</th>
            <th scope="col">Strikes</th>
            <th scope="col">Closed</th>
            <th scope="col">Disposition</th>
            <th scope="col" className="num">
              Captured
            </th>
            <th scope="col" className="num">
              ROR
            </th>
            {onShare && <th scope="col" aria-label="Share" />}
          </tr>
        </thead>
        <tbody>
          {trades.map((t) => (
            <tr key={t.uid}>
              <td>{name(t.su)}</td>
              <td>{strikes(t.sp)}</td>
              <td>{formatDate(t.tcd)}</td>
              <td>{t.dis ?? '—'}</td>
              <td className={`num ${(t.npc ?? 0) >= 0 ? 'pulse-pos' : 'pulse-neg'}`}>{formatMoney(t.npc)}</td>
              <td className="num">{formatPercent(t.ror)}</td>
              {onShare && <ShareCell trade={t} onShare={onShare} />}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
