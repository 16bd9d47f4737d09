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

export { echarts };
