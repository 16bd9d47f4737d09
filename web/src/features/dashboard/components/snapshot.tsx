import { useEffect, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router';
import { strategyByUid } from '@oj/contracts/strategies';
import type { SwitchPeriod } from '@oj/contracts/trade-views';
import { Chart } from '@/components/charts/chart.tsx';
import { categoryAxisEndRoom, useChartColors } from '@/components/charts/chart-theme.ts';
import { Spinner } from '@/components/ui/spinner.tsx';
import { formatDate, formatMoney, formatMoneyShort, formatMoneyTick, formatMonthShort, formatWeekday } from '@/lib/format.ts';
import type { DashboardData } from '../api/get-dashboard-data.ts';
import { currentWeek, dayTone, firstWithData, lastActiveDays, monthHasActivity, shortDay, shortDays } from '../utils/dashboard-math.ts';
import { Segmented, ShareButton, SWITCH_LABELS, SWITCH_OPTIONS, Widget } from './widget.tsx';

const strategyName = (su: string) => strategyByUid(su)?.name ?? su;

/** Daily Premium: the premium of the last 10 days with trades, green collected, red paid. */
export function DailyPremium({ data }: { data: DashboardData }) {
  const c = useChartColors();
  const days = useMemo(() => lastActiveDays(data.daily_income), [data]);
  const labels = shortDays(days.map((d) => d.income_date));
  const option = {
    grid: { left: 4, right: categoryAxisEndRoom(labels), top: 12, bottom: 4, containLabel: true },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: (v: number) => formatMoney(v) },
    xAxis: { type: 'category', data: labels, axisTick: { show: false }, axisLine: { lineStyle: { color: c.border } }, axisLabel: { color: c.subtle, hideOverlap: true } },
    yAxis: { type: 'value', splitLine: { lineStyle: { color: c.border, type: 'dashed' } }, axisLabel: { color: c.subtle, formatter: (v: number) => formatMoneyTick(v) } },
    series: [
      {
        type: 'bar',
        name: 'Net premium',
        barMaxWidth: 22,
        data: days.map((d) => ({ value: d.np, itemStyle: { color: d.np >= 0 ? c.success : c.danger, borderRadius: d.np >= 0 ? [4, 4, 0, 0] : [0, 0, 4, 4] } })),
      },
    ],
  };
  return (
    <Widget id="daily-premium" title="Daily Premium" subtitle="Last 10 active days">
      <Chart label="Daily premium, last 10 active days" values={days.map((d, i) => `${labels[i]} ${formatMoney(d.np)}`)} option={option} height={200} empty={days.length === 0} />
    </Widget>
  );
}

/** Open/Close Count: trades opened and closed on the last 10 days with trades. */
export function OpenCloseCount({ data }: { data: DashboardData }) {
  const c = useChartColors();
  const days = useMemo(() => lastActiveDays(data.daily_income), [data]);
  const labels = shortDays(days.map((d) => d.income_date));
  const option = {
    grid: { left: 4, right: categoryAxisEndRoom(labels), top: 28, bottom: 4, containLabel: true },
    legend: { top: 0, right: 0, itemWidth: 10, itemHeight: 10, textStyle: { color: c.muted } },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    xAxis: { type: 'category', data: labels, axisTick: { show: false }, axisLine: { lineStyle: { color: c.border } }, axisLabel: { color: c.subtle, hideOverlap: true } },
    yAxis: { type: 'value', minInterval: 1, splitLine: { lineStyle: { color: c.border, type: 'dashed' } }, axisLabel: { color: c.subtle } },
    series: [
      { type: 'bar', name: 'Opened', data: days.map((d) => d.otc), itemStyle: { color: c.primary, borderRadius: [4, 4, 0, 0] }, barMaxWidth: 14 },
      { type: 'bar', name: 'Closed', data: days.map((d) => d.ctc), itemStyle: { color: c.warning, borderRadius: [4, 4, 0, 0] }, barMaxWidth: 14 },
    ],
  };
  return (
    <Widget id="open-close" title="Open/Close Count" subtitle="Last 10 active days">
      <Chart
        label="Trades opened and closed, last 10 active days"
        values={days.map((d, i) => `${labels[i]} ${d.otc} opened, ${d.ctc} closed`)}
        option={option}
        height={200}
        empty={days.length === 0}
      />
    </Widget>
  );
}

