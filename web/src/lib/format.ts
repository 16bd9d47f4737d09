/**
 * Display formatting. Business dates are New York dates ('YYYY-MM-DD'), so "today" is computed in
 * America/New_York, never in the browser's zone: a trader in Tokyo must not get tomorrow's date.
 */
import { BUSINESS_TIME_ZONE, newYorkDate, parseIsoDate } from '@oj/contracts/business-date';

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** $1,234.56 */
export function formatMoney(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return usd.format(value);
}

/** Big numbers abbreviated from 1000: $999.50, $1.25K, $120K, $3.4M (sign kept). */
export function formatMoneyShort(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const sign = value < 0 ? '-' : '';
  const cents = Math.round(Math.abs(value) * 100) / 100;
  return cents < 1_000 ? `${sign}$${cents.toFixed(2)}` : `${sign}$${abbreviated(cents)}`;
}

/** The narrowest amount still true to the dollar: $580 for -$580.00's box too narrow for its cents, $3.58M past 1K. */
export function formatMoneyWhole(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const abs = Math.abs(value);
  if (abs >= 1_000) return formatMoneyShort(value);
  const dollars = Math.round(abs);
  return `${value < 0 && dollars > 0 ? '-' : ''}$${dollars}`;
}

/**
 * A money axis tick: as `formatMoneyShort`, without the cents of a whole amount under 1K, so an axis
 * reads $400, $800, $1K, $1.2K rather than $800.00 beside $1K; a tick with cents keeps them ($0.50).
 */
export function formatMoneyTick(value: number): string {
  const cents = Math.round(Math.abs(value) * 100) / 100;
  return cents < 1_000 && Number.isInteger(cents) ? `${value < 0 ? '-' : ''}$${cents}` : formatMoneyShort(value);
}

/** 1234 -> 1.23K, 2500000 -> 2.5M. */
export function formatCompact(value: number): string {
  const abs = Math.abs(value);
  const sign = value < 0 ? '-' : '';
  if (abs >= 1_000) return `${sign}${abbreviated(abs)}`;
  return `${sign}${Number.isInteger(abs) ? abs : abs.toFixed(2)}`;
}

/**
 * A number of 1000 or more in K or M (the spec's two units; a billion is 1000M), with three significant
 * digits at most: 1.25K, 12.5K, 125K. Only zeros after the point are dropped (QA: 100,000 read "$1K"
 * when the zeros of "100" were stripped), and a K that rounds to 1000 becomes 1M.
 */
function abbreviated(abs: number): string {
  const inK = digits(abs / 1_000);
  if (abs < 1_000_000 && Number(inK) < 1_000) return `${inK}K`;
  return `${digits(abs / 1_000_000)}M`;
}

function digits(n: number): string {
  const fixed = n.toFixed(n >= 100 ? 0 : n >= 10 ? 1 : 2);
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}

/** A price without trailing zeros, to the cent: 580 -> '580', 582.5 -> '582.5', 100.123456 -> '100.12'. */
export function trimNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0$/, '');
}

/** A trade's strikes, leg by leg: '$580 / $570'. */
export const formatStrikes = (sp: readonly number[]): string => sp.map((s) => `$${trimNumber(s)}`).join(' / ');

export function formatPercent(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return `${value.toFixed(digits)}%`;
}

/** Today's business date in New York, 'YYYY-MM-DD' (the contracts' date math; `now` for tests). */
export function todayInNewYork(now: Date = new Date()): string {
  return newYorkDate(now);
}

/**
 * The date formatters, built once and reused (keyed by their options and time zone): constructing an
 * Intl.DateTimeFormat costs far more than formatting with one, and a list's date cells called it for
 * every cell on every render (QA: 38% of the CPU of a Load More on a long Closed list).
 */
const dateFormats = new Map<string, Intl.DateTimeFormat>();
function cachedFormat(key: string, make: () => Intl.DateTimeFormat): Intl.DateTimeFormat {
  let format = dateFormats.get(key);
  if (!format) {
    format = make();
    dateFormats.set(key, format);
  }
  return format;
}
/** A business date (parsed as UTC midnight) with a short or long month name. */
const dateFormat = (month: 'short' | 'long') =>
  cachedFormat(`date|${month}`, () => new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', month, day: '2-digit', year: 'numeric' }));
/**
 * A UTC instant (a business date parsed as UTC midnight) in en-US with `options` ("Jan 8", "Mon", "November
 * 2026"), from a formatter built once per set of options: a chart of two years of days labelled its 730
 * dates with 730 new formatters, 70 ms of a heavy dashboard's first render.
 */
export function formatUtc(at: Date, options: Intl.DateTimeFormatOptions): string {
  return cachedFormat(`utc|${JSON.stringify(options)}`, () => new Intl.DateTimeFormat('en-US', { ...options, timeZone: 'UTC' })).format(at);
}
/** A business date 'YYYY-MM-DD' with `options`, as `formatUtc` ("Jan 8", "Mon", "November 2026"). */
export function formatBusinessDate(date: string, options: Intl.DateTimeFormatOptions): string {
  return formatUtc(parseIsoDate(date) ?? new Date(Number.NaN), options);
}
/**
 * 'YYYY-MM' -> "Jan '26": the month labels of the dashboard's charts and of their share cards (one function,
 * so a card reads as the widget it shares).
 */
export function formatMonthShort(month: string): string {
  return `${formatBusinessDate(`${month}-01`, { month: 'short' })} '${month.slice(2, 4)}`;
}
/** A business date 'YYYY-MM-DD' -> its weekday, "Mon" (the weekly strip and its share card). */
export function formatWeekday(date: string): string {
  return formatBusinessDate(date, { weekday: 'short' });
}
/** A timestamp with its time of day, in `timeZone`. */
const dateTimeFormat = (timeZone: string) =>
  cachedFormat(`datetime|${timeZone}`, () => new Intl.DateTimeFormat('en-US', { timeZone, month: 'short', day: '2-digit', year: 'numeric', hour: 'numeric', minute: '2-digit' }));

/** 'YYYY-MM-DD' -> 'Jan 05, 2026'. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = parseIsoDate(iso.slice(0, 10));
  if (!d) return iso;
  return dateFormat('short').format(d);
}

/** 'YYYY-MM-DD' -> 'January 05, 2026' (the subscription pages' "Month DD, YYYY"). */
export function formatLongDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = parseIsoDate(iso.slice(0, 10));
  if (!d) return iso;
  return dateFormat('long').format(d);
}

/**
 * A timestamp shown in New York time, the product's business time, and labelled so (QA: "5:51 AM" with
 * no zone beside the audit's UTC times): 'Jan 05, 2026, 3:04 PM ET'.
 */
export function formatDateTime(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return dateTimeFormat(BUSINESS_TIME_ZONE).format(d) + ' ET';
}
