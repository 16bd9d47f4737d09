import { describe, expect, it } from 'vitest';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { changesOf } from './edit-trade-dialog.tsx';
import { rollTree } from './roll-history-dialog.tsx';

const item = (uid: string, rolled_from_uid: string | null, tod: string) => ({
  uid,
  rolled_from_uid,
  strike_prices: [100],
  premium_at_open: 100,
  premium_at_close: null,
  expiration_date: '2026-12-18',
  trade_open_date: tod,
  trade_close_date: null,
  status: 1,
  contract_size: 1,
});

describe('roll history tree', () => {
  it('starts at the trade rolled from nothing and nests each roll under its predecessor', () => {
    const tree = rollTree([item('c', 'b', '2026-11-03'), item('a', null, '2026-11-01'), item('b', 'a', '2026-11-02')]);
    expect(tree.map((n) => n.item.uid)).toEqual(['a']);
    expect(tree[0]?.children.map((n) => n.item.uid)).toEqual(['b']);
    expect(tree[0]?.children[0]?.children.map((n) => n.item.uid)).toEqual(['c']);
  });
  it('treats a predecessor outside the answer as a root', () => {
    expect(rollTree([item('x', 'gone', '2026-11-01')]).map((n) => n.item.uid)).toEqual(['x']);
  });
});

describe('edit: only the changed fields are sent', () => {
  const trade = {
    uid: 't',
    au: 'acc',
    ticker: 'MSFT',
    spo: 420,
    cb: null,
    tod: '2026-11-20',
    ed: '2026-12-18',
    sp: [400],
    nd: 0.2,
    cs: 1,
    pao: 210,
    nfto: 0.65,
    notes: '',
  } as unknown as TradeListItem;
  const same = { account: 'acc', ticker: 'MSFT', price: '420', openDate: '2026-11-20', expirationDate: '2026-12-18', strikes: ['400'], delta: '0.2', contractSize: '1', premium: '210', fee: '0.65', notes: '' };
  it('sends nothing when nothing changed', () => {
    expect(changesOf(trade, same, false)).toEqual({});
  });
  it('sends the premium and notes that changed, with API names', () => {
    expect(changesOf(trade, { ...same, premium: '230', notes: 'adjusted' }, false)).toEqual({ premium_at_open: 230, notes: 'adjusted' });
    expect(changesOf(trade, { ...same, price: '15' }, true)).toEqual({ cost_basis: 15 });
  });
});
