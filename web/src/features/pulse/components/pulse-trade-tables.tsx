import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { strategyByUid } from '@oj/contracts/strategies';
import { formatDate, formatMoney, formatPercent } from '../../../lib/format.ts';

const strikes = (sp: number[]) => sp.map((s) => `$${s}`).join(' / ');
const name = (su: string) => strategyByUid(su)?.name ?? su;
const signed = (t: TradeListItem) => (t.ot === 2 ? -t.pao : t.pao);

/** Open trades of the ticker opened in the window (part 2 §2; empty: "No open trades available."). */
export function OpenTradesTable({ trades }: { trades: TradeListItem[] }) {
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
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Trades of the ticker closed in the window (empty: "No closed trades available."). */
export function ClosedTradesTable({ trades }: { trades: TradeListItem[] }) {
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
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
