import { addDays, isWeekend, minusYears, parseIsoDate } from '@oj/contracts/business-date';
import { formatBusinessDate } from '@/lib/format.ts';
import type { DashboardDay } from '../api/get-dashboard-data.ts';

/**
 * The dashboard's presentation rules (part 2 §2, §4, §9) that are not figures: which days a chart
 * shows, which period a switch falls back to, gauge ranges and the win-rate colour. The figures
 * themselves come computed from the server (projections/src/formulas/formulas.ts).
 */

export type PremiumRange = 'week' | 'month' | 'ytd' | 'year';
export const PREMIUM_RANGES: { key: PremiumRange; label: string }[] = [
  { key: 'week', label: 'Week' },
  { key: 'month', label: 'Month' },
  { key: 'ytd', label: 'YTD' },
  { key: 'year', label: 'Year' },
];

/** A business date's UTC midnight (the contracts' parse; an Invalid Date for a malformed one). */
const dateOf = (d: string): Date => parseIsoDate(d) ?? new Date(Number.NaN);

/** First day of a Premium Income range ending today (part 2 §9: week 7 days, month 30 days, YTD, year 12 months). */
export function rangeStart(range: PremiumRange, today: string): string {
  switch (range) {
    case 'week':
      return addDays(today, -6);
    case 'month':
      return addDays(today, -29);
    case 'ytd':
      return `${today.slice(0, 4)}-01-01`;
    case 'year':
      return addDays(minusYears(today, 1), 1);
  }
}

/**
 * The cumulative premium of a range, day by day: the running total of the window less its value the
 * day before the range, so the curve starts at the range's first day's premium and ends at the range's
 * total. Weekdays only (the server answers every weekday; weekend days with trades count but are not drawn).
 */
export function cumulativeSeries(days: readonly DashboardDay[], range: PremiumRange, today: string): { date: string; value: number }[] {
  const from = rangeStart(range, today);
  let base = 0;
  const out: { date: string; value: number }[] = [];
  for (const d of days) {
    if (d.income_date < from) {
      base = d.net_premium_so_far;
      continue;
    }
    if (d.income_date > today) break;
    if (isWeekend(d.income_date)) continue;
    out.push({ date: d.income_date, value: round2(d.net_premium_so_far - base) });
  }
  return out;
}

export const round2 = (x: number) => Math.round(x * 100) / 100;

/** Days with any trade opened or closed. */
export const isActive = (d: DashboardDay) => d.otc + d.ctc > 0;

/** The last `n` days with activity, oldest first (the daily charts, Quick Guide: "last 10 active days"). */
export function lastActiveDays(days: readonly DashboardDay[], n = 10): DashboardDay[] {
  const out: DashboardDay[] = [];
  for (let i = days.length - 1; i >= 0 && out.length < n; i--) if (isActive(days[i]!)) out.push(days[i]!);
  return out.reverse();
}

/** Monday to Friday of today's week (the Quick Guide: the strip shows the current week and resets every Sunday). */
export function currentWeek(today: string): string[] {
  const dow = dateOf(today).getUTCDay(); // 0 Sunday
  // Sunday starts the next week: its strip is the week ahead.
  const monday = dow === 0 ? addDays(today, 1) : addDays(today, 1 - dow);
  return [0, 1, 2, 3, 4].map((i) => addDays(monday, i));
}

export type DayTone = 'positive' | 'negative' | 'even' | 'none';
/** Calendar day colour (part 2 §9): green positive, red negative, yellow even with activity, none without. */
export function dayTone(day: DashboardDay | undefined): DayTone {
  if (!day || !isActive(day)) return 'none';
  return day.np > 0 ? 'positive' : day.np < 0 ? 'negative' : 'even';
}

/** Part 2 §4: a period switch shows the first period with data, from the preferred one on. */
export function firstWithData<P extends string>(order: readonly P[], hasData: (p: P) => boolean): P {
  return order.find(hasData) ?? order[0]!;
}

/** Part 2 §9 win-rate colour: yellow below 50, mid-green from 50 to under 80, dark green from 80. */
export function winRateTone(rate: number | null): 'low' | 'mid' | 'high' | 'none' {
  if (rate === null) return 'none';
  return rate < 50 ? 'low' : rate < 80 ? 'mid' : 'high';
}

/** Gauge ranges of part 2 §9. */
export function gaugeRange(kind: 'delta' | 'percent' | 'widening' | 'hold', value: number | null): { min: number; max: number } {
  const v = value ?? 0;
  switch (kind) {
    case 'delta':
      return { min: 0, max: 1 };
    case 'percent':
      return { min: 0, max: 100 };
    case 'hold':
      return { min: 0, max: v >= 100 ? Math.ceil(v + 30) : 100 };
    case 'widening':
      // ARR and ROR: 0 to 100, widened to the next ten beyond a value outside it.
      return { min: v < 0 ? Math.floor(v / 10) * 10 : 0, max: v > 100 ? Math.ceil(v / 10) * 10 : 100 };
  }
}

/** 'YYYY-MM-DD' -> 'Mon 5' style short day label. */
export function shortDay(d: string): string {
  return formatBusinessDate(d, { month: 'short', day: 'numeric' });
}
/**
 * A chart's day labels: "Jan 8" while every day is in one year, "Jan 8 '27" once they span years (QA: the
 * last ten active days read "Jan 8, Mar 1, Feb 28, Nov 6", and on 1 January "Jan 2" read as tomorrow).
 */
export function shortDays(dates: readonly string[]): string[] {
  const spansYears = new Set(dates.map((d) => d.slice(0, 4))).size > 1;
  return dates.map((d) => (spansYears ? `${shortDay(d)} '${d.slice(2, 4)}` : shortDay(d)));
}

/** A month of Income By Month with something in it (a premium, or a trade opened or closed): the chart and its share card say "No Data" when no month has. */
export const monthHasActivity = (m: { np: number; otc: number; ctc: number }): boolean => m.np !== 0 || m.otc + m.ctc > 0;
