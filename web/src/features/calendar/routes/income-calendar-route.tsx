import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { PageHeader } from '@/components/layout/page-header.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Icon } from '@/components/ui/icons.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { formatMoney, formatPercent } from '@/lib/format.ts';
import { useBusinessToday } from '@/lib/business-day.ts';
import { premiumWindowStart } from '@oj/contracts/trade-views';
import { useMonthDays, usePremiumData } from '../api/get-premium-data.ts';
import { MonthGrid } from '../components/month-grid.tsx';
import { askedMonth, monthLabel, monthOf, monthStats, recordsByDate, shiftMonth, type MonthStats } from '../utils/month.ts';
import { CalendarTabs } from '../components/calendar-tabs.tsx';
import '../calendar.css';

export type MonthSummary = MonthStats & { monthLabel: string };

export interface IncomeCalendarRouteProps {
  /**
   * A day opened (the app composes the trades feature's dialogs in here): `add` from a click on the
   * day (part 2 §2: the add-trade form for that date), `trades` from its trade count.
   */
  renderDay?: (date: string, view: DayView, onClose: () => void) => ReactNode;
  /** The Trade Summary share modal (composed by the app from the share feature). */
  renderSummary?: (summary: MonthSummary, onClose: () => void) => ReactNode;
}

export type DayView = 'add' | 'trades';

/** A figure not known yet (the records are loading, or could not be loaded). */
const UNKNOWN = '—';

/**
 * Income calendar (part 2 §2): a month of days coloured by net premium, previous / next, Refresh,
 * Trade Summary; a click on a day up to today (New York) opens the add-trade form for that date, and
 * a click on a day's trade count that day's trades. The month is
 * kept in the address (?month=YYYY-MM) so a reload or a shared link shows the same month.
 */
export function IncomeCalendarRoute({ renderDay, renderSummary }: IncomeCalendarRouteProps) {
  const today = useBusinessToday();
  const [params, setParams] = useSearchParams();
  const asked = params.get('month');
  const month = askedMonth(asked) ?? monthOf(today);
  // A month that is not one (?month=2026-13, ?month=0099-05) shows this month, and the address says so.
  const unreadable = asked !== null && askedMonth(asked) === null;
  useEffect(() => {
    if (unreadable) setParams({}, { replace: true });
  }, [unreadable, setParams]);
  // The premium data's days start on 1 January two years back; a month before it (a journal kept for
  // years) reads its own records (QA 74: those months showed empty, "0 active days").
  const beforeWindow = `${month}-01` < premiumWindowStart(today);
  const inWindow = usePremiumData();
  const older = useMonthDays(month, beforeWindow);
  const premium = beforeWindow ? older : inWindow;
  const [openDay, setOpenDay] = useState<{ date: string; view: DayView } | null>(null);
  const [summaryOpen, setSummaryOpen] = useState(false);
  const byDate = useMemo(() => recordsByDate(premium.data?.daily_income ?? []), [premium.data]);
  const stats = useMemo(() => monthStats(month, byDate, today), [month, byDate, today]);
  // Each month shown is a step in the history: Back returns to the month before.
  const go = (m: string) => setParams(m === monthOf(today) ? {} : { month: m });
  // Until the records are here (loading, or a failed load) the month's figures are unknown, not zero.
  const known = premium.data !== undefined;
  const isCurrent = month === monthOf(today);

  return (
    <>
      <PageHeader
        title="Income"
        breadcrumb={[{ label: 'Home', to: '/dashboard' }, { label: 'Calendar' }]}
        actions={
          <>
            <Button variant="secondary" icon={<Icon name="layers" size={16} />} onClick={() => setSummaryOpen(true)} disabled={!premium.data}>
              Trade Summary
            </Button>
            <Button variant="secondary" icon={<Icon name="rolled" size={16} />} onClick={() => void premium.refetch()} loading={premium.isFetching && !premium.isPending}>
              Refresh
            </Button>
          </>
        }
      />
      <CalendarTabs />
      <section className="card cal-card" aria-label={`Income for ${monthLabel(month)}`}>
        <div className="cal-toolbar">
          <div className="cal-nav">
            <button type="button" className="icon-button" aria-label="Previous month" onClick={() => go(shiftMonth(month, -1))}>
              <Icon name="chevronLeft" />
            </button>
            <h2 className="cal-month" aria-live="polite">
              {monthLabel(month)}
            </h2>
            <button type="button" className="icon-button" aria-label="Next month" onClick={() => go(shiftMonth(month, 1))}>
              <Icon name="chevronRight" />
            </button>
            {!isCurrent && (
              <Button variant="ghost" size="sm" onClick={() => go(monthOf(today))}>
                Today
              </Button>
            )}
          </div>
          <dl className="cal-totals">
            <div>
              <dt>Net premium</dt>
              <dd className={known && stats.premium > 0 ? 'cal-pos' : known && stats.premium < 0 ? 'cal-neg' : ''} data-testid="month-premium">
                {known ? formatMoney(stats.premium) : UNKNOWN}
              </dd>
            </div>
            <div>
              <dt>Active days</dt>
              <dd>{known ? stats.activeDays : UNKNOWN}</dd>
            </div>
            <div>
              <dt>Win rate</dt>
              <dd>{known ? formatPercent(stats.winRate) : UNKNOWN}</dd>
            </div>
          </dl>
        </div>
        {premium.isError && (
          <Alert tone="danger" title="Failed to fetch premium data">
            <Button variant="secondary" size="sm" onClick={() => void premium.refetch()} loading={premium.isFetching}>
              Try again
            </Button>
          </Alert>
        )}
        <div className="cal-body">
          {premium.isPending && (
            <div className="cal-loading" role="status">
              <Spinner label="Loading income" />
            </div>
          )}
          <MonthGrid
            month={month}
            byDate={byDate}
            today={today}
            onOpenDay={(date) => date <= today && setOpenDay({ date, view: 'add' })}
            onViewTrades={(date) => date <= today && setOpenDay({ date, view: 'trades' })}
          />
        </div>
        <ul className="cal-legend" aria-label="Legend">
          <li>
            <span className="cal-swatch cal-tone-positive" /> Net premium collected
          </li>
          <li>
            <span className="cal-swatch cal-tone-negative" /> Net premium paid
          </li>
          <li>
            <span className="cal-swatch cal-tone-even" /> Even
          </li>
          <li>
            <span className="cal-swatch cal-tone-none" /> No trades
          </li>
        </ul>
      </section>
      {openDay && renderDay?.(openDay.date, openDay.view, () => setOpenDay(null))}
      {summaryOpen && renderSummary?.({ ...stats, monthLabel: monthLabel(month) }, () => setSummaryOpen(false))}
    </>
  );
}
