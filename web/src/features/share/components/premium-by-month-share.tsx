import { Chart } from '@/components/charts/chart.tsx';
import { categoryAxisEndRoom } from '@/components/charts/chart-theme.ts';
import { formatMoney, formatMoneyTick, formatMonthShort } from '@/lib/format.ts';
import { bestMonth } from '../utils/best-month.ts';
import { cardChartBase } from '../utils/card-theme.ts';
import { ShareModal } from './share-modal.tsx';
import { CardHeader, CardStat, toneOf } from './card-parts.tsx';

export interface PremiumByMonthShareProps {
  open: boolean;
  onClose: () => void;
  /** Oldest first; 'YYYY-MM', the month's net premium, and whether anything happened in it (a trade opened or closed). */
  months: { month: string; premium: number; active: boolean }[];
}

/** Share card of Income By Month (last 12 months, part 2 §2). */
export function PremiumByMonthShareModal({ open, onClose, months }: PremiumByMonthShareProps) {
  const total = months.reduce((s, m) => s + m.premium, 0);
  const labels = months.map((m) => formatMonthShort(m.month));
  const best = bestMonth(months);
  const text = `${formatMoney(total)} in option premium over the last ${months.length} months${best ? `, best month ${formatMonthShort(best.month)} (${formatMoney(best.premium)})` : ''}. #options #optionsincome`;
  return (
    <ShareModal open={open} onClose={onClose} title="Share Premium Income by Month" shareText={text} shareError="Failed to share monthly income." fileName="premium-income-by-month.png">
      {(c) => (
        <>
          <CardHeader colors={c} title="Premium Income by Month" subtitle={months.length ? `${formatMonthShort(months[0]!.month)} – ${formatMonthShort(months.at(-1)!.month)}` : undefined} />
          <div className="share-grid share-grid-2">
            <CardStat colors={c} label="Total" value={formatMoney(total)} tone={toneOf(total)} />
            <CardStat colors={c} label="Best month" value={best ? formatMoney(best.premium) : 'No income yet'} compact={!best} hint={best ? formatMonthShort(best.month) : undefined} />
          </div>
          <Chart
            label="Premium income by month"
            values={months.map((m) => `${formatMonthShort(m.month)} ${formatMoney(m.premium)}`)}
            height={230}
            // "No Data" as the dashboard's chart says it (QA: an empty $0 to $1 axis for a journal without trades).
            empty={!months.some((m) => m.active)}
            option={{
              ...cardChartBase(c),
              grid: { left: 8, right: categoryAxisEndRoom(labels, 10), top: 16, bottom: 4, containLabel: true },
              xAxis: {
                type: 'category',
                data: labels,
                axisLine: { lineStyle: { color: c.border } },
                axisTick: { show: false },
                // Every other month counted back from the newest, so the last month is always labelled
                // (ECharts' own interval counts from the oldest and left it out of twelve).
                axisLabel: { color: c.muted, fontSize: 10, interval: (i: number) => (labels.length - 1 - i) % 2 === 0 },
              },
              yAxis: { type: 'value', splitLine: { lineStyle: { color: c.border } }, axisLabel: { color: c.muted, fontSize: 10, formatter: (v: number) => formatMoneyTick(v) } },
              series: [
                {
                  type: 'bar',
                  barMaxWidth: 26,
                  data: months.map((m) => ({ value: m.premium, itemStyle: { color: m.premium >= 0 ? c.positive : c.negative, borderRadius: m.premium >= 0 ? [4, 4, 0, 0] : [0, 0, 4, 4] } })),
                },
              ],
            }}
          />
        </>
      )}
    </ShareModal>
  );
}
