import { describe, expect, it } from 'vitest';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { changesOf, expectedOf } from './edit-trade-dialog.tsx';
import type { RollHistoryItem, RollHistorySplit } from '@oj/contracts/trade-views';
import { rollTree, type Node } from './roll-history-dialog.tsx';
import { rowMenuItems } from './trade-row-menu.tsx';

const item = (uid: string, rolled_from_uid: string | null, tod: string, over: Partial<RollHistoryItem> = {}): RollHistoryItem => ({
  uid,
  rolled_from_uid,
  partial_of_uid: null,
  split_of_uid: null,
  strike_prices: [100],
  premium_at_open: 100,
  premium_at_close: null,
  expiration_date: '2026-12-18',
  trade_open_date: tod,
  trade_close_date: null,
  status: 1,
  contract_size: 1,
  ...over,
});

/** A node's own uid, or "entered:<uid>" for a position drawn as entered; children in brackets. */
const shape = (nodes: Node[]): unknown[] =>
  nodes.map((n) => {
    const label = n.kind === 'trade' ? n.item.uid : n.kind === 'split' ? `split:${n.split.uid}` : `entered:${n.entered.uid}`;
    return n.children.length ? [label, shape(n.children)] : label;
  });

describe('roll history tree', () => {
  it('starts at the trade rolled from nothing and nests each roll under its predecessor', () => {
    const tree = rollTree([item('c', 'b', '2026-11-03'), item('a', null, '2026-11-01'), item('b', 'a', '2026-11-02')]);
    expect(shape(tree)).toEqual([['a', [['b', ['c']]]]]);
  });
  // Issue 14: 3 contracts for $300, 1 closed on 11-05, the other 2 (the remainder) rolled on 11-09.
  const closedPart = item('a', null, '2026-11-01', { status: 2, contract_size: 1, premium_at_open: 100, premium_at_close: 40, trade_close_date: '2026-11-05' });
  const remainder = item('r', 'a', '2026-11-01', { partial_of_uid: 'a', status: 3, contract_size: 2, premium_at_open: 200, premium_at_close: 60, trade_close_date: '2026-11-09' });
  const rolledTo = item('n', 'r', '2026-11-09', { contract_size: 2, premium_at_open: 250 });

  it('draws a position after a partial close as entered, the closed part beside the part that was rolled', () => {
    const tree = rollTree([closedPart, remainder, rolledTo]);
    expect(shape(tree)).toEqual([['entered:a', ['a', ['r', ['n']]]]]);
    const entered = tree[0];
    expect(entered?.kind).toBe('position');
    if (entered?.kind !== 'position') return;
    // 1 + 2 contracts, $100 + $200 as opened; none of the entered contracts is still open (2 were rolled).
    expect(entered.entered).toMatchObject({ contract_size: 3, premium_at_open: 300, trade_open_date: '2026-11-01', open_contracts: 0 });
  });

  it('keeps every remainder of repeated partial closes side by side, and a later partial close under its roll', () => {
    const second = item('r2', 'r', '2026-11-01', { partial_of_uid: 'r', contract_size: 1, premium_at_open: 100 });
    const r = { ...remainder, status: 2, contract_size: 1, premium_at_open: 100 };
    const n2 = item('n2', 'n', '2026-11-09', { partial_of_uid: 'n', contract_size: 1, premium_at_open: 125 });
    const n = { ...rolledTo, status: 2, contract_size: 1, premium_at_open: 125 };
    expect(shape(rollTree([closedPart, r, second]))).toEqual([['entered:a', ['a', 'r', 'r2']]]);
    const tree = rollTree([closedPart, remainder, n, n2]);
    expect(shape(tree)).toEqual([['entered:a', ['a', ['r', [['entered:n', ['n', 'n2']]]]]]]);
  });

  it('treats a predecessor outside the answer as a root', () => {
    expect(shape(rollTree([item('x', 'gone', '2026-11-01')]))).toEqual(['x']);
  });

  // QA: a spread rolled, then split: its legs stood as roots of their own, cut off from the roll.
  const split = (uid: string, over: Partial<RollHistorySplit> = {}): RollHistorySplit => ({
    uid,
    rolled_from_uid: null,
    partial_of_uid: null,
    strike_prices: [390, 385],
    premium_at_open: 100,
    expiration_date: '2026-12-18',
    trade_open_date: '2026-11-09',
    contract_size: 2,
    split_date: '2026-11-12',
    ...over,
  });
  it('hangs a split trade under the trade it was rolled from, and its legs under it', () => {
    const rolled = item('a', null, '2026-11-01', { status: 3, strike_prices: [400, 395], contract_size: 2, trade_close_date: '2026-11-09' });
    const closedLeg = item('l1', null, '2026-11-09', { split_of_uid: 'b', status: 2, strike_prices: [385], contract_size: 2 });
    const openLeg = item('l2', null, '2026-11-09', { split_of_uid: 'b', strike_prices: [390], contract_size: 2 });
    expect(shape(rollTree([rolled, closedLeg, openLeg], [split('b', { rolled_from_uid: 'a' })]))).toEqual([['a', [['split:b', ['l1', 'l2']]]]]);
    // The open leg rolled on, and a remainder of a partial close of the open leg stays beside it.
    const rolledLeg = { ...openLeg, status: 3, trade_close_date: '2026-11-20' };
    const next = item('l3', 'l2', '2026-11-20', { strike_prices: [380] });
    expect(shape(rollTree([rolled, closedLeg, rolledLeg, next], [split('b', { rolled_from_uid: 'a' })]))).toEqual([['a', [['split:b', ['l1', ['l2', ['l3']]]]]]]);
  });

  it('counts a split part of a partially closed position open by its legs', () => {
    // 3 contracts entered; 1 closed; the remainder (2) split: one leg closed, the other still open.
    const closedPart = item('a', null, '2026-11-01', { status: 2, contract_size: 1, premium_at_open: 50 });
    const closedLeg = item('l1', null, '2026-11-01', { split_of_uid: 'b', status: 2, contract_size: 2 });
    const openLeg = item('l2', null, '2026-11-01', { split_of_uid: 'b', contract_size: 2 });
    const tree = rollTree([closedPart, closedLeg, openLeg], [split('b', { partial_of_uid: 'a', trade_open_date: '2026-11-01', premium_at_open: 100 })]);
    expect(shape(tree)).toEqual([['entered:a', ['a', ['split:b', ['l1', 'l2']]]]]);
    const entered = tree[0];
    if (entered?.kind !== 'position') throw new Error('expected the position as entered');
    expect(entered.entered).toMatchObject({ contract_size: 3, premium_at_open: 150, open_contracts: 2 });
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
  it('says what the form showed for exactly the fields it changes, so a stale tab\'s edit is refused (QA: a lost update)', () => {
    expect(expectedOf(trade, changesOf(trade, { ...same, premium: '230', notes: 'adjusted' }, false))).toEqual({ premium_at_open: 210, notes: '' });
    expect(expectedOf(trade, changesOf(trade, { ...same, strikes: ['405'], ticker: 'AAPL' }, false))).toEqual({ strike_prices: [400], ticker: 'MSFT' });
    expect(expectedOf(trade, {})).toEqual({});
  });
});

describe('open-trade row menu (issue 14)', () => {
  const base = { uid: 't', ticker: 'SPY', rh: false, auid: null } as unknown as TradeListItem;
  const labels = (t: TradeListItem, variant: 'open' | 'closed') => rowMenuItems(t, variant, () => undefined).map((i) => i.label);
  it('offers Split History only for a trade derived from a split, Roll History only with a roll', () => {
    expect(labels(base, 'open')).toEqual(['View Detail', 'Edit', 'Delete']);
    expect(labels({ ...base, auid: 'parent' }, 'open')).toEqual(['View Detail', 'Edit', 'Delete', 'Split History']);
    expect(labels({ ...base, rh: true }, 'open')).toEqual(['View Detail', 'Edit', 'Delete', 'Roll History']);
    expect(labels({ ...base, auid: 'parent', rh: true }, 'closed')).toEqual(['Roll History', 'Split History', 'View Detail']);
  });
  it('offers Share on open and closed rows once the app composed the share card in', () => {
    const shareable = (t: TradeListItem, variant: 'open' | 'closed') => rowMenuItems(t, variant, () => undefined, true).map((i) => i.label);
    expect(shareable(base, 'open')).toEqual(['View Detail', 'Share', 'Edit', 'Delete']);
    expect(shareable({ ...base, rh: true }, 'closed')).toEqual(['Roll History', 'View Detail', 'Share']);
    const asked: unknown[] = [];
    rowMenuItems(base, 'closed', (a) => asked.push(a), true)
      .find((i) => i.label === 'Share')!
      .onSelect!();
    expect(asked).toEqual([{ type: 'share', trade: base }]);
  });
});
