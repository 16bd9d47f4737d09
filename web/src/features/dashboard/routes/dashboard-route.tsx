import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import type { MonthlyIncome, PeriodBreakdown, SwitchPeriod } from '@oj/contracts/trade-views';
import { PageHeader } from '@/components/layout/page-header.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Icon } from '@/components/ui/icons.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { useDashboardData, type DashboardData } from '../api/get-dashboard-data.ts';
import { IncomeQuadrant, type QuadrantCell } from '../components/income-quadrant.tsx';
import { PerformanceMetrics } from '../components/performance-metrics.tsx';
import { PremiumIncome } from '../components/premium-income.tsx';
import { QuickGuide } from '../components/quick-guide.tsx';
import { Disposition, KeyStats, Strategies, useSidePeriod, YearlyIncome } from '../components/side-column.tsx';
import { DailyPremium, IncomeByMonth, OpenCloseCount, OpenTrades, RealizedIncome, TradeFlow, WeeklyStrip } from '../components/snapshot.tsx';
import { TickerHeatMap } from '../components/ticker-heat-map.tsx';
import { currentWeek, isActive } from '../utils/dashboard-math.ts';
import '../dashboard.css';

/** What a share card needs; the app renders the share feature's modals from it (features do not import each other). */
export type DashboardShare =
  | { kind: 'quadrant'; cells: QuadrantCell[]; asOf: string }
  | { kind: 'months'; months: MonthlyIncome[] }
  | { kind: 'heat-map'; period: SwitchPeriod; tickers: PeriodBreakdown['tickers'] }
  | { kind: 'weekly'; days: { date: string; premium: number; active: boolean }[] };

export interface DashboardRouteProps {
  /** The day-detail dialog of a weekly strip day (the trades feature's trades-by-date dialog). */
  renderDayDialog: (date: string, onClose: () => void) => ReactNode;
  /** The share card of a widget; without it the share buttons are disabled. */
  renderShare?: (share: DashboardShare, onClose: () => void) => ReactNode;
}

/** /dashboard (part 2 §2): a loader until the premium data is in, then every widget from that one answer. */
export function DashboardRoute({ renderDayDialog, renderShare }: DashboardRouteProps) {
  const query = useDashboardData();
  const [guide, setGuide] = useState(false);
  const actions = (
    <>
      <Button variant="secondary" size="sm" icon={<Icon name="trend" size={16} />} loading={query.isFetching && !query.isPending} onClick={() => void query.refetch()} aria-label="Refresh">
        Refresh
      </Button>
      <Button variant="ghost" size="sm" onClick={() => setGuide(true)} aria-label="Quick Guide" aria-haspopup="dialog">
        ?
      </Button>
    </>
  );
  return (
    <div className="dash-page">
      <PageHeader title="Dashboard" actions={actions} />
      <QuickGuide open={guide} onClose={() => setGuide(false)} />
      {query.isPending ? (
        <div className="dash-loading" role="status" aria-live="polite">
          <Spinner size="lg" label="" />
          <p className="muted">Loading premium data…</p>
        </div>
      ) : query.isError ? (
        <Alert tone="danger" title="Failed to fetch premium data">
          <Button variant="secondary" size="sm" onClick={() => void query.refetch()}>
            Try again
          </Button>
        </Alert>
      ) : (
        <Dashboard data={query.data} renderDayDialog={renderDayDialog} renderShare={renderShare} />
      )}
    </div>
  );
}

function Dashboard({ data, renderDayDialog, renderShare }: { data: DashboardData } & DashboardRouteProps) {
  const [day, setDay] = useState<string | null>(null);
  const [share, setShare] = useState<DashboardShare | null>(null);
  const [sidePeriod, setSidePeriod] = useSidePeriod(data);
  const canShare = Boolean(renderShare);
  const emptyJournal = data.lifetime.opened === 0 && data.lifetime.closed === 0 && !data.daily_income.some(isActive);
  const byDate = new Map(data.daily_income.map((d) => [d.income_date, d]));
  return (
    <>
      {emptyJournal && (
        <div className="dash-welcome" role="note">
          <div>
            <strong>Your journal is empty.</strong> Add your first trade and every chart below fills in.
          </div>
          <Link to="/trades/add" className="btn btn-primary btn-sm">
            Add a trade
          </Link>
        </div>
      )}
      <div className="dash">
        <div className="dash-main">
          <div className="dash-top">
            <PremiumIncome data={data} />
            <IncomeQuadrant data={data} onShare={canShare ? (cells) => setShare({ kind: 'quadrant', cells, asOf: data.as_of }) : undefined} />
          </div>
          <PerformanceMetrics data={data} />
          <h2 className="dash-section">Trading Snapshot</h2>
          <div className="dash-grid-2">
            <DailyPremium data={data} />
            <OpenCloseCount data={data} />
          </div>
          <WeeklyStrip
            data={data}
            onOpenDay={setDay}
            onShare={canShare ? () => setShare({ kind: 'weekly', days: currentWeek(data.as_of).map((d) => ({ date: d, premium: byDate.get(d)?.np ?? 0, active: Boolean(byDate.get(d) && isActive(byDate.get(d)!)) })) }) : undefined}
          />
          <div className="dash-grid-2">
            <IncomeByMonth data={data} onShare={canShare ? () => setShare({ kind: 'months', months: data.monthly_income }) : undefined} />
            <RealizedIncome data={data} />
          </div>
          <div className="dash-grid-2">
            <OpenTrades data={data} />
            <TickerHeatMap data={data} onShare={canShare ? (period) => setShare({ kind: 'heat-map', period, tickers: data.breakdowns[period].tickers }) : undefined} />
          </div>
          <TradeFlow data={data} />
        </div>
        <aside className="dash-side" aria-label="Key stats">
          <KeyStats data={data} period={sidePeriod} onPeriod={setSidePeriod} />
          <Strategies data={data} period={sidePeriod} />
          <Disposition data={data} period={sidePeriod} />
          <YearlyIncome data={data} />
        </aside>
      </div>
      {day && renderDayDialog(day, () => setDay(null))}
      {share && renderShare?.(share, () => setShare(null))}
    </>
  );
}
