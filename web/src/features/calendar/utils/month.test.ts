import { describe, expect, it } from 'vitest';
import type { DailyIncome } from '@oj/contracts/trade-views';
import { askedMonth, dayAmountShort, dayTone, monthStats, monthWeeks, recordsByDate, shiftMonth } from './month.ts';

const day = (income_date: string, o: Partial<DailyIncome>): DailyIncome => ({
  id: income_date, income_date, np: 0, nf: 0, nd: 0, nep: 0, otc: 0, ctc: 0, iw: 0, npc: 0, cpt: 0, cg: 0, hp: 0, pr: 0, ttf: 0, incap: 0, wdc: 0,
  net_premium_so_far: 0, tickers: {}, ct: {}, sg: {}, dg: {}, snpc: {}, tnpc: {}, ...o,
});

describe('income calendar month', () => {
  it("reads the address's month, and refuses what it cannot show (QA: ?month=0099-05 crashed the console)", () => {
    expect(['2026-11', '1970-01', '2199-12'].map(askedMonth)).toEqual(['2026-11', '1970-01', '2199-12']);
    expect([null, '', '2026-13', '2026-00', '2026-1', '0000-01', '0099-05', '1899-12', '9999-12', '2026-11x'].map(askedMonth)).toEqual(Array(10).fill(null));
  });

  it('lays a month out in Sunday-first weeks', () => {
    // 1 February 2026 is a Sunday; 28 days fill exactly four weeks.
    expect(monthWeeks('2026-02')).toHaveLength(4);
    // 1 November 2026 is a Sunday too; 1 January 2026 a Thursday: four blanks first.
    expect(monthWeeks('2026-01')[0]).toEqual([null, null, null, null, '2026-01-01', '2026-01-02', '2026-01-03']);
    expect(shiftMonth('2026-01', -1)).toBe('2025-12');
    expect(shiftMonth('2026-12', 1)).toBe('2027-01');
  });

  it('colours a day by its net premium; no activity is no colour even with a record', () => {
    expect(dayTone(undefined)).toBe('none');
    expect(dayTone(day('2026-01-05', {}))).toBe('none');
    expect(dayTone(day('2026-01-05', { otc: 1, np: 200 }))).toBe('positive');
    expect(dayTone(day('2026-01-05', { otc: 1, np: -300 }))).toBe('negative');
    expect(dayTone(day('2026-01-05', { otc: 1, ctc: 1, np: 0.001 }))).toBe('even');
  });

  it('month statistics: win rate, ROIC and annualised ROR by hand; weekends out of the chart', () => {
    const byDate = recordsByDate([
      // Monday 5 January: a put sold for 600 (fee 3).
      day('2026-01-05', { np: 600, nf: 3, otc: 1 }),
      // Wednesday 7 January: closed for a 150 npc, fees 2, collateral 10,000 held 2 days.
      day('2026-01-07', { np: -50, nf: 1, ctc: 1, iw: 1, npc: 150, ttf: 2, incap: 10_000, wdc: 20_000 }),
      // Saturday 10 January (a weekend record still counts in the totals, not in the chart).
      day('2026-01-10', { np: 100, otc: 1, ctc: 1, npc: -40, ttf: 2, incap: 30_000, wdc: 30_000 }),
    ]);
    const s = monthStats('2026-01', byDate, '2026-01-12');
    // win rate 1 / 2; ROIC (110 - 4) / 40,000 = 0.265%; days 50,000 / 40,000 = 1.25; ARR 0.265 x 365 / 1.25 = 77.38.
    expect(s).toMatchObject({ premium: 650, realized: 110, fees: 4, opened: 2, closed: 2, wins: 1, winRate: 50, roic: 0.27, annualizedRor: 77.38, activeDays: 3 });
    expect(s.bestDay).toEqual({ date: '2026-01-05', np: 600 });
    expect(s.worstDay).toEqual({ date: '2026-01-07', np: -50 });
    // Weekdays 1-12 January: 1, 2, 5, 6, 7, 8, 9, 12.
    expect(s.days.map((d) => d.date.slice(8))).toEqual(['01', '02', '05', '06', '07', '08', '09', '12']);
    expect(monthStats('2026-02', byDate, '2026-01-12')).toMatchObject({ winRate: null, roic: null, annualizedRor: null, days: [] });
  });
});

describe("a phone's day amount", () => {
  it('fits a 45 px cell: whole dollars under 1000, then two significant digits in K or M (QA: "-$5.82K" ran into its neighbour)', () => {
    const cases: Array<[number, string]> = [
      [650.4, '$650'],
      [-23.37, '-$23'],
      [0.3, '$0'],
      [-0.3, '$0'],
      [999.49, '$999'],
      [999.5, '$1K'],
      [-5_820.11, '-$5.8K'],
      [-1_105.0, '-$1.1K'],
      [9_949, '$9.9K'],
      [9_950, '$10K'],
      [58_420, '$58K'],
      [-580_400, '-$580K'],
      [999_499, '$999K'],
      [999_500, '$1M'],
      [-1_240_000, '-$1.2M'],
      [12_600_000, '$13M'],
    ];
    for (const [value, text] of cases) expect(dayAmountShort(value), String(value)).toBe(text);
    // Six characters at most, the sign included.
    expect(Math.max(...cases.map(([v]) => dayAmountShort(v).length))).toBeLessThanOrEqual(6);
  });
});

