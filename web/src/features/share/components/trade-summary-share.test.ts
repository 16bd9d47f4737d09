import { describe, expect, it } from 'vitest';
import { tradeSummaryShareText, type TradeSummaryData } from './trade-summary-share.tsx';

const month = (over: Partial<TradeSummaryData>): TradeSummaryData => ({
  monthLabel: 'November 2026',
  premium: 0,
  realized: 0,
  fees: 0,
  opened: 0,
  closed: 0,
  wins: 0,
  winRate: null,
  roic: null,
  annualizedRor: null,
  activeDays: 0,
  bestDay: null,
  days: [],
  ...over,
});

describe('the Trade Summary post', () => {
  it('names the month, its premium, closes, win rate and ROIC', () => {
    // 6 closed, 3 winners: 50%; ROIC (-587.13 - 11.05) / 65,798.68 = -0.909...%.
    const roic = ((-587.13 - 11.05) / 65_798.68) * 100;
    expect(tradeSummaryShareText(month({ premium: -756.19, closed: 6, wins: 3, winRate: 50, roic }))).toBe(
      'November 2026: -$756.19 option premium, 6 trades closed, 50% win rate, -0.91% ROIC. #options #optionsincome',
    );
    expect(tradeSummaryShareText(month({ premium: 120, closed: 1, wins: 1, winRate: 100, roic: 1.2 }))).toBe(
      'November 2026: $120.00 option premium, 1 trade closed, 100% win rate, 1.20% ROIC. #options #optionsincome',
    );
  });

  it('leaves out the rates of a month with nothing closed instead of posting dashes (QA)', () => {
    const text = tradeSummaryShareText(month({ monthLabel: 'December 2026', premium: 0 }));
    expect(text).toBe('December 2026: $0.00 option premium, no trades closed. #options #optionsincome');
    expect(text).not.toContain('—');
  });
});
