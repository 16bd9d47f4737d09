import { describe, expect, it } from 'vitest';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { tradeListItemFixture } from '@/test/trade-list-item.ts';
import { applyChange, applyChanges, flattenPages, matchesFilters, type TradePage, type TradePages } from './list-upkeep.ts';

const trade = tradeListItemFixture;

const pages = (items: TradeListItem[][], total: number, size = 2): TradePages => ({
  pageParams: items.map((_, i) => i + 1),
  pages: items.map((p, i): TradePage => ({ items: p, page: i + 1, pages: Math.ceil(total / size), size, total })),
});

const today = '2026-11-22';
const uids = (d: TradePages) => flattenPages(d).map((t) => t.uid);

describe('list upkeep (part 1 §4)', () => {
  it('inserts an opened trade in open-date order and drops the item pushed off the loaded window', () => {
    const data = pages([[trade('b', { tod: '2026-11-10' }), trade('c', { tod: '2026-11-05' })]], 3);
    const next = applyChange(data, { type: 'upsert', trade: trade('a', { tod: '2026-11-07' }) }, 'open', {}, today);
    expect(uids(next)).toEqual(['b', 'a']);
    expect(next.pages[0]?.total).toBe(4);
    expect(next.pages[0]?.pages).toBe(2);
  });

  it('appends at the end when every page is loaded', () => {
    const data = pages([[trade('b', { tod: '2026-11-10' })]], 1);
    const next = applyChange(data, { type: 'upsert', trade: trade('a', { tod: '2026-11-01' }) }, 'open', {}, today);
    expect(uids(next)).toEqual(['b', 'a']);
    expect(next.pages[0]?.total).toBe(2);
  });

  it('moves a closed trade out of Open and into Closed, newest close first', () => {
    const open = pages([[trade('a'), trade('b', { tod: '2026-11-01' })]], 2);
    const closed = pages([[trade('x', { status: 2, tcd: '2026-11-20' })]], 1);
    const done = trade('a', { status: 2, tcd: '2026-11-21', up: '2026-11-21T15:00:00Z' });
    expect(uids(applyChange(open, { type: 'upsert', trade: done }, 'open', {}, today))).toEqual(['b']);
    expect(uids(applyChange(closed, { type: 'upsert', trade: done }, 'closed', {}, today))).toEqual(['a', 'x']);
  });

  it('adds to the expiring list only within 7 days of expiration', () => {
    const data = pages([[]], 0);
    const far = trade('far', { ed: '2026-12-18' });
    const near = trade('near', { ed: '2026-11-27' });
    expect(uids(applyChanges(data, [{ type: 'upsert', trade: far }, { type: 'upsert', trade: near }], 'expiring', {}, today))).toEqual(['near']);
  });

  it('is idempotent: re-applying a change the server already shows changes nothing', () => {
    const a = trade('a');
    const data = pages([[a]], 1);
    expect(applyChange(data, { type: 'upsert', trade: a }, 'open', {}, today)).toBe(data);
    expect(applyChange(data, { type: 'remove', uid: 'zzz' }, 'open', {}, today)).toBe(data);
    const removed = applyChange(data, { type: 'remove', uid: 'a' }, 'open', {}, today);
    expect(uids(removed)).toEqual([]);
    expect(removed.pages[0]?.total).toBe(0);
  });

  it('keeps a trade out of a list whose filters it does not pass', () => {
    expect(matchesFilters('open', trade('a'), { ticker: 'MSFT' })).toBe(false);
    expect(matchesFilters('open', trade('a'), { au: 'acc-2' })).toBe(false);
    expect(matchesFilters('open', trade('a'), { sd: '2026-11-03', ed: today })).toBe(false);
    expect(matchesFilters('closed', trade('a', { status: 2, tcd: '2026-11-20' }), { sd: '2026-11-03', ed: today })).toBe(true);
  });
});
