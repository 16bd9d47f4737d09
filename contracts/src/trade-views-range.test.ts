import { describe, expect, it } from 'vitest';
import { DATE_FILTER_MESSAGES, expiringListQuery, tradeListQuery } from './trade-views.ts';

// Found by the API fuzzer: zod runs an object's refinement even after a field failed, and the range rule
// then built a date from garbage and threw (a 500 on GET /trades/status/closed?sd=[]&ed=zzz).
describe('the list date range rule', () => {
  it('refuses malformed dates with the field messages and never throws', () => {
    for (const [sd, ed] of [['[]', 'zzz'], ['2026-02-30', '2026-03-01'], ['abc', '2026-01-01'], ['2026-01-01', '9999-99-99']]) {
      const r = tradeListQuery.safeParse({ sd, ed });
      expect(r.success).toBe(false);
      expect(r.error?.issues.map((i) => i.message)).not.toContain(DATE_FILTER_MESSAGES.rangeTooLong);
    }
    expect(expiringListQuery.safeParse({ ed: 'zzz' }).success).toBe(false);
  });

  it('still applies the order and one-year rules to real dates', () => {
    expect(tradeListQuery.safeParse({ sd: '2026-02-02', ed: '2026-02-01' }).error?.issues[0]?.message).toBe(DATE_FILTER_MESSAGES.endBeforeStart);
    expect(tradeListQuery.safeParse({ sd: '2025-01-01', ed: '2026-01-02' }).error?.issues[0]?.message).toBe(DATE_FILTER_MESSAGES.rangeTooLong);
    expect(tradeListQuery.safeParse({ sd: '2025-01-01', ed: '2026-01-01' }).success).toBe(true);
  });
});