/** Income Calendar strip: Monday to Friday of this week, coloured like the income calendar; a past or current day opens its trades. */
export function WeeklyStrip({ data, onOpenDay, onShare }: { data: DashboardData; onOpenDay: (date: string) => void; onShare?: () => void }) {
  const byDate = useMemo(() => new Map(data.daily_income.map((d) => [d.income_date, d])), [data]);
  const week = currentWeek(data.as_of);
  const total = week.reduce((s, d) => s + (byDate.get(d)?.np ?? 0), 0);
  return (
    <Widget
      id="weekly-strip"
      title="Income Calendar"
      // On a Sunday the strip has moved to the week ahead (part 2: it "resets every Sunday") while the Income
      // Quadrant's week still ends that day: named by its Monday, the two no longer read as one week with two
      // amounts (QA).
      subtitle={`${week[0]! > data.as_of ? `Week of ${shortDay(week[0]!)}` : 'This week'} · ${formatMoney(total)}`}
      actions={
        <>
          {/* The card's own Share is disabled by part 2 §2; its download works. */}
          <ShareButton label="Share Weekly Income" onShare={onShare} />
          <Link to="/calendar/income" className="dash-link">
            See All
          </Link>
        </>
      }
    >
      <ol className="dash-week">
        {week.map((d) => {
          const day = byDate.get(d);
          const tone = dayTone(day);
          const future = d > data.as_of;
          const np = day?.np ?? 0;
          return (
            <li key={d}>
              <button
                type="button"
                className={`dash-day tone-${tone} ${d === data.as_of ? 'is-today' : ''}`}
                disabled={future}
                onClick={() => onOpenDay(d)}
                // Named as it reads ("Mon 30: $250.00"), the full date in brackets after it: a name holding the
                // visible text in its order is one a voice command can say.
                aria-label={`${formatWeekday(d)} ${Number(d.slice(8))}: ${tone === 'none' ? 'no trades' : tone === 'even' ? 'Even' : formatMoneyShort(np)}${future ? ', future' : ''} (${formatDate(d)})`}
                data-testid={`week-day-${d}`}
              >
                {/* The spaces between the stacked parts keep "Mon 30" two words for anything reading the text. */}
                <span className="dash-day-name">{formatWeekday(d)}</span>{' '}
                <span className="dash-day-date">{Number(d.slice(8))}</span>{' '}
                <span className="dash-day-np">{tone === 'none' ? '—' : tone === 'even' ? 'Even' : formatMoneyShort(np)}</span>
              </button>
            </li>
          );
        })}
      </ol>
    </Widget>
  );
}

/** Income By Month: premium of the last 12 months. */
export function IncomeByMonth({ data, onShare }: { data: DashboardData; onShare?: () => void }) {
  const c = useChartColors();
  const months = data.monthly_income;
  const labels = months.map((m) => formatMonthShort(m.month));
  const option = {
    grid: { left: 4, right: categoryAxisEndRoom(labels), top: 12, bottom: 4, containLabel: true },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: (v: number) => formatMoney(v) },
    xAxis: {
      type: 'category',
      data: labels,
      axisTick: { show: false },
      axisLine: { lineStyle: { color: c.border } },
      // Every fourth month counted back from this one: ECharts' own interval counts from the oldest month
      // and may leave the current one unlabelled; four months apart fit the narrowest card.
      axisLabel: { color: c.subtle, hideOverlap: true, interval: (i: number) => (labels.length - 1 - i) % 4 === 0 },
    },
    yAxis: { type: 'value', splitLine: { lineStyle: { color: c.border, type: 'dashed' } }, axisLabel: { color: c.subtle, formatter: (v: number) => formatMoneyTick(v) } },
    series: [
      {
        type: 'bar',
        name: 'Premium',
        barMaxWidth: 26,
        data: months.map((m) => ({ value: m.np, itemStyle: { color: m.np >= 0 ? c.primary : c.danger, borderRadius: m.np >= 0 ? [5, 5, 0, 0] : [0, 0, 5, 5] } })),
      },
    ],
  };
  return (
    <Widget id="income-by-month" title="Income By Month" subtitle="Last 12 months" actions={<ShareButton label="Share Income By Month" onShare={onShare} />}>
      <Chart
        label="Premium by month, last 12 months"
        values={months.map((m) => `${formatMonthShort(m.month)} ${formatMoney(m.np)}`)}
        option={option}
        height={220}
        empty={!months.some(monthHasActivity)}
      />
    </Widget>
  );
}

