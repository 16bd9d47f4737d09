/**
 * Expiry and holding-period texts of part 1 §4 "Expiry display". Days are whole New York business
 * calendar days, so the browser's own time zone never shifts a trade into "Expired" a day early.
 */
export type ExpiryTone = 'danger' | 'warning' | 'success';

export const EXPIRING_WINDOW_DAYS = 7;

export function expiryDisplay(daysLeft: number): { text: string; tone: ExpiryTone } {
  if (daysLeft < 0) return { text: 'Expired', tone: 'danger' };
  if (daysLeft === 0) return { text: 'Today', tone: 'warning' };
  if (daysLeft === 1) return { text: '1 Day', tone: 'warning' };
  if (daysLeft <= EXPIRING_WINDOW_DAYS) return { text: `${daysLeft} Days`, tone: 'warning' };
  return { text: `${daysLeft} Days`, tone: 'success' };
}

/** "Scalp" for a same-day trade, else "N Day(s)". */
export function holdingPeriod(days: number): string {
  if (days <= 0) return 'Scalp';
  return days === 1 ? '1 Day' : `${days} Days`;
}
