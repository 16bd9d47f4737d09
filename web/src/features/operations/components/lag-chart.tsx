import * as echarts from 'echarts/core';
import { LineChart } from 'echarts/charts';
import { GridComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import type { LagSample } from '@oj/contracts/operations';
import { useChartColors, type ChartColors } from '@/components/charts/chart-theme.ts';
import { ResizingChart } from '@/components/charts/resizing-chart.tsx';

// Only what this small chart draws: a line on a time axis with a tooltip.
echarts.use([LineChart, GridComponent, TooltipComponent, CanvasRenderer]);

const two = (n: number) => String(n).padStart(2, '0');
/** "17:10" for a time on a tenth minute; nothing for the ticks between. */
const tenthMinute = (value: number) => {
  const d = new Date(value);
  return d.getMinutes() % 10 === 0 ? `${two(d.getHours())}:${two(d.getMinutes())}` : '';
};

/** The chart's ECharts option: the events behind of one lane over the 15 minutes up to `now`. */
export function lagChartOption(samples: readonly LagSample[], projection: string, lane: number, colors: ChartColors, now: number) {
  const points = samples.map((s) => {
    const p = s.lanes.find((l) => l.projection === projection && l.lane === lane);
    return [Date.parse(s.at), p?.behindEvents ?? 0] as [number, number];
  });
  const stuck = points.length > 0 && points.at(-1)![1] > 0;
  const color = stuck ? colors.warning : colors.primary;
  return {
    animation: false,
    // Room on the right for half a time label: the last one is centred on its tick, which may be the
    // plot's edge (QA: "17:0", cut by the canvas).
    grid: { left: 28, right: 16, top: 6, bottom: 18 },
    tooltip: {
      trigger: 'axis',
      backgroundColor: colors.surface,
      borderColor: colors.border,
      textStyle: { color: colors.text, fontSize: 11 },
      valueFormatter: (v: number) => `${v.toLocaleString('en-US')} behind`,
    },
    xAxis: {
      type: 'time',
      min: now - 15 * 60 * 1000,
      max: now,
      splitNumber: 3,
      // A lane's chart is some 100 px wide at 1280 px (four lanes a row): only the ticks on a tenth minute
      // are labelled, one or two in the window, never run together (QA: "12:1812:2212:26"; ECharts puts a
      // tick every 4 or 5 minutes whatever splitNumber, minInterval or interval say).
      axisLabel: { color: colors.subtle, fontSize: 9, hideOverlap: true, formatter: tenthMinute },
      axisLine: { lineStyle: { color: colors.border } },
      axisTick: { show: false },
    },
    yAxis: {
      type: 'value',
      minInterval: 1,
      splitNumber: 2,
      axisLabel: { color: colors.subtle, fontSize: 9 },
      splitLine: { lineStyle: { color: colors.border, type: 'dashed' } },
    },
    series: [{ type: 'line', data: points, showSymbol: false, smooth: false, step: 'end', lineStyle: { width: 1.5, color }, areaStyle: { color, opacity: 0.12 } }],
  };
}

/** Events behind for one lane over the samples given (the last 15 minutes). */
export function LagChart({ samples, projection, lane, height = 64 }: { samples: readonly LagSample[]; projection: string; lane: number; height?: number }) {
  const colors = useChartColors();
  const option = lagChartOption(samples, projection, lane, colors, Date.now());
  return (
    <div className="ops-lag-chart" role="img" aria-label={`Lane ${lane} of ${projection}: events behind over the last 15 minutes`} style={{ height }}>
      <ResizingChart echarts={echarts} option={option} notMerge lazyUpdate style={{ height: '100%', width: '100%' }} opts={{ renderer: 'canvas' }} />
    </div>
  );
}
