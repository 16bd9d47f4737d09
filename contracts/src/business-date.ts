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

/** The New York calendar date of an instant, `YYYY-MM-DD`. */
export function newYorkDate(instant: Date): string {
  return nyFormatter.format(instant);
}

const DAY_MS = 86_400_000;

/** Parses `YYYY-MM-DD` as a calendar date (UTC midnight); null when it is not a real date. */
export function parseIsoDate(value: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return null;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === value ? d : null;
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
