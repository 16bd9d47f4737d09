import { useCallback, useMemo, useState } from 'react';
import type { SwitchPeriod } from '@oj/contracts/trade-views';
import { Chart } from '@/components/charts/chart.tsx';
import { useChartColors } from '@/components/charts/chart-theme.ts';
import { blend, readableTextOn, tileHue, useTreemapLabels, type TileLabelSpec } from '@/components/charts/treemap-labels.ts';
import { formatMoney, formatMoneyShort } from '@/lib/format.ts';
import type { DashboardData } from '../api/get-dashboard-data.ts';
import { firstWithData } from '../utils/dashboard-math.ts';
import { Segmented, ShareButton, SWITCH_LABELS, SWITCH_OPTIONS, Widget } from './widget.tsx';

/** The tiles' label: the ticker in bold over its amount (K / M from 1000), inside a padding of 8 x 10 and a 2 px border. */
const LABEL: TileLabelSpec = { nameFont: '700 14px', amountFont: '600 12px', nameLineHeight: 20, amountLineHeight: 16, padding: [10, 12] };

/** Ticker Heat Map: closed trades per ticker (block size by trade count), green or red by realized premium. */
export function TickerHeatMap({ data, onShare }: { data: DashboardData; onShare?: (period: SwitchPeriod) => void }) {
  const c = useChartColors();
  const [chosen, setChosen] = useState<SwitchPeriod | null>(null);
  const period = chosen ?? firstWithData(['m', 'ytd', 'y'] as const, (p) => data.breakdowns[p].tickers.length > 0);
  const tickers = data.breakdowns[period].tickers;
  const amountOf = useCallback((name: string) => formatMoneyShort(tickers.find((t) => t.ticker === name)?.npc ?? 0), [tickers]);
  const { labels, onEvents } = useTreemapLabels(amountOf, LABEL);
  const option = useMemo(() => {
    const maxAbs = Math.max(1, ...tickers.map((t) => Math.abs(t.npc)));
    const hues = { positive: c.success, negative: c.danger, even: c.warning };
    return {
      tooltip: {
        formatter: (p: { name: string; value: number; data: { npc: number } }) => `<b>${p.name}</b><br/>${p.value} closed · ${formatMoney(p.data.npc)}`,
      },
      series: [
        {
          type: 'treemap',
          roam: false,
          nodeClick: false,
          breadcrumb: { show: false },
          width: '100%',
          height: '100%',
          itemStyle: { borderColor: c.surface, borderWidth: 2, gapWidth: 2, borderRadius: 6 },
          data: tickers.map((t) => {
            // Stronger colour for a bigger share of the period's largest result, blended over the card here
            // (not an opacity) so the label's colour is chosen against the colour actually seen.
            const fill = blend(tileHue(t.npc, hues), c.surface, 0.45 + 0.55 * (Math.abs(t.npc) / maxAbs));
            const ink = readableTextOn(fill);
            const shown = labels[t.ticker] ?? 'none';
            return {
              name: t.ticker,
              value: t.count,
              npc: t.npc,
              itemStyle: { color: fill },
              label: {
                show: shown !== 'none',
                padding: [8, 10],
                formatter: shown === 'full' ? `{t|${t.ticker}}\n{v|${formatMoneyShort(t.npc)}}` : `{t|${t.ticker}}`,
                rich: { t: { fontWeight: 700, fontSize: 14, color: ink, lineHeight: LABEL.nameLineHeight }, v: { fontWeight: 600, fontSize: 12, color: ink, lineHeight: LABEL.amountLineHeight } },
              },
            };
          }),
        },
      ],
    };
  }, [tickers, c, labels]);
  return (
    <Widget
      id="ticker-heat-map"
      title="Ticker Heat Map"
      subtitle={`Closed trades · ${SWITCH_LABELS[period]}`}
      actions={
        <>
          <Segmented label="Heat map period" options={SWITCH_OPTIONS} value={period} onChange={setChosen} />
          {/* The card's own Share is disabled by part 2 §2; its download works. */}
          <ShareButton label="Share Ticker Heat Map" onShare={onShare && (() => onShare(period))} />
        </>
      }
    >
      <Chart label={`Ticker heat map, ${SWITCH_LABELS[period]}`} values={tickers.map((t) => `${t.ticker} ${t.count} closed, ${formatMoney(t.npc)}`)} option={option} onEvents={onEvents} height={280} empty={tickers.length === 0} />
    </Widget>
  );
}