/** Realized Income: the top five tickers by realized premium of a year (this year and the two before), with a 1 s pause on change (part 2 §9). */
export function RealizedIncome({ data }: { data: DashboardData }) {
  const years = data.top_tickers.map((t) => t.year);
  const [year, setYear] = useState(years[0]!);
  const [pausing, setPausing] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const change = (y: number) => {
    setYear(y);
    setPausing(true);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setPausing(false), 1000);
  };
  const rows = data.top_tickers.find((t) => t.year === year)?.tickers ?? [];
  const max = Math.max(1, ...rows.map((r) => Math.abs(r.npc)));
  return (
    <Widget
      id="realized-income"
      title="Realized Income"
      subtitle="Top 5 tickers"
      actions={
        <label className="dash-select">
          <select value={year} onChange={(e) => change(Number(e.target.value))} aria-label="Realized Income year">
            {years.map((y) => (
              <option key={y} value={y}>
                {y}
              </option>
            ))}
          </select>
        </label>
      }
    >
      {pausing ? (
        <div className="dash-pause">
          <Spinner label="Loading tickers" />
        </div>
      ) : rows.length === 0 ? (
        <p className="dash-empty">No Data</p>
      ) : (
        <table className="dash-table" data-testid="realized-income">
          <thead>
            <tr>
              <th scope="col">Ticker</th>
              <th scope="col" className="num">
                Trades
              </th>
              <th scope="col" className="num">
                Win rate
              </th>
              <th scope="col" className="num">
                Realized
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.ticker}>
                <th scope="row">
                  <span className="dash-ticker">{r.ticker}</span>
                  <span className="dash-bar" style={{ width: `${(Math.abs(r.npc) / max) * 100}%` }} aria-hidden="true" />
                </th>
                <td className="num">{r.count}</td>
                <td className="num">{r.count ? `${((r.iw / r.count) * 100).toFixed(0)}%` : '—'}</td>
                <td className={`num ${r.npc >= 0 ? 'is-up' : 'is-down'}`}>{formatMoney(r.npc)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Widget>
  );
}

/** Open Trades: how many are open now, their premium, what expires within a week, and the next to expire. */
export function OpenTrades({ data }: { data: DashboardData }) {
  const o = data.open_trades;
  return (
    <Widget
      id="open-trades"
      title="Open Trades"
      actions={
        <Link to="/trades/open" className="dash-link">
          View
        </Link>
      }
    >
      <div className="dash-stats-row">
        <div>
          <div className="dash-kicker">Open</div>
          <div className="dash-mid" data-testid="open-count">
            {o.count}
          </div>
        </div>
        <div>
          <div className="dash-kicker">Premium</div>
          <div className="dash-mid">{formatMoneyShort(o.premium)}</div>
        </div>
        <div>
          <div className="dash-kicker">Expiring ≤ 7d</div>
          <div className={`dash-mid ${o.expiring_in_7_days ? 'is-warn' : ''}`}>{o.expiring_in_7_days}</div>
        </div>
      </div>
      {o.next.length === 0 ? (
        o.count ? (
          // Open trades but none expiring from today on: every one is past its expiration, and the
          // Expiring ≤ 7d count above holds them (as the Expiring list does) (QA: "4" over "none expires").
          <p className="dash-empty">
            {o.count === 1 ? 'The open trade is past its expiration date: ' : `All ${o.count} open trades are past their expiration date: `}
            <Link to="/trades/expiring-soon">settle {o.count === 1 ? 'it' : 'them'} from the Expiring list</Link>.
          </p>
        ) : (
          <p className="dash-empty">No open trades available.</p>
        )
      ) : (
        <ul className="dash-next">
          {o.next.map((t) => (
            <li key={t.uid}>
              <span className="dash-ticker">{t.ticker}</span>
              <span className="muted">{strategyName(t.su)}</span>
              <span className="dash-next-ed">{formatDate(t.ed)}</span>
              <span className={t.premium >= 0 ? 'is-up' : 'is-down'}>{formatMoneyShort(t.premium)}</span>
            </li>
          ))}
        </ul>
      )}
    </Widget>
  );
}

/**
 * Trade Flow: a Sankey from strategy to disposition of the finalized (closed) trades of a period, with
 * M / YTD / Y and the fallback to the first period with data; edges that would break the chart (no
 * count, a node flowing into itself, a missing name) are skipped silently (part 2 §2).
 */
export function TradeFlow({ data }: { data: DashboardData }) {
  const c = useChartColors();
  const has = (p: SwitchPeriod) => data.breakdowns[p].flows.length > 0;
  const [chosen, setChosen] = useState<SwitchPeriod | null>(null);
  const period = chosen ?? firstWithData(['m', 'ytd', 'y'] as const, has);
  const { nodes, links } = useMemo(() => {
    const links: { source: string; target: string; value: number }[] = [];
    const names = new Set<string>();
    for (const f of data.breakdowns[period].flows) {
      const source = strategyName(f.su);
      const target = f.disposition;
      if (!source || !target || source === target || !(f.count > 0)) continue;
      links.push({ source, target, value: f.count });
      names.add(source);
      names.add(target);
    }
    return { nodes: [...names].map((name) => ({ name })), links };
  }, [data, period]);
  const option = {
    tooltip: { trigger: 'item' },
    series: [
      {
        type: 'sankey',
        data: nodes,
        links,
        left: 8,
        right: 110,
        top: 8,
        bottom: 8,
        nodeWidth: 12,
        nodeGap: 10,
        emphasis: { focus: 'adjacency' },
        label: { color: c.text, fontSize: 11 },
        lineStyle: { color: 'gradient', curveness: 0.5, opacity: 0.35 },
      },
    ],
  };
  return (
    <Widget
      id="trade-flow"
      title="Trade Flow"
      subtitle={`Strategy to disposition · ${SWITCH_LABELS[period]}`}
      actions={<Segmented label="Trade Flow period" options={SWITCH_OPTIONS} value={period} onChange={setChosen} />}
    >
      <Chart
        label="Trade flow from strategy to disposition"
        // Each flow, most trades first ("Cash-Secured Put to Early Exit 3"): what the tooltips say, for a screen reader.
        values={[...links]
          .sort((a, b) => b.value - a.value || (a.source < b.source ? -1 : a.source > b.source ? 1 : a.target < b.target ? -1 : a.target > b.target ? 1 : 0))
          .map((l) => `${l.source} to ${l.target} ${l.value}`)}
        option={option}
        height={300}
        empty={links.length === 0}
        emptyText="No data"
      />
    </Widget>
  );
}
