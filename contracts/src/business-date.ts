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

/** Milliseconds in a day: for instants (a trial's end, a grace period); business dates use `addDays`. */
export const DAY_MS = 86_400_000;

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

/** `isoDate` when it is a weekday, else the Friday before it. */
export function weekdayOnOrBefore(isoDate: string): string {
  let day = isoDate;
  while (isWeekend(day)) day = addDays(day, -1);
  return day;
}

/**
 * Days since 1970-01-01 of a `YYYY-MM-DD` date, or null when it is not a real date: the same answer as
 * `parseIsoDate(value).getTime() / DAY_MS`, computed from the digits without a regular expression or a
 * Date (it runs for every trade of a rebuild and every open trade of a list page).
 */
export function epochDay(value: string): number | null {
  if (value.length !== 10 || value.charCodeAt(4) !== 45 || value.charCodeAt(7) !== 45) return null;
  const year = digits(value, 0, 4);
  const month = digits(value, 5, 2);
  const day = digits(value, 8, 2);
  // Years 0 to 99 are refused as parseIsoDate refuses them (Date.UTC reads them as 1900 to 1999).
  if (year < 100 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  // Days from civil (H. Hinnant): the year starts in March, so the leap day is the last of the year.
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** The number written by `n` decimal digits at `at`, or -1 when a character is not a digit. */
function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

const daysInMonth = (year: number, month: number): number =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;

/** Whole calendar days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  const a = epochDay(from);
  const b = epochDay(to);
  if (a === null || b === null) throw new Error(`Not a date: ${from} / ${to}`);
  return b - a;
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
