import { useMemo, useState } from 'react';
import { Chart } from '@/components/charts/chart.tsx';
import { categoryAxisEndRoom, useChartColors } from '@/components/charts/chart-theme.ts';
import { formatMoney, formatMoneyTick } from '@/lib/format.ts';
import type { DashboardData } from '../api/get-dashboard-data.ts';
import { cumulativeSeries, PREMIUM_RANGES, shortDays, type PremiumRange } from '../utils/dashboard-math.ts';
import { Segmented, Widget } from './widget.tsx';

/** Premium Income: lifetime premium and the cumulative premium of a range (Week, Month, YTD, Year; default Year). */
export function PremiumIncome({ data }: { data: DashboardData }) {
  const [range, setRange] = useState<PremiumRange>('year');
  const c = useChartColors();
  const series = useMemo(() => cumulativeSeries(data.daily_income, range, data.as_of), [data, range]);
  const total = series.at(-1)?.value ?? 0;
  const rising = total >= 0;
  const line = rising ? c.success : c.danger;
  const labels = shortDays(series.map((p) => p.date));
  const option = {
    grid: { left: 8, right: categoryAxisEndRoom(labels, 12, 12), top: 16, bottom: 8, containLabel: true },
    tooltip: { trigger: 'axis', valueFormatter: (v: number) => formatMoney(v) },
    xAxis: {
      type: 'category',
      data: labels,
      boundaryGap: false,
      axisLine: { lineStyle: { color: c.border } },
      axisTick: { show: false },
      axisLabel: { color: c.subtle, hideOverlap: true },
    },
    yAxis: { type: 'value', splitLine: { lineStyle: { color: c.border, type: 'dashed' } }, axisLabel: { color: c.subtle, formatter: (v: number) => formatMoneyTick(v) } },
    series: [
      {
        type: 'line',
        name: 'Cumulative premium',
        data: series.map((p) => p.value),
        smooth: 0.25,
        showSymbol: series.length < 12,
        symbolSize: 6,
        lineStyle: { width: 2.5, color: line },
        itemStyle: { color: line },
        areaStyle: {
          color: {
            type: 'linear', x: 0, y: 0, x2: 0, y2: 1,
            colorStops: [
              { offset: 0, color: `${line}55` },
              { offset: 1, color: `${line}05` },
            ],
          },
        },
      },
    ],
  };
  const label = PREMIUM_RANGES.find((r) => r.key === range)!.label;
  return (
    <Widget
      id="premium-income"
      title="Premium Income"
      className="dash-premium"
      actions={<Segmented label="Premium Income timeframe" options={PREMIUM_RANGES} value={range} onChange={setRange} />}
    >
      <div className="dash-premium-figures">
        <div>
          <div className="dash-kicker">Lifetime premium</div>
          <div className="dash-big" data-testid="lifetime-premium">
            {formatMoney(data.lifetime.premium)}
          </div>
        </div>
        <div>
          <div className="dash-kicker">{label}</div>
          <div className={`dash-mid ${total > 0 ? 'is-up' : total < 0 ? 'is-down' : ''}`} data-testid="range-premium">
            {total > 0 ? '+' : ''}
            {formatMoney(total)}
          </div>
        </div>
      </div>
      <Chart label={`Cumulative premium, ${label}`} values={[formatMoney(total)]} option={option} height={240} empty={series.every((p) => p.value === 0)} />
    </Widget>
  );
}
