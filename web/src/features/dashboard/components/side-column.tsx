import { useState } from 'react';
import { strategyByUid } from '@oj/contracts/strategies';
import type { SwitchPeriod } from '@oj/contracts/trade-views';
import { formatMoney } from '@/lib/format.ts';
import type { DashboardData } from '../api/get-dashboard-data.ts';
import { firstWithData } from '../utils/dashboard-math.ts';
import { Change, Segmented, SWITCH_LABELS, SWITCH_OPTIONS, Widget } from './widget.tsx';

const strategyName = (su: string) => strategyByUid(su)?.name ?? su;

/** The side column's period: Key Stats, Strategies and Disposition share one M / YTD / Y switch. */
export function useSidePeriod(data: DashboardData) {
  const [chosen, setChosen] = useState<SwitchPeriod | null>(null);
  const has = (p: SwitchPeriod) => data.periods[p].totals.otc + data.periods[p].totals.ctc > 0;
  return [chosen ?? firstWithData(['m', 'ytd', 'y'] as const, has), setChosen] as const;
}

function Stat({ label, value, tone, testId }: { label: string; value: string; tone?: 'up' | 'down' | undefined; testId?: string }) {
  return (
    <div className="dash-stat">
      <dt>{label}</dt>
      <dd className={tone ? `is-${tone}` : ''} data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}
const toneOf = (v: number) => (v > 0 ? 'up' : v < 0 ? 'down' : undefined);

/** Key Stats of a period: premium, realized, fees, net P/L, capital gains, trade counts, win rate, hold. */
export function KeyStats({ data, period, onPeriod }: { data: DashboardData; period: SwitchPeriod; onPeriod: (p: SwitchPeriod) => void }) {
  const m = data.periods[period].metrics;
  return (
    <Widget id="key-stats" title="Key Stats" subtitle={SWITCH_LABELS[period]} actions={<Segmented label="Key Stats period" options={SWITCH_OPTIONS} value={period} onChange={onPeriod} />}>
      <dl className="dash-stats">
        <Stat label="Premium" value={formatMoney(m.premium)} tone={toneOf(m.premium)} testId="stat-premium" />
        <Stat label="Realized" value={formatMoney(m.realized)} tone={toneOf(m.realized)} />
        <Stat label="Fees" value={formatMoney(m.fees)} />
        <Stat label="Net P/L" value={formatMoney(m.net_profit_loss)} tone={toneOf(m.net_profit_loss)} />
        <Stat label="Capital gains" value={formatMoney(m.capital_gain)} tone={toneOf(m.capital_gain)} />
        <Stat label="Opened" value={String(m.opened)} />
        <Stat label="Closed" value={String(m.closed)} />
        <Stat label="Wins" value={String(m.wins)} />
        <Stat label="Win rate" value={m.win_rate === null ? '—' : `${m.win_rate.toFixed(2)}%`} />
        <Stat label="Avg hold" value={m.hold_days === null ? '—' : `${m.hold_days.toFixed(2)} d`} />
      </dl>
    </Widget>
  );
}

function ShareBars({ rows, empty, testId }: { rows: { label: string; count: number }[]; empty: string; testId: string }) {
  const total = rows.reduce((s, r) => s + r.count, 0);
  if (!total) return <p className="dash-empty">{empty}</p>;
  return (
    <ul className="dash-share" data-testid={testId}>
      {rows.map((r) => {
        const pct = (r.count / total) * 100;
        return (
          <li key={r.label}>
            <div className="dash-share-line">
              <span>{r.label}</span>
              <span className="muted">
                {r.count} · {pct.toFixed(1)}%
              </span>
            </div>
            <div className="dash-share-track" aria-hidden="true">
              <div className="dash-share-fill" style={{ width: `${pct}%` }} />
            </div>
          </li>
        );
      })}
    </ul>
  );
}

/** Strategies: share of the trades opened per strategy, most first. */
export function Strategies({ data, period }: { data: DashboardData; period: SwitchPeriod }) {
  const rows = data.breakdowns[period].strategies.map((s) => ({ label: strategyName(s.key), count: s.count }));
  return (
    <Widget id="strategies" title="Strategies" subtitle={`Trades opened · ${SWITCH_LABELS[period]}`}>
      <ShareBars rows={rows} empty="No Data" testId="strategy-bars" />
    </Widget>
  );
}

/** Disposition: how closed trades ended (closed trades only), most first. */
export function Disposition({ data, period }: { data: DashboardData; period: SwitchPeriod }) {
  const rows = data.breakdowns[period].dispositions.map((d) => ({ label: d.key, count: d.count }));
  return (
    <Widget id="disposition" title="Disposition" subtitle={`Closed trades · ${SWITCH_LABELS[period]}`}>
      <ShareBars rows={rows} empty="No Data" testId="disposition-bars" />
    </Widget>
  );
}

/** Yearly Income: premium per year, newest first, with the change against the year before. */
export function YearlyIncome({ data }: { data: DashboardData }) {
  const years = [...data.yearly_income].reverse();
  return (
    <Widget id="yearly-income" title="Yearly Income">
      {years.length === 0 ? (
        <p className="dash-empty">No data available</p>
      ) : (
        <ul className="dash-years">
          {years.map((y) => (
            <li key={y.year}>
              <span className="dash-year">{y.year}</span>
              <span className={y.income >= 0 ? 'is-up' : 'is-down'}>{formatMoney(y.income)}</span>
              <Change value={y.change} />
            </li>
          ))}
        </ul>
      )}
    </Widget>
  );
}
