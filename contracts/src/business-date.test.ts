import { describe, expect, it } from 'vitest';
import { daysBetween, epochDay, newYorkDate, parseIsoDate, weekdayOnOrBefore } from './business-date.ts';

describe('newYorkDate', () => {
  it('is the calendar date in New York, across midnight and both daylight-saving changes', () => {
    const cases: [string, string][] = [
      ['2026-11-20T04:59:59.999Z', '2026-11-19'], // 23:59:59 EST
      ['2026-11-20T05:00:00.000Z', '2026-11-20'], // midnight EST
      ['2026-07-01T03:59:00.000Z', '2026-06-30'], // 23:59 EDT
      ['2026-07-01T04:00:00.000Z', '2026-07-01'],
      ['2026-03-08T06:59:59.000Z', '2026-03-08'], // 01:59:59 EST, just before the spring change
      ['2026-03-08T07:00:00.000Z', '2026-03-08'], // 03:00 EDT
      ['2026-11-01T05:30:00.000Z', '2026-11-01'], // 01:30 EDT, before the fall change
      ['2026-11-01T06:30:00.000Z', '2026-11-01'], // 01:30 EST, after it
      ['2026-11-02T04:59:00.000Z', '2026-11-01'],
      ['2026-11-02T05:00:00.000Z', '2026-11-02'],
    ];
    // In order and then shuffled, so the kept minute is both reused and replaced.
    for (const [instant, date] of [...cases, ...[...cases].reverse()]) expect(newYorkDate(new Date(instant)), instant).toBe(date);
    expect(newYorkDate(new Date('2026-11-20T05:00:30.000Z'))).toBe('2026-11-20');
    expect(newYorkDate(new Date('2026-11-20T04:59:30.000Z'))).toBe('2026-11-19');
  });

  it('refuses an invalid instant as Intl does', () => {
    expect(() => newYorkDate(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('weekdayOnOrBefore', () => {
  it('is the date on a weekday, the Friday before on a weekend', () => {
    // Friday 4 to Monday 7 December 2026.
    expect(['2026-12-04', '2026-12-05', '2026-12-06', '2026-12-07'].map(weekdayOnOrBefore)).toEqual(['2026-12-04', '2026-12-04', '2026-12-04', '2026-12-07']);
  });
});

describe('parseIsoDate', () => {
  it('reads real calendar dates', () => {
    expect(parseIsoDate('2026-02-28')?.toISOString()).toBe('2026-02-28T00:00:00.000Z');
    expect(parseIsoDate('2024-02-29')?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(parseIsoDate('0050-01-01')).toBeNull();
  });

  it.each(['2026-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2026-01-00', '2026-1-01', '26-01-01', '2026-01-01T00:00', ' 2026-01-01', ''])(
    'refuses %j',
    (value) => {
      expect(parseIsoDate(value)).toBeNull();
    },
  );
});

describe('epochDay and daysBetween', () => {
  const DAY_MS = 86_400_000;
  it('is the Date-based day number for every day from 1899 to 2101', () => {
    for (let t = Date.UTC(1899, 0, 1); t <= Date.UTC(2101, 11, 31); t += DAY_MS) {
      const iso = new Date(t).toISOString().slice(0, 10);
      expect(epochDay(iso)).toBe(t / DAY_MS);
    }
  });

  it.each(['2026-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2026-01-00', '2026-1-01', '26-01-01', '2026-01-01T00:00', ' 2026-01-01', '', '0050-01-01', '2026/01/01', '2026-0a-01', '２０２６-01-01'])(
    'refuses %j as parseIsoDate does',
    (value) => {
      expect(parseIsoDate(value)).toBeNull();
      expect(epochDay(value)).toBeNull();
    },
  );

  it('counts calendar days across leap days, years and centuries', () => {
    expect(daysBetween('2024-02-28', '2024-03-01')).toBe(2);
    expect(daysBetween('2100-02-28', '2100-03-01')).toBe(1);
    expect(daysBetween('2000-02-28', '2000-03-01')).toBe(2);
    expect(daysBetween('2026-11-25', '2025-11-25')).toBe(-365);
    expect(() => daysBetween('2026-02-30', '2026-03-01')).toThrow('Not a date');
  });
});
