import { useState } from 'react';
import type { MetricChanges, PeriodMetrics } from '@oj/contracts/trade-views';
import { Chart } from '@/components/charts/chart.tsx';
import { useChartColors, type ChartColors } from '@/components/charts/chart-theme.ts';
import type { DashboardData } from '../api/get-dashboard-data.ts';
import { gaugeRange, winRateTone } from '../utils/dashboard-math.ts';
import { Change, Segmented, Widget } from './widget.tsx';

type Timeframe = 'm' | 'ytd';
/** Part 2 §4: the Performance Metrics timeframe is kept in local storage, default YTD. */
export const PERFORMANCE_KEY = 'oj.dashboard.performance';
function savedTimeframe(): Timeframe {
  try {
    return localStorage.getItem(PERFORMANCE_KEY) === 'm' ? 'm' : 'ytd';
  } catch {
    return 'ytd';
  }
}

interface GaugeSpec {
  key: keyof PeriodMetrics & keyof MetricChanges;
  label: string;
  kind: 'delta' | 'percent' | 'widening' | 'hold';
  format: (v: number) => string;
  hint: string;
}
const GAUGES: GaugeSpec[] = [
  { key: 'delta', label: 'Delta', kind: 'delta', format: (v) => v.toFixed(2), hint: 'Average net delta of trades opened' },
  { key: 'win_rate', label: 'Win Rate', kind: 'percent', format: (v) => `${v.toFixed(2)}%`, hint: 'Winners / closed trades' },
  { key: 'arr', label: 'ARR', kind: 'widening', format: (v) => `${v.toFixed(2)}%`, hint: 'ROR annualised over the capital-weighted days held' },
  { key: 'ror', label: 'ROR', kind: 'widening', format: (v) => `${v.toFixed(2)}%`, hint: '(Closed premium - fees) / collateral' },
  { key: 'retention', label: 'Retention', kind: 'percent', format: (v) => `${v.toFixed(2)}%`, hint: "Winners' average premium capture rate" },
  { key: 'hold_days', label: 'Hold Days', kind: 'hold', format: (v) => v.toFixed(2), hint: 'Days held / closed trades' },
];

function gaugeColor(spec: GaugeSpec, value: number, c: ChartColors): string {
  if (spec.key === 'win_rate') {
    const tone = winRateTone(value);
    // Part 2 §9: yellow below 50, mid-green 50 to under 80, dark green from 80.
    return tone === 'low' ? '#e0a600' : tone === 'mid' ? '#3cb371' : '#0b7a4b';
  }
  if (spec.kind === 'widening' && value < 0) return c.danger;
  return c.primary;
}

function Gauge({ spec, value, change, c }: { spec: GaugeSpec; value: number | null; change: number | null; c: ChartColors }) {
  const { min, max } = gaugeRange(spec.kind, value);
  const color = value === null ? c.border : gaugeColor(spec, value, c);
  const option = {
    series: [
      {
        type: 'gauge',
        min,
        max,
        startAngle: 210,
        endAngle: -30,
        radius: '92%',
        center: ['50%', '55%'],
        progress: { show: true, width: 10, roundCap: true, itemStyle: { color } },
        axisLine: { lineStyle: { width: 10, color: [[1, c.dark ? '#24324d' : '#e8edf5']] }, roundCap: true },
        pointer: { show: false },
        axisTick: { show: false },
        splitLine: { show: false },
        axisLabel: { show: false },
        anchor: { show: false },
        title: { show: false },
        detail: { show: false },
        data: [{ value: value === null ? min : Math.min(max, Math.max(min, value)) }],
      },
    ],
  };
  const tone = spec.key === 'win_rate' ? winRateTone(value) : 'none';
  return (
    <figure className="dash-gauge" data-testid={`gauge-${spec.key}`} title={spec.hint}>
      <div className="dash-gauge-chart">
        <Chart label={`${spec.label} gauge, ${min} to ${max}`} option={option} height={130} />
        <div className={`dash-gauge-value wr-${tone}`} data-testid={`gauge-${spec.key}-value`}>
          {value === null ? 'No Data' : spec.format(value)}
        </div>
      </div>
      <figcaption>
        <span className="dash-gauge-label">{spec.label}</span>
        <Change value={change} />
      </figcaption>
    </figure>
  );
}

/** Performance Metrics: the six gauges of part 2 §2 for the last 30 days or year to date, against the previous period. */
export function PerformanceMetrics({ data }: { data: DashboardData }) {
  const [tf, setTf] = useState<Timeframe>(savedTimeframe);
  const c = useChartColors();
  const choose = (t: Timeframe) => {
    setTf(t);
    try {
      localStorage.setItem(PERFORMANCE_KEY, t);
    } catch {
      // not kept: the choice still applies to this visit
    }
  };
  const period = data.periods[tf];
  return (
    <Widget
      id="performance-metrics"
      title="Performance Metrics"
      subtitle={tf === 'm' ? 'Last 30 days against the 30 days before' : 'Year to date against last year to the same day'}
      actions={<Segmented label="Performance timeframe" options={[{ key: 'm', label: 'M' }, { key: 'ytd', label: 'YTD' }] as const} value={tf} onChange={choose} />}
    >
      <div className="dash-gauges">
        {GAUGES.map((g) => (
          <Gauge key={g.key} spec={g} value={period.metrics[g.key] as number | null} change={period.changes?.[g.key] ?? null} c={c} />
        ))}
      </div>
    </Widget>
  );
}
