import { CHART_FONT_FAMILY } from '@/components/charts/chart-theme.ts';

/**
 * A share card has its own light/dark switch, independent of the console's theme (the trader may want
 * a dark card from a light console), so its colours are fixed here rather than read from the page's
 * tokens; charts on a card take these too.
 */
export type CardTheme = 'light' | 'dark';

export interface CardColors {
  bg: string;
  surface: string;
  text: string;
  muted: string;
  border: string;
  accent: string;
  positive: string;
  negative: string;
  even: string;
  series: string[];
}

export const CARD_COLORS: Record<CardTheme, CardColors> = {
  light: {
    bg: '#ffffff',
    surface: '#f4f7fb',
    text: '#0f172a',
    muted: '#5b6780',
    border: '#e2e8f0',
    accent: '#1f5eff',
    positive: '#0f9d6b',
    negative: '#dc3545',
    even: '#d4a017',
    series: ['#1f5eff', '#0f9d6b', '#d4a017', '#0b7dbf', '#7c4dff', '#dc3545', '#14998a', '#d63384', '#8a94a6'],
  },
  dark: {
    bg: '#0b1120',
    surface: '#152038',
    text: '#e8eefc',
    muted: '#94a3c0',
    border: '#243350',
    accent: '#5b8cff',
    positive: '#34d399',
    negative: '#f87171',
    even: '#facc15',
    series: ['#5b8cff', '#34d399', '#facc15', '#38bdf8', '#b48cff', '#f87171', '#5fd4c4', '#f59ac2', '#94a3b8'],
  },
};

/** ECharts defaults for a chart drawn on a card: the card's colours, and no animation (the PNG is taken at once). */
export function cardChartBase(c: CardColors): Record<string, unknown> {
  return {
    animation: false,
    color: c.series,
    backgroundColor: 'transparent',
    textStyle: { color: c.muted, fontFamily: CHART_FONT_FAMILY },
    tooltip: { show: false },
  };
}
