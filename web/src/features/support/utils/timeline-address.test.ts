import { describe, expect, it } from 'vitest';
import { emptyTimelineFilters, timelineAddressOf, timelinePageOf, timelineReadOf, withTimelineAddress, type TimelineAddress } from './timeline-address.ts';

const read = (search: string) => timelineAddressOf(new URLSearchParams(search));
const write = (a: TimelineAddress, search = '') => withTimelineAddress(new URLSearchParams(search), a).toString();
const C1 = '00000000000000000812-00000000000000004711';
const C2 = '00000000000000000813-00000000000000000001';
/** The n-th event's position in log order. */
const at = (n: number) => `${String(1000 + n).padStart(20, '0')}-${String(n).padStart(20, '0')}`;

const logs = new Map<string, string[]>();
function logOf(total: number, direction: 'forward' | 'backward'): string[] {
  const key = `${total}-${direction}`;
  if (!logs.has(key)) {
    const log = Array.from({ length: total }, (_, n) => at(n));
    logs.set(key, direction === 'forward' ? log : log.reverse());
  }
  return logs.get(key)!;
}

/**
 * The server's answer to `timelineReadOf(address, size)` over a log of `total` events numbered 0 … total-1
 * (a log that matches the filters throughout): the page and the events its cursor passed, in the order read.
 */
function answer(address: TimelineAddress, total: number, size: number) {
  const r = timelineReadOf(address, size);
  const ordered = logOf(total, r.direction);
  const start = r.cursor ? ordered.findIndex((p) => (r.direction === 'forward' ? p > r.cursor! : p < r.cursor!)) : 0;
  const from = start === -1 ? ordered.length : start;
  const items = ordered.slice(from, from + size).map((position) => ({ position }));
  return { items, total, offset: from, next_cursor: from + size < ordered.length ? items.at(-1)!.position : null };
}
const pageOf = (a: TimelineAddress, total: number, size = 50) => timelinePageOf(a, answer(a, total, size), size);
const first = (p: { items: Array<{ position: string }> }) => p.items[0]?.position;

describe("the audit timeline's filters and page in the address", () => {
  it('is empty on page 1 without filters, and reads back what it wrote', () => {
    expect(write({ filters: emptyTimelineFilters, page: null })).toBe('');
    expect(read('')).toEqual({ filters: emptyTimelineFilters, page: null });
    const addresses: TimelineAddress[] = [
      { filters: emptyTimelineFilters, page: { side: 'after', position: C1 } },
      { filters: { ...emptyTimelineFilters, lineage: 'L1', type: 'TradeRolled', direction: 'backward' }, page: { side: 'before', position: C2 } },
      { filters: { trade: 't-1', lineage: '', type: '', from: '2026-02-02', to: '2026-02-27', direction: 'forward' }, page: null },
    ];
    for (const a of addresses) expect(read(write(a))).toEqual(a);
    // One position, whichever way the page was reached.
    expect(write({ filters: emptyTimelineFilters, page: { side: 'after', position: C2 } })).toBe(`cursor=${C2}`);
    expect(write({ filters: emptyTimelineFilters, page: { side: 'before', position: C2 } })).toBe(`before=${C2}`);
  });

  it("keeps the address's other parameters", () => {
    expect(write({ filters: { ...emptyTimelineFilters, trade: 'T' }, page: { side: 'after', position: C1 } }, 'tab=verify&trade=old&cursor=x&before=y')).toBe(`tab=verify&trade=T&cursor=${C1}`);
  });

  it('drops what the timeline API would refuse instead of sending it', () => {
    expect(read('type=TradeExploded&from=2026-02-30&to=yesterday&direction=sideways')).toEqual({ filters: emptyTimelineFilters, page: null });
    expect(read(`trade=${'a'.repeat(65)}&lineage=L%00`).filters).toEqual(emptyTimelineFilters);
    expect(read('trade=%20T1%20').filters.trade).toBe('T1');
    expect(read('cursor=12-34').page).toBeNull();
    expect(read('before=12-34').page).toBeNull();
  });

  it('opens a link written with a cursor per page turned on the page its last cursor names (QA 74)', () => {
    const cursors = Array.from({ length: 300 }, (_, n) => at(50 * (n + 1) - 1));
    const legacy = `lineage=L1&direction=backward&${cursors.map((c) => `cursor=${c}`).join('&')}&tab=as-of`;
    expect(legacy.length).toBeGreaterThan(12_000);
    const address = read(legacy);
    expect(address).toEqual({ filters: { ...emptyTimelineFilters, lineage: 'L1', direction: 'backward' }, page: { side: 'after', position: cursors.at(-1) } });
    // Written back (the screen cleans its address on opening), it is one cursor long.
    const clean = write(address, legacy);
    expect(clean).toBe(`tab=as-of&lineage=L1&direction=backward&cursor=${cursors.at(-1)}`);
    expect(clean.length).toBeLessThan(120);
    // Read as it was read then: onwards from that cursor in the timeline's order.
    expect(timelineReadOf(address, 50)).toEqual({ direction: 'backward', limit: 50, cursor: cursors.at(-1), lineage: 'L1' });
  });
});

