import type { PulseFigures, PulseResponse } from '@oj/contracts/trade-views';
import type { TradeListItem } from '@oj/contracts/trade-list-item';

export const TIMEFRAMES = [
  { code: 1, label: '1D', name: 'Today' },
  { code: 2, label: 'W', name: 'This week' },
  { code: 3, label: 'M', name: 'Last 30 days' },
  { code: 4, label: 'QTR', name: 'Last 90 days' },
  { code: 5, label: 'YTD', name: 'Year to date' },
] as const;

export const TICKER_MESSAGES = { required: 'Ticker is required', invalid: 'Invalid Ticker' } as const;

/** Part 2 §5: upper-cased; 1 to 5 capital letters or digits. */
export function tickerError(ticker: string, timeframeChosen: boolean): string | null {
  if (ticker === '') return timeframeChosen ? TICKER_MESSAGES.required : null;
  return /^[A-Z0-9]{1,5}$/.test(ticker) ? null : TICKER_MESSAGES.invalid;
}

export interface PulseView extends PulseFigures {
  timeframe: number;
  open_trades: TradeListItem[];
  closed_trades: TradeListItem[];
}

/**
 * Part 2 §4: a timeframe whose window lies inside the loaded one is shown from the loaded answer, not
 * fetched. The server computed its figures (`covered`); here only the trade lists are cut to its dates
 * the way the server cuts them (open trades by open date, finished ones by close date). Null when the
 * loaded answer does not cover it (another ticker, or a wider window): then it is fetched.
 */
export function viewOf(loaded: PulseResponse | undefined, ticker: string, timeframe: number): PulseView | null {
  if (!loaded || loaded.ticker !== ticker) return null;
  const figures = loaded.covered.find((c) => c.timeframe === timeframe);
  if (!figures) return null;
  const inWindow = (d: string | null) => d !== null && d >= figures.from && d <= figures.to;
  return {
    ...figures,
    open_trades: loaded.open_trades.filter((t) => inWindow(t.tod)),
    closed_trades: loaded.closed_trades.filter((t) => inWindow(t.tcd)),
  };
}

/** Gauge ranges of part 2 §9 for pulse: days cap at 60, win rate and returns at 100 percent. */
export const GAUGE_CAPS = { days: 60, percent: 100 } as const;
