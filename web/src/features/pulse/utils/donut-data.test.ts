import { describe, expect, it } from 'vitest';
import { blend } from '@/components/charts/treemap-labels.ts';
import { donutData } from './donut-data.ts';

describe('donutData', () => {
  const c = { series: ['#2563eb', '#16a34a', '#dc2626', '#14998a'], danger: '#dc2626', surface: '#ffffff' };

  it('draws a loss in the loss colour and never a gain in it (QA: a loss was a wedge like any gain)', () => {
    const data = donutData(
      [
        { name: 'Naked Put', value: 150 },
        { name: 'Long Put', value: 50, loss: true },
        { name: 'Covered Call', value: 20 },
        { name: 'Long Call', value: 30, loss: true },
        { name: 'PMCC', value: 10 },
      ],
      c,
    );
    // Gains take the series colours in turn, skipping the loss colour; losses take its shades.
    expect(data.map((d) => d.itemStyle.color)).toEqual(['#2563eb', '#dc2626', '#16a34a', blend('#dc2626', '#ffffff', 0.75), '#14998a']);
    expect(data.map((d) => d.value)).toEqual([150, 50, 20, 30, 10]);
  });
});
