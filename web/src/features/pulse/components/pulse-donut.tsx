import { Chart } from '@/components/charts/chart.tsx';
import { useChartColors } from '@/components/charts/chart-theme.ts';
import { formatMoney } from '@/lib/format.ts';
import { donutData, type DonutSlice } from '../utils/donut-data.ts';

export type { DonutSlice };

/** A donut chart; "No Data" when nothing is in it (part 2 §8). */
/** `center` is the figure in the hole (the signed total: a slice's size is its absolute amount). */
export function PulseDonut({ label, slices, center, money = false }: { label: string; slices: DonutSlice[]; center: string; money?: boolean }) {
  const c = useChartColors();
  return (
    <Chart
      // The canvas says nothing to a screen reader: its name carries the slices, as the tooltips do.
      label={label}
      values={slices.map((s) => `${s.name} ${s.caption ?? (money ? formatMoney(s.value) : s.value)}`)}
      height={260}
      empty={slices.length === 0}
      option={{
        tooltip: { trigger: 'item', backgroundColor: c.surface, borderColor: c.border, textStyle: { color: c.text, fontSize: 12 }, formatter: (p: { name: string; value: number; percent: number; data: DonutSlice }) => `${p.name}<br/><b>${p.data.caption ?? (money ? formatMoney(p.value) : p.value)}</b> (${p.percent}%)` },
        legend: { bottom: 0, type: 'scroll', icon: 'circle', itemWidth: 8, itemHeight: 8, textStyle: { fontSize: 11, color: c.muted }, pageTextStyle: { color: c.muted } },
        series: [
          {
            type: 'pie',
            radius: ['52%', '76%'],
            center: ['50%', '44%'],
            avoidLabelOverlap: true,
            // One slice is a whole ring: rounded ends would draw a notch where it meets itself.
            itemStyle: slices.length > 1 ? { borderRadius: 6, borderWidth: 2, borderColor: 'transparent' } : {},
            label: { show: true, position: 'center', formatter: () => center, fontSize: 16, fontWeight: 700, color: c.text, textBorderWidth: 0 },
            labelLine: { show: false },
            emphasis: { scale: true, scaleSize: 4, label: { show: true, color: c.text, textBorderWidth: 0 } },
            data: donutData(slices, c),
          },
        ],
      }}
    />
  );
}
