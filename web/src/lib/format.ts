/**
 * Display formatting. Business dates are New York dates ('YYYY-MM-DD'), so "today" is computed in
 * America/New_York, never in the browser's zone: a trader in Tokyo must not get tomorrow's date.
 */
export const BUSINESS_TIME_ZONE = 'America/New_York';

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** $1,234.56 */
export function formatMoney(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return usd.format(value);
}

/** Big numbers abbreviated from 1000: $999.50, $1.2K, $3.4M (sign kept). */
export function formatMoneyShort(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const abs = Math.abs(value);
  const sign = value < 0 ? '-' : '';
  if (abs >= 1_000_000) return `${sign}$${trim(abs / 1_000_000)}M`;
  if (abs >= 1_000) return `${sign}$${trim(abs / 1_000)}K`;
  return `${sign}$${abs.toFixed(2)}`;
}

/** 1234 -> 1.2K, 2500000 -> 2.5M. */
export function formatCompact(value: number): string {
  const abs = Math.abs(value);
  const sign = value < 0 ? '-' : '';
  if (abs >= 1_000_000) return `${sign}${trim(abs / 1_000_000)}M`;
  if (abs >= 1_000) return `${sign}${trim(abs / 1_000)}K`;
  return `${sign}${Number.isInteger(abs) ? abs : abs.toFixed(2)}`;
}

function trim(n: number): string {
  return n.toFixed(n >= 100 ? 0 : n >= 10 ? 1 : 2).replace(/\.?0+$/, '');
}

export function formatPercent(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return `${value.toFixed(digits)}%`;
}

/** Today's business date in New York, 'YYYY-MM-DD'. */
export function todayInNewYork(now: Date = new Date()): string {
  // en-CA formats as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', { timeZone: BUSINESS_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/** Parses a 'YYYY-MM-DD' business date as a calendar date (no time-zone shift). */
function parseIsoDate(iso: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  if (!m) return null;
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
}

/** 'YYYY-MM-DD' -> 'Jan 05, 2026'. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = parseIsoDate(iso);
  if (!d) return iso;
  return new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', month: 'short', day: '2-digit', year: 'numeric' }).format(d);
}

/** 'YYYY-MM-DD' -> 'January 05, 2026' (the subscription pages' "Month DD, YYYY"). */
export function formatLongDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = parseIsoDate(iso);
  if (!d) return iso;
  return new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', month: 'long', day: '2-digit', year: 'numeric' }).format(d);
}

/** A timestamp shown in New York time: 'Jan 05, 2026, 3:04 PM'. */
export function formatDateTime(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return new Intl.DateTimeFormat('en-US', {
    timeZone: BUSINESS_TIME_ZONE,
    month: 'short',
    day: '2-digit',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
  }).format(d);
}

/** Whole days from `from` to `to` (both 'YYYY-MM-DD'). */
export function daysBetween(from: string, to: string): number {
  const a = parseIsoDate(from);
  const b = parseIsoDate(to);
  if (!a || !b) return Number.NaN;
  return Math.round((b.getTime() - a.getTime()) / 86_400_000);
}
