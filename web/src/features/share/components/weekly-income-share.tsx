import { formatDate, formatMoney, formatMoneyShort, formatWeekday } from '@/lib/format.ts';
import { ShareModal } from './share-modal.tsx';
import { CardHeader, CardStat, toneOf } from './card-parts.tsx';

export interface WeeklyIncomeShareProps {
  open: boolean;
  onClose: () => void;
  /** The week's weekdays (Monday to Friday): net premium and whether any trade was opened or closed. */
  days: { date: string; premium: number; active: boolean }[];
}

const dayNum = (d: string) => Number(d.slice(8));

/** Share card of the dashboard's weekly strip; Share is disabled by the spec (part 2 §2), Download works. */
export function WeeklyIncomeShareModal({ open, onClose, days }: WeeklyIncomeShareProps) {
  const total = days.reduce((s, d) => s + d.premium, 0);
  const text = `${formatMoney(total)} in option premium this week. #options`;
  return (
    <ShareModal open={open} onClose={onClose} title="Share Weekly Income" shareText={text} shareError="Failed to share weekly income." shareDisabled fileName="weekly-income.png">
      {(c) => (
        <>
          <CardHeader colors={c} title="Weekly Income" subtitle={days.length ? `${formatDate(days[0]!.date)} – ${formatDate(days.at(-1)!.date)}` : undefined} />
          <div className="share-week">
            {days.map((d) => {
              const tone = d.active ? (toneOf(Math.round(d.premium * 100) / 100) ?? 'even') : null;
              const color = tone === 'positive' ? c.positive : tone === 'negative' ? c.negative : tone === 'even' ? c.even : 'transparent';
              return (
                <div key={d.date} className="share-week-day" style={{ borderColor: tone ? color : c.border, background: tone ? `${color}22` : c.surface }}>
                  <span style={{ color: c.muted }}>{formatWeekday(d.date)}</span>
                  <strong>{dayNum(d.date)}</strong>
                  <span style={{ color: tone ? color : c.muted }}>{!d.active ? '—' : tone === 'even' ? 'Even' : formatMoneyShort(d.premium)}</span>
                </div>
              );
            })}
          </div>
          <CardStat colors={c} label="Week total" value={formatMoney(total)} tone={toneOf(total)} />
        </>
      )}
    </ShareModal>
  );
}
