import { Chart } from '@/components/charts/chart.tsx';
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

/** Share card of the ticker heat map; its Share is disabled by the spec (part 2 §2), Download works. */
export function TickerHeatMapShareModal({ open, onClose, periodLabel, tickers }: TickerHeatMapShareProps) {
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
                  label: { show: true, color: '#ffffff', fontSize: 13, fontWeight: 700, lineHeight: 18, formatter: (p: { name: string; data: { npc: number } }) => `${p.name}\n${formatMoneyShort(p.data.npc)}` },
                  // Even (yellow) blocks take dark text: white on yellow cannot be read.
                  data: tickers.map((t) => ({
                    name: t.ticker,
                    value: t.count,
                    npc: t.npc,
                    itemStyle: { color: t.npc > 0 ? c.positive : t.npc < 0 ? c.negative : c.even },
                    ...(t.npc === 0 ? { label: { color: '#1f2937' } } : {}),
                  })),
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
