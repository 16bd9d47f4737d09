import * as echarts from 'echarts/core';
import { BarChart, GaugeChart, LineChart, PieChart, SankeyChart, TreemapChart } from 'echarts/charts';
import {
  DatasetComponent,
  GraphicComponent,
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  TitleComponent,
  TooltipComponent,
} from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import { CHART_THEME } from './chart-theme.ts';

/**
 * The one ECharts entry of the console. Only the charts and components registered here end up in the
 * bundle (the full `echarts` entry is ~1 MB); every chart goes through `<Chart>` with this instance,
 * so importing this module is what puts chart code in a chunk. Trade pages must never import it.
 * Add what a new chart needs with another `echarts.use([...])` line rather than importing `echarts`.
 */
echarts.use([
  BarChart,
  LineChart,
  PieChart,
  GaugeChart,
  TreemapChart,
  SankeyChart,
  GridComponent,
  TooltipComponent,
  LegendComponent,
  TitleComponent,
  DatasetComponent,
  GraphicComponent,
  MarkLineComponent,
  CanvasRenderer,
]);

/** The theme every `<Chart>` is drawn with: axis label defaults that ECharts measures labels by (see CHART_THEME). */
export const CHART_THEME_NAME = 'oj';
echarts.registerTheme(CHART_THEME_NAME, CHART_THEME);

export { echarts };
