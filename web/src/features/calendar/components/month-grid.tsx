import type { DailyIncomeSums } from '@oj/contracts/trade-views';
import { formatLongDate, formatMoneyShort } from '@/lib/format.ts';
import { dayAmountShort, dayTone, monthLabel, monthWeeks } from '../utils/month.ts';

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];


export interface MonthGridProps {
  month: string;
  byDate: Map<string, DailyIncomeSums>;
  /** Today in New York: later days cannot be opened (part 2 §2). */
  today: string;
  /** A click on the day (part 2 §2: the add-trade form for that date). */
  onOpenDay: (date: string) => void;
  /** A click on a day's trade count: that day's trades. */
  onViewTrades: (date: string) => void;
}

/**
 * The month's days coloured by net premium: green collected, red paid, yellow even, none without trades.
 * A day with trades carries a second button, its trade count, beside the day's own (a button cannot
 * hold another): the day opens the add-trade form, the count that day's trades.
 */
export function MonthGrid({ month, byDate, today, onOpenDay, onViewTrades }: MonthGridProps) {
  return (
    <div className="cal-grid" role="grid" aria-label={`Income calendar, ${monthLabel(month)}`}>
      <div className="cal-row cal-head" role="row">
        {WEEKDAYS.map((d) => (
          <div key={d} role="columnheader" className="cal-weekday">
            <span className="cal-weekday-long">{d}</span>
            <span className="cal-weekday-short" aria-hidden="true">
              {d[0]}
            </span>
          </div>
        ))}
      </div>
      {monthWeeks(month).map((week, i) => (
        <div key={i} className="cal-row" role="row">
          {week.map((date, j) => {
            if (!date) return <div key={`blank-${j}`} className="cal-day cal-day-blank" role="gridcell" aria-hidden="true" />;
            const r = byDate.get(date);
            const tone = dayTone(r);
            const future = date > today;
            const label = tone === 'none' ? '' : tone === 'even' ? 'Even' : formatMoneyShort(r!.np);
            const trades = r ? r.otc + r.ctc : 0;
            // The count's button, and the room kept for it at the day's foot, on a day that can be opened.
            const counted = trades > 0 && !future;
            return (
              <div key={date} role="gridcell" className={`cal-cell${counted ? ' has-trades' : ''}`}>
                <button
                  type="button"
                  className={`cal-day cal-tone-${tone}${date === today ? ' is-today' : ''}${j === 0 || j === 6 ? ' is-weekend' : ''}`}
                  data-date={date}
                  data-tone={tone}
                  disabled={future}
                  // Named as it reads ("November 23: $650.00"; the year is the grid's): a name holding the visible
                  // day number and amount in their order is one a voice command can say.
                  aria-label={`${monthLabel(month).split(' ')[0]} ${Number(date.slice(8))}: ${label || 'no trades'}`}
                  onClick={() => onOpenDay(date)}
                >
                  <span className="cal-day-num">{Number(date.slice(8))}</span>
                  {label && <span className="cal-day-amount">{label}</span>}
                  {label && (
                    <span className="cal-day-amount-short" aria-hidden="true">
                      {tone === 'even' ? 'Even' : dayAmountShort(r!.np)}
                    </span>
                  )}
                </button>
                {counted && (
                  // The button is the thumb's target and the badge is drawn inside it: a target drawn past a
                  // button's edge (a pseudo-element) is not one every browser and audit counts.
                  <button type="button" className="cal-day-trades" aria-label={`${trades} ${trades === 1 ? 'trade' : 'trades'} on ${formatLongDate(date)}`} onClick={() => onViewTrades(date)}>
                    <span className="cal-day-trades-badge">
                      <span className="cal-day-trades-long">
                        {trades} {trades === 1 ? 'trade' : 'trades'}
                      </span>
                      <span className="cal-day-trades-short" aria-hidden="true">
                        {trades}
                      </span>
                    </span>
                  </button>
                )}
              </div>
            );
          })}
        </div>
      ))}
    </div>
  );
}