describe("the audit timeline's pages", () => {
  const oldestFirst = emptyTimelineFilters;
  const filtered = { ...emptyTimelineFilters, type: 'TradeRolled', from: '2026-02-02', trade: ' t-1 ' };

  it('the first page: no way back, Next onwards from its last event', () => {
    const p = pageOf({ filters: oldestFirst, page: null }, 120);
    expect([p.number, p.pages, p.items.length, first(p)]).toEqual([1, 3, 50, at(0)]);
    expect(p.previous).toBeNull();
    expect(p.next).toEqual({ filters: oldestFirst, page: { side: 'after', position: at(49) } });
    expect(pageOf({ filters: oldestFirst, page: null }, 0)).toMatchObject({ number: 1, pages: 1, previous: null, next: null, items: [] });
  });

  it('next: one position in the address on every page, the page number from the server', () => {
    let address: TimelineAddress = { filters: oldestFirst, page: null };
    for (let n = 1; n <= 339; n++) address = pageOf(address, 17_000).next!;
    const p = pageOf(address, 17_000);
    expect([p.number, p.pages, first(p), p.items.length]).toEqual([340, 340, at(16_950), 50]);
    expect(p.next).toBeNull();
    expect(write(address).length).toBeLessThan(60);
  });

  it('previous: back from the page’s first event, the same pages as Next turned, down to the first page without a position', () => {
    const total = 175;
    const forwards: string[][] = [];
    let address: TimelineAddress | null = { filters: oldestFirst, page: null };
    while (address) {
      const p = pageOf(address, total);
      forwards.push(p.items.map((i) => i.position));
      address = p.next;
    }
    expect(forwards.map((f) => f.length)).toEqual([50, 50, 50, 25]);
    // From the last page (reached by a link, say), Previous after Previous.
    address = { filters: oldestFirst, page: { side: 'after', position: at(149) } };
    const backwards: string[][] = [];
    const numbers: number[] = [];
    while (address) {
      const p = pageOf(address, total);
      backwards.unshift(p.items.map((i) => i.position));
      numbers.unshift(p.number);
      address = p.previous;
      if (p.number === 3) expect(address).toEqual({ filters: oldestFirst, page: { side: 'before', position: at(100) } });
      // Page 2's previous is the first page: no position in the address.
      if (p.number === 2) expect(address).toEqual({ filters: oldestFirst, page: null });
    }
    expect(backwards).toEqual(forwards);
    expect(numbers).toEqual([1, 2, 3, 4]);
    // A page reached by Previous leads Next to the page it came from.
    const third = pageOf({ filters: oldestFirst, page: { side: 'before', position: at(150) } }, total);
    expect(third.number).toBe(3);
    expect(pageOf(third.next!, total).items.map((i) => i.position)).toEqual(forwards[3]);
  });

  it('direction switch: newest first reads backwards, and its Previous reads forwards from the page’s first event', () => {
    const newestFirst = { ...emptyTimelineFilters, direction: 'backward' as const };
    const one = pageOf({ filters: newestFirst, page: null }, 120);
    expect([first(one), one.number]).toEqual([at(119), 1]);
    expect(timelineReadOf({ filters: newestFirst, page: null }, 50)).toEqual({ direction: 'backward', limit: 50 });
    const three = pageOf(pageOf(one.next!, 120).next!, 120);
    expect([first(three), three.items.length, three.number, three.pages]).toEqual([at(19), 20, 3, 3]);
    expect(three.previous).toEqual({ filters: newestFirst, page: { side: 'before', position: at(19) } });
    expect(timelineReadOf(three.previous!, 50)).toEqual({ direction: 'forward', limit: 50, cursor: at(19) });
    const two = pageOf(three.previous!, 120);
    expect([first(two), two.items.at(-1)?.position, two.number]).toEqual([at(69), at(20), 2]);
    expect(two.previous).toEqual({ filters: newestFirst, page: null });
    // The order is a filter: switching it (Apply) starts again on the first page, with the order in the address.
    expect(write({ filters: newestFirst, page: null })).toBe('direction=backward');
  });

  it('keeps the filters on every page it leads to, and sends them with each read', () => {
    const p = pageOf({ filters: filtered, page: { side: 'after', position: at(99) } }, 300);
    expect(p.next?.filters).toBe(filtered);
    expect(p.previous?.filters).toBe(filtered);
    expect(write(p.previous!)).toBe(`trade=t-1&type=TradeRolled&from=2026-02-02&before=${at(100)}`);
    expect(timelineReadOf(p.previous!, 50)).toEqual({ direction: 'backward', limit: 50, cursor: at(100), trade: 't-1', type: 'TradeRolled', from: '2026-02-02' });
    expect(write(p.next!)).toBe(`trade=t-1&type=TradeRolled&from=2026-02-02&cursor=${at(149)}`);
  });
});
