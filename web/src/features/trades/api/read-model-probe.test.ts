import { describe, expect, it } from 'vitest';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { probeFor } from './read-model-probe.ts';
import type { TradePage } from './list-upkeep.ts';

const t = (over: Partial<TradeListItem>): TradeListItem => ({ uid: 'a', ticker: 'AAPL', tod: '2026-11-02', tcd: null, status: 1, up: '2026-11-02T15:00:00Z', ...over }) as TradeListItem;
const page = (...items: TradeListItem[]): TradePage => ({ items, page: 1, pages: 1, size: 50, total: items.length });

describe('read-model probe (issue 14)', () => {
  it('looks for a closed trade in Closed, by its ticker and close date, as new as the answer', () => {
    const closed = t({ status: 2, tcd: '2026-11-20', up: '2026-11-20T15:00:00Z' });
    const p = probeFor({ type: 'upsert', trade: closed });
    expect(p).toMatchObject({ status: 'closed', filters: { ticker: 'AAPL', sd: '2026-11-20', ed: '2026-11-20' } });
    expect(p?.shows(page(closed))).toBe(true);
    expect(p?.shows(page(t({ status: 2, tcd: '2026-11-20', up: '2026-11-02T15:00:00Z' })))).toBe(false);
    expect(p?.shows(page())).toBe(false);
  });

  it('looks for a new open trade in Open by its open date, and for a rolled one in Rolled', () => {
    expect(probeFor({ type: 'upsert', trade: t({}) })).toMatchObject({ status: 'open', filters: { sd: '2026-11-02', ed: '2026-11-02' } });
    expect(probeFor({ type: 'upsert', trade: t({ status: 3, tcd: '2026-11-21' }) })).toMatchObject({ status: 'rolled', filters: { sd: '2026-11-21' } });
  });

  it('sees a removed trade gone from where it was; without its earlier version there is no probe', () => {
    const p = probeFor({ type: 'remove', uid: 'a', before: t({}) });
    expect(p).toMatchObject({ status: 'open', filters: { ticker: 'AAPL', sd: '2026-11-02' } });
    expect(p?.shows(page(t({})))).toBe(false);
    expect(p?.shows(page(t({ uid: 'b' })))).toBe(true);
    expect(probeFor({ type: 'remove', uid: 'a' })).toBeNull();
  });
});
