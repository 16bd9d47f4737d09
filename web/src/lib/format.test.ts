import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatBusinessDate, formatCompact, formatDate, formatDateTime, formatLongDate, formatMoneyShort, formatMoneyTick, formatMoneyWhole, formatMonthShort, formatStrikes, formatUtc, formatWeekday, todayInNewYork } from './format.ts';

describe('format', () => {
  it('writes strikes to the cent on every screen (QA: upcoming expirations showed "$100.123456789")', () => {
    expect(formatStrikes([580, 570])).toBe('$580 / $570');
    expect(formatStrikes([582.5])).toBe('$582.5');
    expect(formatStrikes([100.123456789])).toBe('$100.12');
    expect(formatStrikes([7.25, 0.05])).toBe('$7.25 / $0.05');
  });

  it('keeps money to the whole dollar where cents do not fit, K and M from 1000', () => {
    expect(formatMoneyWhole(-580)).toBe('-$580');
    expect(formatMoneyWhole(574.33)).toBe('$574');
    expect(formatMoneyWhole(-0.4)).toBe('$0');
    expect(formatMoneyWhole(-2_500_000)).toBe('-$2.5M');
  });

  it('abbreviates money with K and M from 1000', () => {
    expect(formatMoneyShort(999.5)).toBe('$999.50');
    expect(formatMoneyShort(1000)).toBe('$1K');
    expect(formatMoneyShort(1250)).toBe('$1.25K');
    expect(formatMoneyShort(-2_500_000)).toBe('-$2.5M');
  });

  it('keeps the zeros of the whole part (QA: a collateral of $100,000 read "$1K")', () => {
    const cases: [number, string][] = [
      [100, '$100.00'], [10_000, '$10K'], [10_500, '$10.5K'], [100_000, '$100K'], [120_000, '$120K'], [200_000, '$200K'], [-300_000, '-$300K'],
      [1_000_000, '$1M'], [10_000_000, '$10M'], [100_000_000, '$100M'], [1_200_000_000, '$1200M'], [999.999, '$1K'], [999_999, '$1M'], [99_950, '$100K'],
    ];
    for (const [value, text] of cases) expect(formatMoneyShort(value), String(value)).toBe(text);
    const counts: [number, string][] = [[100, '100'], [100_000, '100K'], [2_000_000, '2M'], [1_234, '1.23K'], [-40_000, '-40K']];
    for (const [value, text] of counts) expect(formatCompact(value), String(value)).toBe(text);
  });

  it('labels a money axis without the cents of whole ticks (QA: $800.00 beside $1K)', () => {
    const ticks: [number, string][] = [[0, '$0'], [400, '$400'], [800, '$800'], [-200, '-$200'], [0.5, '$0.50'], [1000, '$1K'], [1200, '$1.2K'], [-2_500_000, '-$2.5M']];
    for (const [value, text] of ticks) expect(formatMoneyTick(value), String(value)).toBe(text);
  });

  it('shows a timestamp in New York time and says so (QA: "5:51 AM" without a zone)', () => {
    expect(formatDateTime('2026-12-05T10:51:49Z')).toBe('Dec 05, 2026, 5:51 AM ET');
    expect(formatDateTime('2026-07-01T02:05:00Z')).toBe('Jun 30, 2026, 10:05 PM ET');
    expect(formatDateTime(null)).toBe('—');
  });

  it('computes today in New York, not in the browser zone', () => {
    // 03:00 UTC on Jan 2 is still Jan 1 in New York.
    expect(todayInNewYork(new Date('2026-01-02T03:00:00Z'))).toBe('2026-01-01');
  });

  it('formats business dates without shifting them', () => {
    expect(formatDate('2026-03-09')).toBe('Mar 09, 2026');
    expect(formatDate('2026-03-09T15:00:00.000Z')).toBe('Mar 09, 2026');
    expect(formatDate('2026-02-30')).toBe('2026-02-30');
  });

  describe('date formatters are built once and reused (QA: 38% of a long list\'s Load More was building them)', () => {
    afterEach(() => vi.restoreAllMocks());
    // What each formatter gave when it built a new Intl.DateTimeFormat on every call.
    const fresh = {
      date: (iso: string) => new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', month: 'short', day: '2-digit', year: 'numeric' }).format(new Date(`${iso}T00:00:00Z`)),
      long: (iso: string) => new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', month: 'long', day: '2-digit', year: 'numeric' }).format(new Date(`${iso}T00:00:00Z`)),
      dateTime: (v: string) =>
        new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', month: 'short', day: '2-digit', year: 'numeric', hour: 'numeric', minute: '2-digit' }).format(new Date(v)) + ' ET',
    };
    const dates = ['2024-02-29', '2025-12-31', '2026-01-01', '2026-03-08', '2026-11-01', '1999-07-04'];
    const stamps = ['2026-03-08T06:59:00Z', '2026-03-08T07:00:00Z', '2026-11-01T05:30:00Z', '2026-12-31T23:59:59Z', '2027-01-01T04:59:00Z'];

    it('gives the same text as a formatter built for each call', () => {
      for (const d of dates) {
        expect(formatDate(d), d).toBe(fresh.date(d));
        expect(formatLongDate(d), d).toBe(fresh.long(d));
      }
      for (const s of stamps) expect(formatDateTime(s), s).toBe(fresh.dateTime(s));
    });

    it('builds no new Intl.DateTimeFormat once each kind has been used', () => {
      formatDate('2026-01-01');
      formatLongDate('2026-01-01');
      formatDateTime('2026-01-01T12:00:00Z');
      const built = vi.spyOn(Intl, 'DateTimeFormat');
      for (let i = 0; i < 500; i++) {
        formatDate(dates[i % dates.length]);
        formatLongDate(dates[i % dates.length]);
        formatDateTime(stamps[i % stamps.length]);
      }
      expect(built).not.toHaveBeenCalled();
      // The spy does see a construction (the check above can fail).
      new Intl.DateTimeFormat('en-US');
      expect(built).toHaveBeenCalledTimes(1);
    });

    it('formatUtc: the chart labels of a date in UTC, one formatter per set of options (QA: 730 built for one dashboard chart)', () => {
      const at = new Date('2027-01-08T00:00:00Z');
      expect(formatUtc(at, { month: 'short', day: 'numeric' })).toBe('Jan 8');
      expect(formatUtc(at, { weekday: 'short' })).toBe('Fri');
      expect(formatUtc(at, { month: 'long', year: 'numeric' })).toBe('January 2027');
      // UTC whatever the options say: a business date at UTC midnight stays on its day.
      expect(formatUtc(at, { month: 'short', day: 'numeric', timeZone: 'America/New_York' })).toBe('Jan 8');
      const built = vi.spyOn(Intl, 'DateTimeFormat');
      for (let i = 0; i < 300; i++) formatUtc(new Date(Date.UTC(2026, 0, 1 + i)), { month: 'short', day: 'numeric' });
      expect(built).not.toHaveBeenCalled();
      expect(formatUtc(new Date('2026-12-31T00:00:00Z'), { month: 'short', day: 'numeric' })).toBe('Dec 31');
    });

    it("formatMonthShort and formatWeekday: the dashboard's and its share cards' labels", () => {
      expect(['2026-01', '2026-12', '1999-07'].map(formatMonthShort)).toEqual(["Jan '26", "Dec '26", "Jul '99"]);
      // 7 December 2026 is a Monday; the weekday is the business date's, whatever the machine's zone.
      expect(['2026-12-07', '2026-12-11', '2026-12-13'].map(formatWeekday)).toEqual(['Mon', 'Fri', 'Sun']);
    });

    it('formatBusinessDate: a business date with the given parts (the calendar title, the chart day labels)', () => {
      expect(formatBusinessDate('2026-11-01', { month: 'long', year: 'numeric' })).toBe('November 2026');
      expect(formatBusinessDate('2027-01-08', { month: 'short', day: 'numeric' })).toBe('Jan 8');
    });
  });
});
