import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import type { DashboardData } from '../api/get-dashboard-data.ts';
import { OpenTrades } from './snapshot.tsx';

/** The widget reads only `open_trades`. */
const data = (count: number, expiring: number, next: { ed: string }[] = []) =>
  ({
    open_trades: {
      count,
      premium: 0,
      expiring_in_7_days: expiring,
      next: next.map((n, i) => ({ uid: `t${i}`, ticker: 'SPY', su: 'x', ed: n.ed, tod: '2026-12-01', premium: 100, cs: 1 })),
    },
  }) as unknown as DashboardData;
const text = (d: DashboardData) =>
  renderToStaticMarkup(
    <MemoryRouter>
      <OpenTrades data={d} />
    </MemoryRouter>,
  ).replace(/<[^>]+>/g, ' ');

describe('the Open Trades widget', () => {
  it('says every open trade is past its expiration when none expires from today on, instead of "none expires" under a count of 4 (QA)', () => {
    const all = text(data(4, 4));
    expect(all).toMatch(/All 4 open trades are past their expiration date:\s+settle them from the Expiring list/);
    expect(all).not.toMatch(/No open trade expires/);
    expect(text(data(1, 1))).toMatch(/The open trade is past its expiration date:\s+settle it from the Expiring list/);
  });

  it('lists the next to expire when there are some, and says so when there are no open trades', () => {
    expect(text(data(2, 1, [{ ed: '2026-12-11' }]))).toMatch(/SPY/);
    expect(text(data(0, 0))).toMatch(/No open trades available\./);
  });
});
