import type { DailyIncomeSums } from '@oj/contracts/trade-views';
import { addDays, isWeekend } from '@oj/contracts/business-date';
import { formatBusinessDate, formatMoneyWhole } from '@/lib/format.ts';

/** 'YYYY-MM' of a 'YYYY-MM-DD'. */
export const monthOf = (date: string): string => date.slice(0, 7);

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
/** The years a journal's calendar can show: none before 1970, none past 2199. */
const FIRST_YEAR = 1970;
const LAST_YEAR = 2199;

/**
 * The month an address asks for (`?month=YYYY-MM`), or null when it is not one the calendar can show:
 * not a month (2026-13), or a year no journal has (0099: the page crashed on it (QA); 9999: an empty grid).
 */
export function askedMonth(asked: string | null): string | null {
  const match = asked === null ? null : MONTH.exec(asked);
  if (!match) return null;
  const year = Number(match[1]);
  return year >= FIRST_YEAR && year <= LAST_YEAR ? asked : null;
}

export function shiftMonth(month: string, by: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const d = new Date(Date.UTC(y, m - 1 + by, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

export function daysInMonth(month: string): number {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** 'November 2026'. */
export function monthLabel(month: string): string {
  return formatBusinessDate(`${month}-01`, { month: 'long', year: 'numeric' });
}

/** Every date of the month, in order. */
export function datesOf(month: string): string[] {
  const first = `${month}-01`;
  return Array.from({ length: daysInMonth(month) }, (_, i) => addDays(first, i));
}

/**
 * The month as weeks of seven cells, Sunday first (the dashboard's week "resets every Sunday"), with
 * null for the days of the neighbouring months.
 */
export function monthWeeks(month: string): (string | null)[][] {
  const dates = datesOf(month);
  const lead = new Date(`${month}-01T00:00:00Z`).getUTCDay();
  const cells: (string | null)[] = [...Array<null>(lead).fill(null), ...dates];
  while (cells.length % 7) cells.push(null);
  const weeks: (string | null)[][] = [];
  for (let i = 0; i < cells.length; i += 7) weeks.push(cells.slice(i, i + 7));
  return weeks;
}

export type DayTone = 'positive' | 'negative' | 'even' | 'none';

/**
 * Part 2 §2 / §9: green when the day's net premium is positive, red when negative, yellow when trades
 * were opened or closed and it nets to 0 ("Even"), no colour without activity. The premium data answers
 * every weekday (the running total needs them), so a record alone is not activity: its counts are.
 */
export function dayTone(r: DailyIncomeSums | undefined): DayTone {
  if (!r || r.otc + r.ctc === 0) return 'none';
  const np = Math.round(r.np * 100) / 100;
  return np > 0 ? 'positive' : np < 0 ? 'negative' : 'even';
}

export function recordsByDate(records: readonly DailyIncomeSums[]): Map<string, DailyIncomeSums> {
  return new Map(records.map((r) => [r.income_date, r]));
}

export interface MonthStats {
  month: string;
  /** Net premium (the days' premium cash flow, part 2 §3 np). */
  premium: number;
  /** Net premium captured by the trades closed this month. */
  realized: number;
  fees: number;
  opened: number;
  closed: number;
  wins: number;
  /** Percent, or null without closed trades. */
  winRate: number | null;
  /** (closed premium - fees) / collateral, percent. */
  roic: number | null;
  /** ROIC x 365 / capital-weighted average days held (at least 1). */
  annualizedRor: number | null;
  activeDays: number;
  bestDay: { date: string; np: number } | null;
  worstDay: { date: string; np: number } | null;
  /** Weekdays of the month up to `today` with their net premium (weekends out of the chart, part 2 §2). */
  days: { date: string; np: number }[];
}

const r2 = (x: number) => Math.round(x * 100) / 100;

/**
 * The Trade Summary's month statistics (part 2 §2 "Monthly stats", docs/formulas.md "Aggregates"):
 * sums of the month's daily premium records, ratios at the end, rounded once.
 */
export function monthStats(month: string, byDate: Map<string, DailyIncomeSums>, today: string): MonthStats {
  const t = { np: 0, npc: 0, nf: 0, otc: 0, ctc: 0, iw: 0, ttf: 0, incap: 0, wdc: 0 };
  let activeDays = 0;
  let best: MonthStats['bestDay'] = null;
  let worst: MonthStats['worstDay'] = null;
  const days: MonthStats['days'] = [];
  for (const date of datesOf(month)) {
    if (date > today) break;
    const r = byDate.get(date);
    if (!isWeekend(date)) days.push({ date, np: r2(r?.np ?? 0) });
    if (!r) continue;
    for (const k of Object.keys(t) as (keyof typeof t)[]) t[k] += r[k];
    if (r.otc + r.ctc > 0) {
      activeDays += 1;
      if (!best || r.np > best.np) best = { date, np: r2(r.np) };
      if (!worst || r.np < worst.np) worst = { date, np: r2(r.np) };
    }
  }
  const roicRaw = t.incap > 0 ? ((t.npc - t.ttf) / t.incap) * 100 : null;
  const avgDays = t.incap > 0 ? Math.max(1, t.wdc / t.incap) : null;
  return {
    month,
    premium: r2(t.np),
    realized: r2(t.npc),
    fees: r2(t.nf),
    opened: t.otc,
    closed: t.ctc,
    wins: t.iw,
    winRate: t.ctc > 0 ? r2((t.iw / t.ctc) * 100) : null,
    roic: roicRaw === null ? null : r2(roicRaw),
    annualizedRor: roicRaw === null || avgDays === null ? null : r2((roicRaw * 365) / avgDays),
    activeDays,
    bestDay: best,
    worstDay: worst,
    days,
  };
}

/**
 * A day's amount in a phone's day cell (about 45 px at 390 px wide): whole dollars under 1000, then K or M
 * with two significant digits: "$650", "-$5.8K", "$58K", "-$1.2M" (QA: "-$5.82K" was 48 px, and a
 * negative four-digit day ran into its neighbour's). The desktop cell shows the amount in full.
 */
export function dayAmountShort(value: number): string {
  const abs = Math.abs(value);
  if (Math.round(abs) < 1000) return formatMoneyWhole(value);
  const sign = value < 0 ? '-' : '';
  const [n, unit] = abs < 999_500 ? [abs / 1000, 'K'] : [abs / 1_000_000, 'M'];
  const digits = n >= 9.95 ? String(Math.round(n)) : n.toFixed(1).replace(/\.0$/, '');
  return `${sign}$${digits}${unit}`;
}
