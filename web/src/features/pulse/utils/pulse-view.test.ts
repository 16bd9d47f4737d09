import { describe, expect, it } from 'vitest';
import type { PulseResponse } from '@oj/contracts/trade-views';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { tickerError, viewOf } from './pulse-view.ts';

const figures = (from: string, premium: number) => ({
  from,
  to: '2026-02-02',
  premium,
  gauges: { win_rate: null, ror: null, arr: null, capture_rate: null, delta: null, avg_days_to_expiry: null, avg_days_held: null },
  quadrant: { net_premium: premium, net_profit_loss: 0, fees: 0, capital_gain: 0, opened: 0, closed: 0, wins: 0 },
  income_by_strategy: [],
  disposition: [],
});
const trade = (uid: string, tod: string, tcd: string | null) => ({ uid, tod, tcd, status: tcd ? 2 : 1 }) as TradeListItem;

describe('pulse', () => {
  it('ticker rule: required once a timeframe is chosen, 1 to 5 letters or digits', () => {
    expect(tickerError('', false)).toBeNull();
    expect(tickerError('', true)).toBe('Ticker is required');
    expect(tickerError('AAPL', true)).toBeNull();
    expect(tickerError('BRK1', true)).toBeNull();
    expect(tickerError('ABCDEF', false)).toBe('Invalid Ticker');
    expect(tickerError('BRK.B', true)).toBe('Invalid Ticker');
  });

  it('re-filters a covered timeframe from the loaded answer, cutting trades by their dates', () => {
    const loaded = {
      ...figures('2026-01-01', 1360),
      ticker: 'AAPL',
      timeframe: 5,
      open_trades: [trade('F', '2026-01-20', null), trade('E', '2025-12-20', null)],
      closed_trades: [trade('A4', '2026-01-14', '2026-01-30'), trade('A', '2025-12-30', '2026-01-03')],
      covered: [{ timeframe: 3, ...figures('2026-01-04', 1200) }, { timeframe: 5, ...figures('2026-01-01', 1360) }],
    } as PulseResponse;
    const month = viewOf(loaded, 'AAPL', 3)!;
    expect(month.premium).toBe(1200);
    expect(month.open_trades.map((t) => t.uid)).toEqual(['F']);
    expect(month.closed_trades.map((t) => t.uid)).toEqual(['A4']);
    // Not covered (the quarter is wider), another ticker, nothing loaded: fetch.
    expect(viewOf(loaded, 'AAPL', 4)).toBeNull();
    expect(viewOf(loaded, 'MSFT', 3)).toBeNull();
    expect(viewOf(undefined, 'AAPL', 3)).toBeNull();
  });
});
