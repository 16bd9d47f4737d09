import type { DashboardData } from '../api/get-dashboard-data.ts';
import { FitMoney } from './fit-money.tsx';
import { Change, ShareButton, Widget } from './widget.tsx';

export interface QuadrantCell {
  key: 'today' | 'week' | 'month' | 'year';
  label: string;
  previousLabel: string;
  value: number;
  previous: number;
  change: number | null;
}

const CELLS = [
  { key: 'today', prev: 'prev_day', label: 'Today', previousLabel: 'Previous day' },
  { key: 'week', prev: 'prev_week', label: 'This Week', previousLabel: 'Last week' },
  { key: 'month', prev: 'prev_month', label: 'This Month', previousLabel: 'Last month' },
  { key: 'year', prev: 'prev_year', label: 'This Year', previousLabel: 'Last year' },
] as const;

/** Premium of today, this week, this month and this year against the whole previous period (server figures). */
export function quadrantCells(data: DashboardData): QuadrantCell[] {
  return CELLS.map((c) => ({
    key: c.key,
    label: c.label,
    previousLabel: c.previousLabel,
    value: data.periods[c.key].totals.np,
    previous: data.periods[c.prev].totals.np,
    change: data.periods[c.key].changes?.premium ?? null,
  }));
}

export function IncomeQuadrant({ data, onShare }: { data: DashboardData; onShare?: (cells: QuadrantCell[]) => void }) {
  const cells = quadrantCells(data);
  return (
    <Widget id="income-quadrant" title="Income Quadrant" actions={<ShareButton label="Share Income Quadrant" onShare={onShare && (() => onShare(cells))} />}>
      <div className="dash-quadrant">
        {cells.map((c) => (
          <div key={c.key} className="dash-quad-cell" data-testid={`quadrant-${c.key}`}>
            <div className="dash-kicker">{c.label}</div>
            <div className={`dash-quad-value ${c.value > 0 ? 'is-up' : c.value < 0 ? 'is-down' : ''}`} data-testid={`quadrant-${c.key}-value`}>
              <FitMoney value={c.value} />
            </div>
            <div className="dash-quad-foot">
              <span data-testid={`quadrant-${c.key}-change`}>
                <Change value={c.change} />
              </span>
              {/* The label above its amount: side by side they overran a quarter of a 1280 px page. */}
              <span className="muted">
                {c.previousLabel}{' '}
                <span data-testid={`quadrant-${c.key}-previous`}>
                  <FitMoney value={c.previous} />
                </span>
              </span>
            </div>
          </div>
        ))}
      </div>
    </Widget>
  );
}
