import { describe, expect, it } from 'vitest';
import { bestMonth } from './best-month.ts';

describe('bestMonth', () => {
  it('is the month with the most premium, the older one on a tie', () => {
    const months = [
      { month: '2026-01', premium: 120 },
      { month: '2026-02', premium: 300 },
      { month: '2026-03', premium: -50 },
      { month: '2026-04', premium: 300 },
    ];
    expect(bestMonth(months)?.month).toBe('2026-02');
  });

  it('is none when no month earned any premium', () => {
    expect(bestMonth([])).toBeNull();
    expect(bestMonth([{ month: '2026-01', premium: 0 }, { month: '2026-02', premium: 0 }])).toBeNull();
    expect(bestMonth([{ month: '2026-01', premium: -20 }, { month: '2026-02', premium: 0 }])).toBeNull();
  });
});
