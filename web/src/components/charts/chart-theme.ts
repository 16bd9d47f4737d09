import { useSyncExternalStore } from 'react';

/**
 * Chart colours come from the design tokens (web/src/styles/tokens.css), read from the document when
 * the theme changes, so charts follow light/dark like the rest of the console without a second palette.
 */
export interface ChartColors {
  text: string;
  muted: string;
  subtle: string;
  border: string;
  surface: string;
  surface2: string;
  primary: string;
  primarySoft: string;
  success: string;
  successSoft: string;
  warning: string;
  danger: string;
  info: string;
  /** A qualitative palette for series without a meaning of their own (strategies, tickers). */
  series: string[];
  dark: boolean;
}

const FALLBACK: Record<string, string> = {
  '--color-text': '#0f172a',
  '--color-text-muted': '#55627a',
  '--color-text-subtle': '#7b879c',
  '--color-border': '#e2e8f0',
  '--color-surface': '#ffffff',
  '--color-surface-2': '#f8fafc',
  '--color-primary': '#1f5eff',
  '--color-primary-soft': '#e7eeff',
  '--color-success': '#0f9d6b',
  '--color-success-soft': '#e3f6ee',
  '--color-warning': '#b7791f',
  '--color-danger': '#dc3545',
  '--color-info': '#0b7dbf',
};

function read(): ChartColors {
  const style = typeof document === 'undefined' ? null : getComputedStyle(document.documentElement);
  const v = (name: string) => style?.getPropertyValue(name).trim() || FALLBACK[name]!;
  const dark = typeof document !== 'undefined' && document.documentElement.dataset.theme === 'dark';
  const primary = v('--color-primary');
  const success = v('--color-success');
  const info = v('--color-info');
  const warning = v('--color-warning');
  const danger = v('--color-danger');
  return {
    text: v('--color-text'),
    muted: v('--color-text-muted'),
    subtle: v('--color-text-subtle'),
    border: v('--color-border'),
    surface: v('--color-surface'),
    surface2: v('--color-surface-2'),
    primary,
    primarySoft: v('--color-primary-soft'),
    success,
    successSoft: v('--color-success-soft'),
    warning,
    danger,
    info,
    dark,
    series: [primary, success, warning, info, dark ? '#b48cff' : '#7c4dff', danger, dark ? '#5fd4c4' : '#14998a', dark ? '#f59ac2' : '#d63384', '#8a94a6'],
  };
}

let current: ChartColors | null = null;
let key = '';
const listeners = new Set<() => void>();
let observer: MutationObserver | null = null;

function snapshot(): ChartColors {
  const k = typeof document === 'undefined' ? 'light' : (document.documentElement.dataset.theme ?? 'light');
  if (!current || k !== key) {
    key = k;
    current = read();
  }
  return current;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (!observer && typeof MutationObserver !== 'undefined') {
    // The theme switch sets data-theme on <html>; one observer serves every chart on the page.
    observer = new MutationObserver(() => listeners.forEach((l) => l()));
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  }
  return () => {
    listeners.delete(listener);
    if (!listeners.size) {
      observer?.disconnect();
      observer = null;
    }
  };
}

/** The token colours of the current theme; components re-render when the theme changes. */
export function useChartColors(): ChartColors {
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}

/** The console's sans stack (--font-sans), which every chart draws its text in. */
export const CHART_FONT_FAMILY = 'Inter, ui-sans-serif, system-ui, sans-serif';

/**
 * Defaults for every axis, registered as the charts' theme (./echarts.ts). ECharts 5's `containLabel`
 * sizes the grid from the axis label model alone: without a font family of its own a label is measured
 * in `12px sans-serif` while it is drawn in the console's stack (6 px wider for "$800.00" with DejaVu
 * Sans), and its height is taken as the width of '国', a narrow fallback glyph where no CJK font is
 * installed. Both leave too little room, and the canvas cuts the labels' edges and descenders off.
 */
const axisLabel = { fontFamily: CHART_FONT_FAMILY, lineHeight: 16 };
export const CHART_THEME = { categoryAxis: { axisLabel }, valueAxis: { axisLabel }, logAxis: { axisLabel }, timeAxis: { axisLabel } };

let measure: CanvasRenderingContext2D | null | undefined;

/**
 * Room to keep at the right of a grid whose x-axis is a category axis, for its last label. ECharts 5's
 * `containLabel` makes room for the height of x-axis labels, never for their width, so a label centred
 * on the last band (or on the end of the axis, without `boundaryGap`) runs past the canvas and is cut
 * ("Dec '2"). Half the widest label is enough at any width: the label is centred inside the grid.
 */
export function categoryAxisEndRoom(labels: readonly string[], fontSize = 12, min = 8): number {
  if (measure === undefined) measure = typeof document === 'undefined' ? null : document.createElement('canvas').getContext('2d');
  if (measure) measure.font = `${fontSize}px ${CHART_FONT_FAMILY}`;
  let widest = 0;
  for (const label of labels) {
    // Without a canvas (unit tests), a generous average glyph width.
    widest = Math.max(widest, measure ? measure.measureText(label).width : label.length * fontSize * 0.7);
  }
  return Math.max(min, Math.ceil(widest / 2) + 2);
}

/** Shared option defaults (text colour, tooltip surface) so every chart reads as part of the console. */
export function baseOption(c: ChartColors): Record<string, unknown> {
  return {
    color: c.series,
    backgroundColor: 'transparent',
    textStyle: { color: c.muted, fontFamily: CHART_FONT_FAMILY },
    tooltip: {
      backgroundColor: c.surface,
      borderColor: c.border,
      textStyle: { color: c.text, fontSize: 12 },
      extraCssText: 'box-shadow: 0 4px 14px rgb(0 0 0 / 0.12); border-radius: 8px;',
    },
  };
}
