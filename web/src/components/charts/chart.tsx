import ReactEChartsCore from 'echarts-for-react/lib/core';
import { useContext, type CSSProperties } from 'react';
import { CHART_THEME_NAME, echarts } from './echarts.ts';
import { baseOption, useChartColors } from './chart-theme.ts';
import { ChartPixelRatio } from './chart-pixel-ratio.ts';
import './chart.css';

export interface ChartProps {
  /** ECharts option; merged over the console's defaults (palette, text colour, tooltip surface). */
  option: Record<string, unknown>;
  height?: number | string;
  loading?: boolean;
  /** No data to draw: shows `emptyText` instead of an empty set of axes. */
  empty?: boolean;
  emptyText?: string;
  /** Accessible name: a canvas says nothing to a screen reader. */
  label: string;
  /**
   * What the chart draws, in reading order ("Nov 20 $250.00"): appended to the name after a colon, so a
   * screen reader hears the figures, not only the chart's title. Left out of an empty chart's name.
   */
  values?: readonly string[];
  onEvents?: Record<string, (params: any) => void>;
  className?: string;
  style?: CSSProperties;
}

/**
 * Every chart of the console: ECharts from the trimmed `echarts/core` build (./echarts.ts), the
 * theme's colours, and the same loading and "No Data" states everywhere (part 2 §8).
 */
export function Chart({ option, height = 260, loading = false, empty = false, emptyText = 'No Data', label, values, onEvents, className, style }: ChartProps) {
  const colors = useChartColors();
  const leastPixelRatio = useContext(ChartPixelRatio);
  const box: CSSProperties = { height, ...style };
  if (loading) {
    return (
      <div className={`oj-chart oj-chart--state ${className ?? ''}`} style={box} role="status" aria-label={`${label}: loading`}>
        <span className="oj-chart__pulse" aria-hidden="true" />
      </div>
    );
  }
  if (empty) {
    return (
      <div className={`oj-chart oj-chart--state ${className ?? ''}`} style={box} role="img" aria-label={`${label}: ${emptyText}`}>
        <span className="oj-chart__empty">{emptyText}</span>
      </div>
    );
  }
  return (
    <div className={`oj-chart ${className ?? ''}`} style={box} role="img" aria-label={values?.length ? `${label}: ${values.join('; ')}` : label}>
      <ReactEChartsCore
        echarts={echarts}
        theme={CHART_THEME_NAME}
        option={{ ...baseOption(colors), ...option }}
        notMerge
        lazyUpdate
        style={{ height: '100%', width: '100%' }}
        opts={leastPixelRatio === null ? { renderer: 'canvas' } : { renderer: 'canvas', devicePixelRatio: Math.max(leastPixelRatio, window.devicePixelRatio || 1) }}
        onEvents={onEvents ?? {}}
      />
    </div>
  );
}
