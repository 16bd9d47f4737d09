import { lazy, Suspense, useState } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { checkOpenDate } from '@oj/contracts/trades';
import { Button } from '@/components/ui/button.tsx';
import { Icon } from '@/components/ui/icons.tsx';
import { useBusinessToday } from '@/lib/business-day.ts';
import { useAccounts } from '@/features/accounts/api/get-accounts.ts';
import { useSession } from '@/features/auth/hooks/use-session.ts';
import { calendarKeys, premiumDataQueryOptions } from '@/features/calendar/api/get-premium-data.ts';
import { IncomeCalendarRoute, type DayView } from '@/features/calendar/routes/income-calendar-route.tsx';
import { AddOpenTradeDialog } from '@/features/trades/components/new-trade-dialogs.tsx';
import { TradesByDateDialog } from '@/features/trades/components/trades-by-date-dialog.tsx';
import type { RouteHandle } from '../shell/app-shell.tsx';

// The Trade Summary card draws a chart: its code (ECharts) loads when it is opened, not with the month.
const TradeSummaryShareModal = lazy(async () => ({ default: (await import('@/features/share/components/trade-summary-share.tsx')).TradeSummaryShareModal }));

/**
 * The income calendar composed by the app, because features do not import each other: the calendar
 * feature draws the month, the trades feature owns the day's dialog and the add-trade form, and the
 * share feature the Trade Summary card. A click on a day opens the add-trade form for that date (part 2
 * §2) where the form would accept that open date (a weekday, not in the future, at most 2 years back:
 * part 1 §5), with an active subscription and a trade account; on any other day, and from a day's trade
 * count, the day's trades (with an add button where adding is possible). Closing a form opened from the
 * day's trades goes back to them; closing one opened from the day closes the day.
 */
function CalendarDay({ date, view, onClose }: { date: string; view: DayView; onClose: () => void }) {
  const session = useSession();
  const accounts = useAccounts();
  const queryClient = useQueryClient();
  const today = useBusinessToday();
  const canAdd = session.subscriptionActive && (accounts.data?.length ?? 0) > 0 && checkOpenDate(date, today) === null;
  const [adding, setAdding] = useState(view === 'add' && canAdd);
  if (adding) {
    return (
      <AddOpenTradeDialog
        open
        initialDate={date}
        onClose={() => {
          void queryClient.invalidateQueries({ queryKey: calendarKeys.premium });
          if (view === 'add') onClose();
          else setAdding(false);
        }}
      />
    );
  }
  return (
    <TradesByDateDialog
      date={date}
      onClose={onClose}
      footer={
        canAdd ? (
          <Button icon={<Icon name="plus" size={16} />} onClick={() => setAdding(true)}>
            Add a trade on this day
          </Button>
        ) : undefined
      }
    />
  );
}

export function IncomeCalendarPage() {
  return (
    <IncomeCalendarRoute
      renderDay={(date, view, onClose) => <CalendarDay key={`${date}-${view}`} date={date} view={view} onClose={onClose} />}
      renderSummary={(summary, onClose) => (
        <Suspense fallback={null}>
          <TradeSummaryShareModal open onClose={onClose} summary={summary} />
        </Suspense>
      )}
    />
  );
}

/**
 * The route's handle: locked for a lapsed plan; the shell asks for the premium data (every month of the
 * window colours from it, and the page reads it whatever the month) while it loads the accounts and
 * strategies, instead of the page asking once they are in.
 */
export const incomeCalendarHandle = {
  requiresActiveSubscription: true,
  prefetch: (queryClient: QueryClient) => void queryClient.prefetchQuery(premiumDataQueryOptions()),
} satisfies RouteHandle;
