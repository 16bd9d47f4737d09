import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import type { DashboardData } from '../api/get-dashboard-data.ts';
import { WeeklyStrip } from './snapshot.tsx';

/** The strip reads only the days and today: the rest of the premium data is not needed here. */
const data = (asOf: string, days: { income_date: string; np: number }[]) =>
  ({ as_of: asOf, daily_income: days.map((d) => ({ ...d, otc: 1, ctc: 0, nf: 0 })) }) as unknown as DashboardData;
const heading = (d: DashboardData) => {
  const html = renderToStaticMarkup(
    <MemoryRouter>
      <WeeklyStrip data={d} onOpenDay={() => {}} />
    </MemoryRouter>,
  );
  return /<p class="dash-card-sub">([^<]*)<\/p>/.exec(html)?.[1];
};

describe('the weekly strip heading', () => {
  it('is "This week" from Monday to Saturday, with the week\'s net premium computed here by hand', () => {
    // Mon 30 Nov +250, Wed 2 Dec -40: 210. Sunday 29 Nov (last week) is not in it.
    const days = [{ income_date: '2026-11-29', np: 999 }, { income_date: '2026-11-30', np: 250 }, { income_date: '2026-12-02', np: -40 }];
    expect(heading(data('2026-12-02', days))).toBe('This week · $210.00');
    expect(heading(data('2026-12-05', days))).toBe('This week · $210.00');
  });

  it('names the week ahead by its Monday on a Sunday, when the quadrant\'s week still ends that day (QA)', () => {
    expect(heading(data('2026-12-06', [{ income_date: '2026-12-02', np: -40 }]))).toBe('Week of Dec 7 · $0.00');
    // Across a year's end: the strip of Sunday 3 January 2027 starts Monday 4 January.
    expect(heading(data('2027-01-03', []))).toBe('Week of Jan 4 · $0.00');
  });
});
