import { createContext } from 'react';

/**
 * The least device pixel ratio the charts inside draw at (null: the screen's). A share card's image is
 * the card at scale 2 (part 2 §9): a chart canvas drawn at the screen's ratio (1 on most desktops) was
 * copied into it at 1x and stretched, so its lines and labels came out blurred beside the card's sharp
 * text. Charts on a card draw at the image's scale, or at the screen's ratio when that is higher. A
 * ratio also marks the chart as part of an image: it is drawn in or out of view (elsewhere a chart waits
 * until it comes near the viewport, chart.tsx), since the image is taken whole. Apart from chart.tsx so
 * that a card without a chart does not load ECharts for it.
 */
export const ChartPixelRatio = createContext<number | null>(null);
