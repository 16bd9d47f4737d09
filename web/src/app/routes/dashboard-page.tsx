import { lazy, Suspense } from 'react';
import type { QueryClient } from '@tanstack/react-query';
import { dashboardDataQueryOptions } from '@/features/dashboard/api/get-dashboard-data.ts';
import { DashboardRoute, type DashboardShare } from '@/features/dashboard/routes/dashboard-route.tsx';
import { TradesByDateDialog } from '@/features/trades/components/trades-by-date-dialog.tsx';
import { formatDate } from '@/lib/format.ts';
import { monthHasActivity } from '@/features/dashboard/utils/dashboard-math.ts';
import type { RouteHandle } from '../shell/app-shell.tsx';

// Share cards load when one is opened, not with the dashboard.
const IncomeQuadrantShareModal = lazy(async () => ({ default: (await import('@/features/share/components/income-quadrant-share.tsx')).IncomeQuadrantShareModal }));
const PremiumByMonthShareModal = lazy(async () => ({ default: (await import('@/features/share/components/premium-by-month-share.tsx')).PremiumByMonthShareModal }));
const TickerHeatMapShareModal = lazy(async () => ({ default: (await import('@/features/share/components/ticker-heat-map-share.tsx')).TickerHeatMapShareModal }));
const WeeklyIncomeShareModal = lazy(async () => ({ default: (await import('@/features/share/components/weekly-income-share.tsx')).WeeklyIncomeShareModal }));

const PERIOD_LABELS = { m: 'Month', ytd: 'Year to date', y: 'Year' } as const;

function ShareCard({ share, onClose }: { share: DashboardShare; onClose: () => void }) {
  switch (share.kind) {
    case 'quadrant':
      return <IncomeQuadrantShareModal open onClose={onClose} periods={share.cells.map((c) => ({ label: c.label, value: c.value, previous: c.previous, change: c.change }))} asOf={`as of ${formatDate(share.asOf)}`} />;
    case 'months':
      return <PremiumByMonthShareModal open onClose={onClose} months={share.months.map((m) => ({ month: m.month, premium: m.np, active: monthHasActivity(m) }))} />;
    case 'heat-map':
      return <TickerHeatMapShareModal open onClose={onClose} periodLabel={PERIOD_LABELS[share.period]} tickers={share.tickers} />;
    case 'weekly':
      return <WeeklyIncomeShareModal open onClose={onClose} days={share.days} />;
  }
}

/**
 * The dashboard composed by the app, because features do not import each other: the dashboard draws
 * the widgets, the trades feature owns the day's trades dialog, the share feature the share cards.
 */
export function DashboardPage() {
  return (
    <DashboardRoute
      renderDayDialog={(date, onClose) => <TradesByDateDialog date={date} onClose={onClose} />}
      renderShare={(share, onClose) => (
        <Suspense fallback={null}>
          <ShareCard share={share} onClose={onClose} />
        </Suspense>
      )}
    />
  );
}

/**
 * The route's handle: the shell asks for the premium data while it loads the accounts and strategies
 * (before the page renders), instead of the page asking once they are in: a round trip less.
 */
export const dashboardHandle = {
  prefetch: (queryClient: QueryClient) => void queryClient.prefetchQuery(dashboardDataQueryOptions()),
} satisfies RouteHandle;
