import type { ChartColors } from '@/components/charts/chart-theme.ts';
import { blend } from '@/components/charts/treemap-labels.ts';

export interface DonutSlice {
  name: string;
  value: number;
  /** The tooltip's text; the value when absent. */
  caption?: string;
  /** A loss: its size is the amount lost, and it is drawn in the loss colour, never as a share of income. */
  loss?: boolean;
}

/**
 * The pie's data: losses in shades of the loss colour, everything else in the series colours without it
 * (QA: a strategy's loss was a wedge like any gain's, and a ticker with only a loss a full ring).
 */
export function donutData(slices: DonutSlice[], c: Pick<ChartColors, 'series' | 'danger' | 'surface'>) {
  const gains = c.series.filter((x) => x !== c.danger);
  let g = 0;
  let l = 0;
  return slices.map((s) => ({ ...s, itemStyle: { color: s.loss ? blend(c.danger, c.surface, 1 - 0.25 * (l++ % 3)) : gains[g++ % gains.length] } }));
}
