import { describe, expect, it } from 'vitest';
import { emptyTimelineFilters, timelineAddressOf, withTimelineAddress, type TimelineAddress } from './timeline-address.ts';

const read = (search: string) => timelineAddressOf(new URLSearchParams(search));
const write = (a: TimelineAddress, search = '') => withTimelineAddress(new URLSearchParams(search), a).toString();
const C1 = '00000000000000000812-00000000000000004711';
const C2 = '00000000000000000813-00000000000000000001';

describe("the audit timeline's filters and page in the address", () => {
  it('is empty on page 1 without filters, and reads back what it wrote', () => {
    expect(write({ filters: emptyTimelineFilters, cursors: [] })).toBe('');
    expect(read('')).toEqual({ filters: emptyTimelineFilters, cursors: [] });
    const addresses: TimelineAddress[] = [
      { filters: emptyTimelineFilters, cursors: [C1] },
      { filters: { ...emptyTimelineFilters, lineage: 'L1', type: 'TradeRolled', direction: 'backward' }, cursors: [C1, C2] },
      { filters: { trade: 't-1', lineage: '', type: '', from: '2026-02-02', to: '2026-02-27', direction: 'forward' }, cursors: [] },
    ];
    for (const a of addresses) expect(read(write(a))).toEqual(a);
    // The page is the cursors of the pages before it, in order: page 3 here.
    expect(write({ filters: emptyTimelineFilters, cursors: [C1, C2] })).toBe(`cursor=${C1}&cursor=${C2}`);
  });

  it("keeps the address's other parameters", () => {
    expect(write({ filters: { ...emptyTimelineFilters, trade: 'T' }, cursors: [C1] }, 'tab=verify&trade=old&cursor=x')).toBe(`tab=verify&trade=T&cursor=${C1}`);
  });

  it('drops what the timeline API would refuse instead of sending it', () => {
    expect(read('type=TradeExploded&from=2026-02-30&to=yesterday&direction=sideways')).toEqual({ filters: emptyTimelineFilters, cursors: [] });
    expect(read(`trade=${'a'.repeat(65)}&lineage=L%00`).filters).toEqual(emptyTimelineFilters);
    expect(read('trade=%20T1%20').filters.trade).toBe('T1');
    // One bad cursor and the trail leads nowhere: page 1.
    expect(read(`cursor=${C1}&cursor=12-34`).cursors).toEqual([]);
  });
});
