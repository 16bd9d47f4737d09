import { describe, expect, it } from 'vitest';
import type { DashboardDay } from '../api/get-dashboard-data.ts';
import { cumulativeSeries, currentWeek, dayTone, firstWithData, gaugeRange, lastActiveDays, monthHasActivity, rangeStart, shortDays, winRateTone } from './dashboard-math.ts';

const day = (date: string, np: number, run: number, otc = 0, ctc = 0): DashboardDay => ({ id: date, income_date: date, np, nf: 0, otc, ctc, iw: 0, npc: 0, net_premium_so_far: run });

describe('dashboard presentation rules', () => {
  it("a chart's days carry their year once they span years (QA: Mar 1 '27 read before Feb 28 '28 as Mar 1, Feb 28)", () => {
    expect(shortDays(['2026-11-30', '2026-12-01'])).toEqual(['Nov 30', 'Dec 1']);
    expect(shortDays(['2027-01-08', '2027-03-01', '2028-02-28', '2028-11-06'])).toEqual(["Jan 8 '27", "Mar 1 '27", "Feb 28 '28", "Nov 6 '28"]);
    expect(shortDays([])).toEqual([]);
  });

  it('ranges end today: week 7 days, month 30 days, YTD from 1 January, year 12 months', () => {
    expect(rangeStart('week', '2026-02-02')).toBe('2026-01-27');
    expect(rangeStart('month', '2026-02-02')).toBe('2026-01-04');
    expect(rangeStart('ytd', '2026-02-02')).toBe('2026-01-01');
    expect(rangeStart('year', '2026-02-02')).toBe('2025-02-03');
    expect(rangeStart('year', '2028-02-29')).toBe('2027-03-01');
  });

  it('the cumulative series starts from the range and skips weekend days', () => {
    const days = [day('2026-01-23', 100, 100, 1), day('2026-01-26', 50, 150, 1), day('2026-01-31', 10, 160, 1), day('2026-02-02', -20, 140, 0, 1)];
    // From 27 January: base is 150 (26 Jan); Saturday 31 January counts in the total but is not a point.
    expect(cumulativeSeries(days, 'week', '2026-02-02')).toEqual([{ date: '2026-02-02', value: -10 }]);
  });

  it('last active days, the current week, day tones and the period fallback', () => {
    const days = [day('2026-01-05', 5, 5, 1), day('2026-01-06', 0, 5), day('2026-01-07', 0, 5, 1, 1), day('2026-01-08', -3, 2, 0, 1)];
    expect(lastActiveDays(days, 2).map((d) => d.id)).toEqual(['2026-01-07', '2026-01-08']);
    expect(currentWeek('2026-02-04')).toEqual(['2026-02-02', '2026-02-03', '2026-02-04', '2026-02-05', '2026-02-06']);
    expect(currentWeek('2026-02-08')).toEqual(['2026-02-09', '2026-02-10', '2026-02-11', '2026-02-12', '2026-02-13']);
    expect(days.map(dayTone)).toEqual(['positive', 'none', 'even', 'negative']);
    expect(firstWithData(['m', 'ytd', 'y'] as const, (p) => p !== 'm')).toBe('ytd');
    expect(firstWithData(['m', 'ytd', 'y'] as const, () => false)).toBe('m');
  });

  it('win-rate colours and gauge ranges of part 2 §9', () => {
    expect([49.99, 50, 79.99, 80, null].map(winRateTone)).toEqual(['low', 'mid', 'mid', 'high', 'none']);
    expect(gaugeRange('hold', 99)).toEqual({ min: 0, max: 100 });
    expect(gaugeRange('hold', 100)).toEqual({ min: 0, max: 130 });
    expect(gaugeRange('widening', 54.48)).toEqual({ min: 0, max: 100 });
    expect(gaugeRange('widening', 7056.67)).toEqual({ min: 0, max: 7060 });
    expect(gaugeRange('widening', -12)).toEqual({ min: -20, max: 100 });
    expect(gaugeRange('delta', 0.27)).toEqual({ min: 0, max: 1 });
  });
});

describe('a month with something in it', () => {
  it('has a premium, or a trade opened or closed in it (a month that nets to 0 with trades is not empty)', () => {
    expect(monthHasActivity({ np: 0, otc: 0, ctc: 0 })).toBe(false);
    expect(monthHasActivity({ np: 0, otc: 1, ctc: 0 })).toBe(true);
    expect(monthHasActivity({ np: 0, otc: 0, ctc: 2 })).toBe(true);
    expect(monthHasActivity({ np: -12.5, otc: 0, ctc: 0 })).toBe(true);
  });
});

