import { describe, expect, it } from 'vitest';
import type { AsOfTarget } from '../api/audit-api.ts';
import { emptyTimelineFilters, timelineAddressOf, withTimelineAddress } from './timeline-address.ts';
import { asOfTargetOf, sameParameters, tabOf, withAsOfTarget, withTab } from './view-address.ts';

const params = (search: string) => new URLSearchParams(search);
const readAsOf = (search: string) => asOfTargetOf(params(search));
const writeAsOf = (t: AsOfTarget | null, search = '') => withAsOfTarget(params(search), t).toString();
const P1 = '00000000000000000812-00000000000000004711';

describe("the audit screen's tab in the address", () => {
  it('writes no tab for the timeline, and reads back every other', () => {
    expect(withTab(params('lineage=L1&tab=verify'), 'timeline').toString()).toBe('lineage=L1');
    expect(tabOf(params(''))).toBe('timeline');
    for (const tab of ['as-of', 'verify', 'export'] as const) expect(tabOf(withTab(params('lineage=L1'), tab))).toBe(tab);
    expect(withTab(params('lineage=L1&tab=verify'), 'as-of').toString()).toBe('lineage=L1&tab=as-of');
  });

  it('reads an unknown tab as the timeline', () => {
    for (const tab of ['asof', 'As-Of', 'diff', '']) expect(tabOf(params(`tab=${tab}`))).toBe('timeline');
  });
});

describe("the audit screen's as-of view in the address", () => {
  it('names no view when it holds none, and reads back what it wrote', () => {
    expect(readAsOf('')).toBeNull();
    expect(writeAsOf(null)).toBe('');
    const targets: AsOfTarget[] = [{ event: P1 }, { event: P1, formulas: 1, trade: 't-1' }, { date: '2026-02-27' }, { date: '2026-02-27', formulas: 2 }, { formulas: 1 }, { trade: 't-1' }, {}];
    for (const t of targets) expect(readAsOf(writeAsOf(t))).toEqual(t);
    expect(writeAsOf({ event: P1, formulas: 1, trade: 't-1' })).toBe(`asof_event=${P1}&asof_formulas=1&asof_trade=t-1`);
    // The latest state, asked for without a formulas version or a trade, says so.
    expect(writeAsOf({})).toBe('asof=latest');
    expect(writeAsOf({ formulas: 1 })).toBe('asof_formulas=1');
  });

  it("keeps the timeline's parameters, and the timeline keeps the view's: the same names mean other things", () => {
    const timeline = { filters: { ...emptyTimelineFilters, trade: 'T-timeline', from: '2026-02-02', to: '2026-02-27' }, page: { side: 'after' as const, position: P1 } };
    const both = withAsOfTarget(withTimelineAddress(params('tab=as-of'), timeline), { date: '2026-02-20', trade: 'T-as-of' });
    expect(both.toString()).toBe(`tab=as-of&trade=T-timeline&from=2026-02-02&to=2026-02-27&cursor=${P1}&asof_date=2026-02-20&asof_trade=T-as-of`);
    expect(timelineAddressOf(both)).toEqual(timeline);
    expect(asOfTargetOf(both)).toEqual({ date: '2026-02-20', trade: 'T-as-of' });
    expect(tabOf(both)).toBe('as-of');
    // Another view replaces the last one's parameters, and only those.
    expect(writeAsOf({ event: P1 }, 'lineage=L1&asof_date=2026-02-20&asof_trade=X&asof=latest&tab=as-of')).toBe(`lineage=L1&tab=as-of&asof_event=${P1}`);
    expect(writeAsOf(null, 'lineage=L1&asof_event=x&tab=as-of')).toBe('lineage=L1&tab=as-of');
  });

  it('drops what the as-of API would refuse instead of sending it', () => {
    expect(readAsOf('asof_event=12-34&asof_date=2026-02-30&asof_formulas=0')).toBeNull();
    expect(readAsOf(`asof_event=${P1}&asof_date=yesterday&asof_formulas=v2&asof_trade=${'a'.repeat(65)}`)).toEqual({ event: P1 });
    expect(readAsOf('asof_date=2026-02-27&asof_formulas=1.5&asof_trade=T%00')).toEqual({ date: '2026-02-27' });
    expect(readAsOf(`asof_event=%20${P1}%20&asof_formulas=2&asof_trade=%20T1%20`)).toEqual({ event: P1, formulas: 2, trade: 'T1' });
    // An event and a date together: the API answers one or the other, so the address names no view.
    expect(readAsOf(`asof_event=${P1}&asof_date=2026-02-27&asof_formulas=1`)).toBeNull();
    expect(readAsOf('asof=yes')).toBeNull();
    expect(readAsOf('asof=latest&asof_formulas=x')).toEqual({});
  });
});

describe('the same parameters in another order', () => {
  it('is the same address, but cursors in another order are another page', () => {
    expect(sameParameters(params('tab=as-of&lineage=L1&asof_event=E'), params('lineage=L1&asof_event=E&tab=as-of'))).toBe(true);
    expect(sameParameters(params('cursor=a&tab=verify&cursor=b'), params('cursor=a&cursor=b&tab=verify'))).toBe(true);
    expect(sameParameters(params('cursor=a&cursor=b'), params('cursor=b&cursor=a'))).toBe(false);
    expect(sameParameters(params('tab=as-of'), params('tab=as-of&asof=latest'))).toBe(false);
  });
});
