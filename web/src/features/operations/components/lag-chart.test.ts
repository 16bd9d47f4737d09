import { describe, expect, it } from 'vitest';
import * as echarts from 'echarts/core';
import { LineChart } from 'echarts/charts';
import { GridComponent } from 'echarts/components';
import { SVGRenderer } from 'echarts/renderers';
import type { ChartColors } from '@/components/charts/chart-theme.ts';
import { lagChartOption } from './lag-chart.tsx';

echarts.use([LineChart, GridComponent, SVGRenderer]);

const colors: ChartColors = {
  text: '#000',
  muted: '#555',
  subtle: '#777',
  border: '#ddd',
  surface: '#fff',
  surface2: '#fafafa',
  primary: '#1f5eff',
  primarySoft: '#e7eeff',
  success: '#0a0',
  successSoft: '#efe',
  warning: '#b70',
  danger: '#d00',
  info: '#07b',
  series: [],
  dark: false,
};

/** The time labels drawn (in SVG, laid out as on the canvas): text, x of the anchor and its alignment. */
function timeLabels(width: number, now: number) {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height: 64 });
  const samples = [0, 5, 10, 15].map((m) => ({ at: new Date(now - m * 60_000).toISOString(), lanes: [{ projection: 'trades', lane: 0, behindEvents: m % 2 }] }));
  chart.setOption(lagChartOption(samples as never, 'trades', 0, colors, now));
  const svg = chart.renderToSVGString();
  chart.dispose();
  return [...svg.matchAll(/<text([^>]*)>(\d\d:\d\d)<\/text>/g)].map(([, attrs, text]) => {
    const x = Number(/translate\(([\d.-]+)/.exec(attrs!)?.[1] ?? /\sx="([\d.-]+)"/.exec(attrs!)?.[1]);
    const anchor = /text-anchor="(\w+)"/.exec(attrs!)?.[1] ?? 'start';
    return { text: text!, x, anchor };
  });
}

describe('lane lag chart', () => {
  it('draws its time labels inside the chart and apart: none cut at an edge, none run into the next (QA: "17:0", "12:1812:22")', () => {
    // Every 20 s over ten minutes: the labels' ticks move across the plot, one of them onto its edges.
    // 100 px: a lane of four in a row at 1280 px; 150 px: two in a row on a phone.
    const start = Date.parse('2026-12-05T22:00:00Z');
    for (const width of [100, 120, 150, 220]) {
      for (let k = 0; k < 30; k++) {
        const labels = timeLabels(width, start + k * 20_000);
        expect(labels.length, `${width} px`).toBeGreaterThan(0);
        // Five characters of a 9 px font: some 27 px wide.
        const spans = labels
          .map((l) => (l.anchor === 'middle' ? [l.x - 13.5, l.x + 13.5] : l.anchor === 'end' ? [l.x - 27, l.x] : [l.x, l.x + 27]) as [number, number])
          .sort((a, b) => a[0] - b[0]);
        for (const [i, [left, right]] of spans.entries()) {
          expect(left, `${labels.map((l) => l.text).join(' ')} at ${width} px`).toBeGreaterThanOrEqual(0);
          expect(right, `${labels.map((l) => l.text).join(' ')} at ${width} px`).toBeLessThanOrEqual(width);
          if (i > 0) expect(left, `${labels.map((l) => l.text).join(' ')} at ${width} px`).toBeGreaterThanOrEqual(spans[i - 1]![1] + 2);
        }
      }
    }
  });
});
