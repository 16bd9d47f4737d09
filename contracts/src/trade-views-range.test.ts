import { describe, expect, it } from 'vitest';
import { DATE_FILTER_MESSAGES, dateRangeIssues, expiringListQuery, tradeListQuery } from './trade-views.ts';

// Found by the API fuzzer: a range rule inside the schema built a date from garbage and threw (a 500 on
// GET /trades/status/closed?sd=[]&ed=zzz). The schema now checks each date's shape only; the range rules
// need today and run in the view (dateRangeIssues).
describe('the list date range rule', () => {
  it('the schema refuses malformed dates with the field messages and never throws', () => {
    for (const [sd, ed] of [['[]', 'zzz'], ['2026-02-30', '2026-03-01'], ['abc', '2026-01-01'], ['2026-01-01', '9999-99-99']]) {
      const r = tradeListQuery.safeParse({ sd, ed });
      expect(r.success).toBe(false);
      expect(r.error?.issues.map((i) => i.message)).not.toContain(DATE_FILTER_MESSAGES.rangeTooLong);
    }
    expect(expiringListQuery.safeParse({ ed: 'zzz' }).success).toBe(false);
  });

  it('each field\'s first failing rule, in the spec\'s order', () => {
    const today = '2026-02-02';
    expect(dateRangeIssues('2026-02-02', '2026-02-01', today)).toEqual({ ed: DATE_FILTER_MESSAGES.endBeforeStart });
    expect(dateRangeIssues('2025-01-01', '2026-01-02', today)).toEqual({ ed: DATE_FILTER_MESSAGES.rangeTooLong });
    expect(dateRangeIssues('2025-01-01', '2026-01-01', today)).toEqual({});
    expect(dateRangeIssues(undefined, '2026-01-01', today)).toEqual({ sd: DATE_FILTER_MESSAGES.startRequired });
    expect(dateRangeIssues('2026-01-01', undefined, today)).toEqual({ ed: DATE_FILTER_MESSAGES.endRequired });
    // A date in the future before the range's direction or length (each field has its own first issue;
    // the server answers with the start's, listed first).
    expect(dateRangeIssues('2026-02-03', '2026-01-01', today)).toEqual({ sd: DATE_FILTER_MESSAGES.startInFuture, ed: DATE_FILTER_MESSAGES.endBeforeStart });
    expect(dateRangeIssues('2024-01-01', '2026-02-03', today)).toEqual({ ed: DATE_FILTER_MESSAGES.endInFuture });
    // Garbage is a missing date, never a throw.
    expect(dateRangeIssues('zzz', '[]', today)).toEqual({ sd: DATE_FILTER_MESSAGES.startRequired, ed: DATE_FILTER_MESSAGES.endRequired });
  });
});
