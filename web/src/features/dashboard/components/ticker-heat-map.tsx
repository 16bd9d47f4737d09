import { useMemo, useState } from 'react';
import type { SwitchPeriod } from '@oj/contracts/trade-views';
import { Chart } from '@/components/charts/chart.tsx';
import { useChartColors } from '@/components/charts/chart-theme.ts';
import { formatMoney } from '@/lib/format.ts';
import type { DashboardData } from '../api/get-dashboard-data.ts';
import { firstWithData } from '../utils/dashboard-math.ts';
import { Segmented, ShareButton, SWITCH_LABELS, SWITCH_OPTIONS, Widget } from './widget.tsx';

/** Ticker Heat Map: closed trades per ticker (block size by trade count), green or red by realized premium. */
export function TickerHeatMap({ data, onShare }: { data: DashboardData; onShare?: (period: SwitchPeriod) => void }) {
  const c = useChartColors();
  const [chosen, setChosen] = useState<SwitchPeriod | null>(null);
  const period = chosen ?? firstWithData(['m', 'ytd', 'y'] as const, (p) => data.breakdowns[p].tickers.length > 0);
  const tickers = data.breakdowns[period].tickers;
  const option = useMemo(() => {
    const maxAbs = Math.max(1, ...tickers.map((t) => Math.abs(t.npc)));
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
          label: {
            show: true,
            padding: [8, 10],
            formatter: (p: { name: string; data: { npc: number } }) => `{t|${p.name}}\n{v|${formatMoney(p.data.npc)}}`,
            rich: { t: { fontWeight: 700, fontSize: 14, color: '#fff', lineHeight: 20 }, v: { fontSize: 12, color: '#ffffffdd' } },
          },
          data: tickers.map((t) => {
            // Stronger colour for a bigger share of the period's largest result.
            const a = 0.45 + 0.55 * (Math.abs(t.npc) / maxAbs);
            const base = t.npc >= 0 ? c.success : c.danger;
            return { name: t.ticker, value: t.count, npc: t.npc, itemStyle: { color: base, opacity: a } };
          }),
        },
      ],
    };
  }, [tickers, c]);
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
      <Chart label={`Ticker heat map, ${SWITCH_LABELS[period]}`} values={tickers.map((t) => `${t.ticker} ${t.count} closed, ${formatMoney(t.npc)}`)} option={option} height={280} empty={tickers.length === 0} />
    </Widget>
  );
}
