import { useCallback, useContext, useEffect, useRef, useState, type CSSProperties, type RefObject } from 'react';
import type { EChartsType } from 'echarts/core';
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
  const fullOption = { ...baseOption(colors), ...option };
  const printCopy = usePrintCopy(seen.ref, drawable, turn, fullOption);
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
          option={fullOption}
          notMerge
          lazyUpdate
          style={{ height: '100%', width: '100%' }}
          opts={leastPixelRatio === null ? { renderer: 'canvas' } : { renderer: 'canvas', devicePixelRatio: Math.max(leastPixelRatio, window.devicePixelRatio || 1) }}
          onEvents={onEvents ?? {}}
          onChartReady={printCopy.dropAfterDraw}
        />
      )}
    </div>
  );
}

/**
 * A chart not drawn yet when the page is printed (never scrolled near, or waiting for its turn) would print
 * as an empty box: the browser lays the page out for paper right after `beforeprint`, and the chart's own
 * drawing (echarts-for-react creates its instance in a later frame) comes too late. So on `beforeprint` such
 * a chart is drawn at once, without its entry animation, by an ECharts instance of its own over the box: the
 * print copy. It stays on screen after printing until the chart's own instance has drawn (its `onChartReady`
 * and the frame after), so the box never goes blank in between. A chart already drawn prints as it is.
 */
function usePrintCopy(ref: RefObject<HTMLDivElement | null>, drawable: boolean, drawn: boolean, option: Record<string, unknown>) {
  const latest = useRef(option);
  latest.current = option;
  const copy = useRef<{ instance: EChartsType; holder: HTMLDivElement } | null>(null);
  const drop = useCallback(() => {
    copy.current?.instance.dispose();
    copy.current?.holder.remove();
    copy.current = null;
  }, []);
  const waiting = drawable && !drawn;
  useEffect(() => {
    if (!waiting) return;
    const draw = () => {
      const box = ref.current;
      if (!box || copy.current || !box.clientWidth || !box.clientHeight) return;
      const holder = document.createElement('div');
      holder.className = 'oj-chart__print';
      box.append(holder);
      const instance = echarts.init(holder, CHART_THEME_NAME, { renderer: 'canvas', width: box.clientWidth, height: box.clientHeight });
      // Not lazy: drawn before this returns, so before the browser lays the page out for paper.
      instance.setOption({ ...latest.current, animation: false });
      copy.current = { instance, holder };
    };
    window.addEventListener('beforeprint', draw);
    return () => window.removeEventListener('beforeprint', draw);
  }, [ref, waiting]);
  // New figures while the copy is shown (a refetch after printing) redraw it.
  useEffect(() => {
    copy.current?.instance.setOption({ ...option, animation: false }, { notMerge: true, lazyUpdate: true });
  }, [option]);
  // The box goes (the chart is loading or empty now) or the chart unmounts: so does the copy.
  useEffect(() => drop, [drawable, drop]);
  // The chart's own instance draws its first frame in the frame after it is ready (`lazyUpdate`).
  const dropAfterDraw = useCallback(() => requestAnimationFrame(() => requestAnimationFrame(drop)), [drop]);
  return { dropAfterDraw };
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
