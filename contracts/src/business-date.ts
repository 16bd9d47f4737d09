/**
 * Business dates are calendar dates in America/New_York: a trade opened at 21:00 in Los Angeles on a
 * Friday belongs to Saturday in New York and is refused as a weekend date. Pure functions of an
 * instant, so the server (with an injected clock) and the console agree.
 */
export const BUSINESS_TIME_ZONE = 'America/New_York';

const nyFormatter = new Intl.DateTimeFormat('en-CA', {
  timeZone: BUSINESS_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

let lastMinute = { minute: Number.NaN, date: '' };

/**
 * The New York calendar date of an instant, `YYYY-MM-DD`. New York's offset from UTC is a whole number of
 * hours and changes on the hour, so every instant of one UTC minute has the same date there: the last
 * minute's answer is kept (Intl formatting was 2% of the gateway's time under load).
 */
export function newYorkDate(instant: Date): string {
  const minute = Math.floor(instant.getTime() / 60_000);
  if (minute !== lastMinute.minute) lastMinute = { minute, date: nyFormatter.format(instant) };
  return lastMinute.date;
}

const DAY_MS = 86_400_000;

/** Parses `YYYY-MM-DD` as a calendar date (UTC midnight); null when it is not a real date. */
export function parseIsoDate(value: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]) - 1;
  const day = Number(m[3]);
  const d = new Date(Date.UTC(year, month, day));
  // Date.UTC rolls 31 April over to 1 May and reads years 0 to 99 as 1900 to 1999: both are refused.
  return d.getUTCFullYear() === year && d.getUTCMonth() === month && d.getUTCDate() === day ? d : null;
}

export function isWeekend(isoDate: string): boolean {
  const d = parseIsoDate(isoDate);
  if (!d) return false;
  const day = d.getUTCDay();
  return day === 0 || day === 6;
}

export function addDays(isoDate: string, days: number): string {
  const d = parseIsoDate(isoDate);
  if (!d) throw new Error(`Not a date: ${isoDate}`);
  return new Date(d.getTime() + days * DAY_MS).toISOString().slice(0, 10);
}

/** Whole calendar days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  const a = parseIsoDate(from);
  const b = parseIsoDate(to);
  if (!a || !b) throw new Error(`Not a date: ${from} / ${to}`);
  return Math.round((b.getTime() - a.getTime()) / DAY_MS);
}

/** The same calendar day `years` years earlier (29 February falls back to 28 February). */
export function minusYears(isoDate: string, years: number): string {
  const d = parseIsoDate(isoDate);
  if (!d) throw new Error(`Not a date: ${isoDate}`);
  const y = d.getUTCFullYear() - years;
  const m = d.getUTCMonth();
  const day = Math.min(d.getUTCDate(), new Date(Date.UTC(y, m + 1, 0)).getUTCDate());
  return new Date(Date.UTC(y, m, day)).toISOString().slice(0, 10);
}
