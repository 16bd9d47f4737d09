import { describe, expect, it } from 'vitest';
import { formatDate, formatMoneyShort, todayInNewYork } from './format.ts';

describe('format', () => {
  it('abbreviates money with K and M from 1000', () => {
    expect(formatMoneyShort(999.5)).toBe('$999.50');
    expect(formatMoneyShort(1000)).toBe('$1K');
    expect(formatMoneyShort(1250)).toBe('$1.25K');
    expect(formatMoneyShort(-2_500_000)).toBe('-$2.5M');
  });

  it('computes today in New York, not in the browser zone', () => {
    // 03:00 UTC on Jan 2 is still Jan 1 in New York.
    expect(todayInNewYork(new Date('2026-01-02T03:00:00Z'))).toBe('2026-01-01');
  });

  it('formats business dates without shifting them', () => {
    expect(formatDate('2026-03-09')).toBe('Mar 09, 2026');
    expect(formatDate('2026-03-09T15:00:00.000Z')).toBe('Mar 09, 2026');
    expect(formatDate('2026-02-30')).toBe('2026-02-30');
  });
});
