import { useContext, useEffect, useRef, useState, type CSSProperties } from 'react';
import { CHART_THEME_NAME, echarts } from './echarts.ts';
import { baseOption, useChartColors } from './chart-theme.ts';
import { ChartPixelRatio } from './chart-pixel-ratio.ts';
import { enqueueDraw } from './draw-queue.ts';
import { ResizingChart } from './resizing-chart.tsx';
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
 * theme's colours, and the same loading and "No Data" states everywhere (part 2 §8). A chart's box, with its
 * name, is on the page at once; its ECharts instance is created once the box comes near the viewport, in its
 * turn (./draw-queue.ts), so a page of charts takes input while they are drawn and draws only what is seen.
 * Until then the box carries `data-pending`.
 */
export function Chart({ option, height = 260, loading = false, empty = false, emptyText = 'No Data', label, values, onEvents, className, style }: ChartProps) {
  const colors = useChartColors();
  const leastPixelRatio = useContext(ChartPixelRatio);
  const drawable = !loading && !empty;
  const seen = useSeen(drawable, leastPixelRatio === null);
  const [turn, setTurn] = useState(false);
  useEffect(() => (drawable && seen.seen && !turn ? enqueueDraw(() => setTurn(true)) : undefined), [drawable, seen.seen, turn]);
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
    <div
      ref={seen.ref}
      className={`oj-chart ${className ?? ''}`}
      style={box}
      role="img"
      aria-label={values?.length ? `${label}: ${values.join('; ')}` : label}
      data-pending={turn ? undefined : ''}
    >
      {turn && (
        <ResizingChart
          echarts={echarts}
          theme={CHART_THEME_NAME}
          option={{ ...baseOption(colors), ...option }}
          notMerge
          lazyUpdate
          style={{ height: '100%', width: '100%' }}
          opts={leastPixelRatio === null ? { renderer: 'canvas' } : { renderer: 'canvas', devicePixelRatio: Math.max(leastPixelRatio, window.devicePixelRatio || 1) }}
          onEvents={onEvents ?? {}}
        />
      )}
    </div>
  );
}

/** Drawn this far ahead of the viewport's edges, so a trader scrolling finds the chart there. */
const AHEAD = '300px';

/**
 * Whether the chart's box (`ref`, rendered while `shown`) has come within AHEAD of the viewport; once it
 * has, it stays seen. `watch` false: seen at once; so is a chart that is part of an image (a share card: a
 * pixel ratio is set), drawn in view or not, and every chart where there is no IntersectionObserver.
 */
function useSeen(shown: boolean, watch: boolean) {
  const ref = useRef<HTMLDivElement>(null);
  const [seen, setSeen] = useState(!watch || typeof IntersectionObserver === 'undefined');
  useEffect(() => {
    if (seen) return;
    if (!watch) return setSeen(true);
    const el = ref.current;
    if (!shown || !el) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        observer.disconnect();
        setSeen(true);
      }
    }, { rootMargin: `${AHEAD} 0px` });
    observer.observe(el);
    return () => observer.disconnect();
  }, [shown, watch, seen]);
  return { ref, seen };
}
