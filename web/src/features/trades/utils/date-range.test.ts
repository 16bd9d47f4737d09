import { describe, expect, it } from 'vitest';
import { dateRangeIssues } from '@oj/contracts/trade-views';
import { presetRange } from './date-range.ts';

describe('the list pages date-range presets', () => {
  it('Year is 365 days back, also across a 29 February', () => {
    expect(presetRange('year', '2026-11-27')).toEqual({ sd: '2025-11-27', ed: '2026-11-27' });
    // 2024-03-01 minus 365 days is 2023-03-02 (2024 has a 29 February), not 2023-03-01.
    expect(presetRange('year', '2024-03-01')).toEqual({ sd: '2023-03-02', ed: '2024-03-01' });
  });

  it('are each a range the server accepts', () => {
    for (const today of ['2026-11-27', '2024-03-01', '2024-02-29', '2025-01-01']) {
      for (const preset of ['last10', 'last30', 'last90', 'ytd', 'year'] as const) {
        const r = presetRange(preset, today);
        expect(dateRangeIssues(r.sd, r.ed, today), `${preset} on ${today}`).toEqual({});
      }
    }
  });

  it('Last 10, 30 and 90 Days end today', () => {
    expect(presetRange('last10', '2026-03-02')).toEqual({ sd: '2026-02-20', ed: '2026-03-02' });
    expect(presetRange('last30', '2026-03-02')).toEqual({ sd: '2026-01-31', ed: '2026-03-02' });
    expect(presetRange('ytd', '2026-03-02')).toEqual({ sd: '2026-01-01', ed: '2026-03-02' });
  });
});
