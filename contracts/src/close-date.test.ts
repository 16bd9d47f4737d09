import { describe, expect, it } from 'vitest';
import { checkCloseDate, latestCloseDate } from './trades.ts';

/** The close dialogs' date picker offers the days the close-date rules accept: up to today, or the expiration once past (QA 70). */
describe('latestCloseDate', () => {
  it('is today while the trade has not expired, and its expiration date once that is past', () => {
    expect(latestCloseDate('2026-12-18', '2026-12-04')).toBe('2026-12-04');
    expect(latestCloseDate('2026-12-04', '2026-12-04')).toBe('2026-12-04');
    expect(latestCloseDate('2026-11-20', '2026-12-04')).toBe('2026-11-20');
  });

  it('is a day the close-date rules accept, and the day after it is not', () => {
    for (const [open, expiration, today] of [['2026-11-02', '2026-11-20', '2026-12-04'], ['2026-11-02', '2026-12-18', '2026-12-04']] as const) {
      const last = latestCloseDate(expiration, today);
      expect(checkCloseDate(last, open, expiration, today, 'close')).toBeNull();
      const after = new Date(Date.parse(`${last}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
      expect(checkCloseDate(after, open, expiration, today, 'close')).not.toBeNull();
    }
  });
});
