import { useCallback, useState } from 'react';
import { CHART_FONT_FAMILY } from './chart-theme.ts';

/**
 * Legible treemap labels (the dashboard's Ticker Heat Map and its share card). ECharts truncates a label
 * to its tile, so a small tile read "-", "AM -$1." or "-$19...": here a tile shows its name and amount
 * when both fit, its name alone when only that does, and nothing when not even the name fits (the
 * tooltip and the chart's accessible name still carry every figure). The text colour is the one of
 * white and ink that contrasts more with the tile (white on the dark card's #34d399 was 1.9:1).
 */

export type TileLabel = 'full' | 'name' | 'none';

/**
 * A heat-map tile's hue by its net premium: a gain, a loss, or even (0, the calendar's yellow "Even"), the
 * same rule on the dashboard and on its share card (QA: a $0 ticker was green, a gain's colour, on the
 * dashboard and yellow on the card).
 */
export function tileHue(npc: number, hues: { positive: string; negative: string; even: string }): string {
  return npc > 0 ? hues.positive : npc < 0 ? hues.negative : hues.even;
}

export interface TileLabelSpec {
  /** Canvas font of the name and of the amount line, e.g. '700 14px'; the chart's family is added. */
  nameFont: string;
  amountFont: string;
  nameLineHeight: number;
  amountLineHeight: number;
  /** Label padding [vertical, horizontal] plus the tile's border, on each side. */
  padding: [number, number];
}

const INK = '#0b1120';
const WHITE = '#ffffff';

function channel(v: number): number {
  const s = v / 255;
  return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
}

function rgb(hex: string): [number, number, number] {
  const h = hex.replace('#', '');
  const full = h.length === 3 ? [...h].map((c) => c + c).join('') : h.slice(0, 6);
  return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16)) as [number, number, number];
}

/** WCAG relative luminance of a '#rrggbb' colour. */
export function luminance(hex: string): number {
  const [r, g, b] = rgb(hex);
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/** WCAG contrast ratio of two colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** White or ink, whichever reads better on `background`. */
export function readableTextOn(background: string): string {
  return contrastRatio(WHITE, background) >= contrastRatio(INK, background) ? WHITE : INK;
}

/** `color` laid over `under` at `alpha` (0 to 1), as one opaque colour: a tile's text colour is chosen against what is seen. */
export function blend(color: string, under: string, alpha: number): string {
  const a = rgb(color);
  const b = rgb(under);
  return `#${a.map((v, i) => Math.round(v * alpha + b[i]! * (1 - alpha)).toString(16).padStart(2, '0')).join('')}`;
}

let ctx: CanvasRenderingContext2D | null | undefined;
function textWidth(text: string, font: string): number {
  if (ctx === undefined) ctx = typeof document === 'undefined' ? null : document.createElement('canvas').getContext('2d');
  if (!ctx) return text.length * 8;
  ctx.font = `${font} ${CHART_FONT_FAMILY}`;
  return ctx.measureText(text).width;
}

/** What a tile of `width` x `height` has room for. */
export function tileLabel(width: number, height: number, name: string, amount: string, spec: TileLabelSpec): TileLabel {
  const w = width - 2 * spec.padding[1];
  const h = height - 2 * spec.padding[0];
  const nameW = textWidth(name, spec.nameFont);
  if (nameW > w || spec.nameLineHeight > h) return 'none';
  if (textWidth(amount, spec.amountFont) > w || spec.nameLineHeight + spec.amountLineHeight > h) return 'name';
  return 'full';
}

interface TreemapInstance {
  getModel(): { getSeriesByIndex(i: number): { getData(): { count(): number; getName(i: number): string; getItemLayout(i: number): { width: number; height: number } | null } } | undefined };
}

/**
 * The labels of the first series (a treemap) by node name, measured on ECharts' own layout whenever it
 * draws (a new option, a resize), and the `onEvents` that does it. On `rendered`, not `finished`: the
 * dashboard's charts never got a `finished`. A draw that changes nothing sets no state. Until the first
 * measure no label is drawn, rather than a truncated one.
 */
export function useTreemapLabels(amountOf: (name: string) => string, spec: TileLabelSpec) {
  const [labels, setLabels] = useState<Record<string, TileLabel>>({});
  const rendered = useCallback(
    // echarts-for-react passes the instance after the event's parameters.
    (_: unknown, chart?: TreemapInstance) => {
      const data = chart?.getModel().getSeriesByIndex(0)?.getData();
      if (!data) return;
      const next: Record<string, TileLabel> = {};
      for (let i = 0; i < data.count(); i++) {
        const name = data.getName(i);
        const box = data.getItemLayout(i);
        if (name && box) next[name] = tileLabel(box.width, box.height, name, amountOf(name), spec);
      }
      setLabels((prev) => (JSON.stringify(prev) === JSON.stringify(next) ? prev : next));
    },
    [amountOf, spec],
  );
  return { labels, onEvents: { rendered } };
}
