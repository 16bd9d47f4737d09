import { useCallback } from 'react';
import { Chart } from '@/components/charts/chart.tsx';
import { readableTextOn, tileHue, useTreemapLabels, type TileLabelSpec } from '@/components/charts/treemap-labels.ts';
import { formatMoney, formatMoneyShort } from '@/lib/format.ts';
import { cardChartBase } from '../utils/card-theme.ts';
import { ShareModal } from './share-modal.tsx';
import { CardHeader } from './card-parts.tsx';

export interface TickerHeatMapShareProps {
  open: boolean;
  onClose: () => void;
  /** 'Month', 'Year to date', 'Year'. */
  periodLabel: string;
  /** Block size by trade count, colour by net premium captured (part 2 §2). */
  tickers: { ticker: string; count: number; npc: number }[];
}

/** The tiles' label: ticker over amount, both 13 px bold on 18 px lines, ECharts' 5 px padding and a 2 px border. */
const LABEL: TileLabelSpec = { nameFont: '700 13px', amountFont: '700 13px', nameLineHeight: 18, amountLineHeight: 18, padding: [7, 7] };

/** Share card of the ticker heat map; its Share is disabled by the spec (part 2 §2), Download works. */
export function TickerHeatMapShareModal({ open, onClose, periodLabel, tickers }: TickerHeatMapShareProps) {
  const amountOf = useCallback((name: string) => formatMoneyShort(tickers.find((t) => t.ticker === name)?.npc ?? 0), [tickers]);
  const { labels, onEvents } = useTreemapLabels(amountOf, LABEL);
  const text = `My most traded tickers (${periodLabel}): ${tickers.slice(0, 5).map((t) => t.ticker).join(', ')}.`;
  return (
    <ShareModal open={open} onClose={onClose} title="Share Ticker Heat Map" shareText={text} shareError="Failed to share summary." shareDisabled fileName="ticker-heat-map.png">
      {(c) => (
        <>
          <CardHeader colors={c} title="Ticker Heat Map" subtitle={`${periodLabel} · size by trades, colour by premium`} />
          <Chart
            label="Ticker heat map"
            height={300}
            empty={tickers.length === 0}
            onEvents={onEvents}
            option={{
              ...cardChartBase(c),
              series: [
                {
                  type: 'treemap',
                  roam: false,
                  nodeClick: false,
                  breadcrumb: { show: false },
                  width: '100%',
                  height: '100%',
                  itemStyle: { borderColor: c.bg, borderWidth: 2, gapWidth: 2, borderRadius: 6 },
                  label: { fontSize: 13, fontWeight: 700, lineHeight: LABEL.nameLineHeight },
                  // The text takes white or ink, whichever contrasts more with the tile (white on the dark
                  // card's green was 1.9:1, on its red 2.8:1; ink on the even yellow).
                  data: tickers.map((t) => {
                    const fill = tileHue(t.npc, c);
                    const shown = labels[t.ticker] ?? 'none';
                    return {
                      name: t.ticker,
                      value: t.count,
                      npc: t.npc,
                      itemStyle: { color: fill },
                      label: { show: shown !== 'none', color: readableTextOn(fill), formatter: shown === 'full' ? `${t.ticker}\n${formatMoneyShort(t.npc)}` : t.ticker },
                    };
                  }),
                },
              ],
            }}
          />
          <p className="share-card-foot" style={{ color: c.muted }}>
            {tickers.length} tickers · {formatMoney(tickers.reduce((s, t) => s + t.npc, 0))} captured
          </p>
        </>
      )}
    </ShareModal>
  );
}
