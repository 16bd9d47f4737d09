import { strategyByUid } from '@oj/contracts/strategies';
import { PageHeader } from '@/components/layout/page-header.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Badge } from '@/components/ui/badge.tsx';
import { Button } from '@/components/ui/button.tsx';
import { EmptyState } from '@/components/ui/empty-state.tsx';
import { Icon } from '@/components/ui/icons.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { daysBetween } from '@oj/contracts/business-date';
import { formatDate, formatMoney, formatStrikes, formatUtc } from '@/lib/format.ts';
import { useBusinessToday } from '@/lib/business-day.ts';
import type { QueryClient } from '@tanstack/react-query';
import { upcomingExpirationsQueryOptions, useUpcomingExpirations } from '../api/get-upcoming-expirations.ts';
import { CalendarTabs } from '../components/calendar-tabs.tsx';
import '../calendar.css';

const part = (date: string, o: Intl.DateTimeFormatOptions) => formatUtc(new Date(`${date}T00:00:00Z`), o);

function inDays(n: number): string {
  return n === 0 ? 'Today' : n === 1 ? 'Tomorrow' : `In ${n} days`;
}

/**
 * Events (/calendar/events): the spec names the page and leaves its content open; a trader's events
 * are their expirations, so this lists the open trades by expiration date for the next 60 days.
 */
export function EventsRoute() {
  const today = useBusinessToday();
  const upcoming = useUpcomingExpirations();
  const days = upcoming.data?.days ?? [];
  return (
    <>
      <PageHeader
        title="Events"
        description="Your open trades by expiration date, for the next 60 days."
        breadcrumb={[{ label: 'Home', to: '/dashboard' }, { label: 'Calendar' }]}
        actions={
          <Button variant="secondary" icon={<Icon name="rolled" size={16} />} onClick={() => void upcoming.refetch()} loading={upcoming.isFetching && !upcoming.isPending}>
            Refresh
          </Button>
        }
      />
      <CalendarTabs />
      {upcoming.isPending ? (
        <div className="card dialog-loading" role="status">
          <Spinner label="Loading expirations" />
        </div>
      ) : upcoming.isError ? (
        <Alert tone="danger">{errorMessage(upcoming.error, 'Failed to fetch trades.')}</Alert>
      ) : days.length === 0 ? (
        <div className="card">
          <EmptyState icon={<Icon name="calendar" size={28} />} title="No expirations in the next 60 days" description="Open trades show here by their expiration date." />
        </div>
      ) : (
        <ol className="ev-list" aria-label="Upcoming expirations">
          {days.map((d) => {
            const n = daysBetween(today, d.date);
            return (
              <li key={d.date} className="card ev-day" data-date={d.date}>
                <div className="ev-date" aria-hidden="true">
                  <span className="ev-date-month">{part(d.date, { month: 'short' })}</span>
                  <span className="ev-date-day">{Number(d.date.slice(8))}</span>
                  <span className="ev-date-weekday">{part(d.date, { weekday: 'short' })}</span>
                </div>
                <div>
                  <div className="ev-head">
                    <h2>
                      {formatDate(d.date)} <Badge tone={n <= 7 ? 'warning' : 'neutral'}>{inDays(n)}</Badge>
                    </h2>
                    <span className="muted">
                      {d.count} {d.count === 1 ? 'trade' : 'trades'} · {d.contracts} {d.contracts === 1 ? 'contract' : 'contracts'} · {formatMoney(d.premium)}
                    </span>
                  </div>
                  <ul className="ev-trades">
                    {d.trades.map((t) => (
                      <li key={t.uid} className="ev-trade">
                        <strong>{t.ticker}</strong>
                        <span className="muted">{strategyByUid(t.su)?.name ?? t.su}</span>
                        <span>{formatStrikes(t.sp)}</span>
                        <span className="muted">
                          {t.cs} × · opened {formatDate(t.tod)}
                        </span>
                        <span className="ev-amount">{formatMoney(t.ot === 2 ? -t.pao : t.pao)}</span>
                      </li>
                    ))}
                  </ul>
                </div>
              </li>
            );
          })}
        </ol>
      )}
    </>
  );
}

/**
 * The route's handle: locked for a lapsed plan; the shell asks for the expirations as it opens with the
 * page (a link, a reload), beside the accounts and strategies it waits for, instead of the page asking a
 * round trip later.
 */
export const eventsHandle = {
  requiresActiveSubscription: true,
  prefetch: (queryClient: QueryClient) => void queryClient.prefetchQuery(upcomingExpirationsQueryOptions()),
};
