import { Chart } from '@/components/charts/chart.tsx';
import { formatDate, formatMoney, formatMoneyTick, formatPercent } from '@/lib/format.ts';
import { cardChartBase } from '../utils/card-theme.ts';
import { monthFileName } from '../utils/share-links.ts';
import { ShareModal } from './share-modal.tsx';
import { CardHeader, CardStat, toneOf } from './card-parts.tsx';

/** The month's figures as the income calendar computes them (part 2 §2 "Monthly stats"). */
export interface TradeSummaryData {
  /** 'November 2026'. */
  monthLabel: string;
  premium: number;
  realized: number;
  fees: number;
  opened: number;
  closed: number;
  wins: number;
  winRate: number | null;
  roic: number | null;
  annualizedRor: number | null;
  activeDays: number;
  bestDay: { date: string; np: number } | null;
  /** Weekdays only: weekends are left out of the chart. */
  days: { date: string; np: number }[];
}

export interface TradeSummaryShareProps {
  open: boolean;
  onClose: () => void;
  summary: TradeSummaryData;
}

/**
 * The post's text. A rate the month does not have (no trade closed, no collateral) is left out rather than
 * posted as a dash (QA: "0 trades closed, — win rate, — ROIC").
 */
export function tradeSummaryShareText(s: TradeSummaryData): string {
  const parts = [`${formatMoney(s.premium)} option premium`, s.closed === 0 ? 'no trades closed' : `${s.closed} trade${s.closed === 1 ? '' : 's'} closed`];
  if (s.closed > 0 && s.winRate !== null) parts.push(`${formatPercent(s.winRate, 0)} win rate`);
  if (s.closed > 0 && s.roic !== null && Number.isFinite(s.roic)) parts.push(`${formatPercent(s.roic)} ROIC`);
  return `${s.monthLabel}: ${parts.join(', ')}. #options #optionsincome`;
}

/** The monthly Trade Summary: month statistics, a weekday chart, theme, Share and Download (named by the month). */
export function TradeSummaryShareModal({ open, onClose, summary: s }: TradeSummaryShareProps) {
  const text = tradeSummaryShareText(s);
  return (
    <ShareModal open={open} onClose={onClose} title="Trade Summary" shareText={text} shareError="Failed to share trade summary." fileName={monthFileName('trade-summary', s.monthLabel)}>
      {(c) => (
        <>
          <CardHeader colors={c} title={`${s.monthLabel} Trade Summary`} subtitle={`${s.activeDays} active day${s.activeDays === 1 ? '' : 's'} · ${s.opened} opened · ${s.closed} closed`} />
          <div className="share-hero" style={{ color: s.premium > 0 ? c.positive : s.premium < 0 ? c.negative : c.text }}>
            <span data-testid="summary-premium">{formatMoney(s.premium)}</span>
            <span style={{ color: c.muted }}>Net premium</span>
          </div>
          <div className="share-grid share-grid-3">
            <CardStat colors={c} label="Win rate" value={<span data-testid="summary-win-rate">{formatPercent(s.winRate)}</span>} hint={`${s.wins} of ${s.closed} closed`} />
            <CardStat colors={c} label="ROIC" value={<span data-testid="summary-roic">{formatPercent(s.roic)}</span>} tone={toneOf(s.roic)} />
            <CardStat colors={c} label="Annualised ROR" value={<span data-testid="summary-arr">{formatPercent(s.annualizedRor)}</span>} tone={toneOf(s.annualizedRor)} />
            <CardStat colors={c} label="Realized" value={formatMoney(s.realized)} tone={toneOf(s.realized)} />
            <CardStat colors={c} label="Fees" value={formatMoney(s.fees)} />
            <CardStat colors={c} label="Best day" value={s.bestDay ? formatMoney(s.bestDay.np) : '—'} hint={s.bestDay ? formatDate(s.bestDay.date) : undefined} />
          </div>
          <Chart
            label="Net premium per weekday"
            height={170}
            empty={s.days.length === 0}
            option={{
              ...cardChartBase(c),
              grid: { left: 6, right: 6, top: 12, bottom: 2, containLabel: true },
              xAxis: { type: 'category', data: s.days.map((d) => String(Number(d.date.slice(8)))), axisLine: { lineStyle: { color: c.border } }, axisTick: { show: false }, axisLabel: { color: c.muted, fontSize: 9 } },
              yAxis: { type: 'value', splitLine: { lineStyle: { color: c.border } }, axisLabel: { color: c.muted, fontSize: 9, formatter: (v: number) => formatMoneyTick(v) } },
              series: [{ type: 'bar', barMaxWidth: 14, data: s.days.map((d) => ({ value: d.np, itemStyle: { color: d.np >= 0 ? c.positive : c.negative, borderRadius: 3 } })) }],
            }}
          />
        </>
      )}
    </ShareModal>
  );
}
