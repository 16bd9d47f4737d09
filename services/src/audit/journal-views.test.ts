import { describe, expect, it } from 'vitest';
import { emptyLineage, type SplitRecord } from '@oj/contracts/lineage-fold';
import type { TradeRecord } from '@oj/contracts/trade-record';
import { rollTreeOf, splitTreesOf } from './journal-views.ts';
import { tradeRecord } from './testing.ts';

// A Bull Put Spread of 2 contracts, in a lineage with a roll.
const record = (uid: string, extra: Partial<TradeRecord> = {}): TradeRecord =>
  tradeRecord(uid, { ticker: 'QQQ', strategyUid: 'bull-put-spread', strikePrices: [400, 395], contractSize: 2, premiumAtOpen: 150, netFeeToOpen: 2, netDelta: 0.2, stockPriceAtOpen: 410, notes: '', tags: [], hasRollHistory: true, ...extra });

/** The split of the spread `b` of lineage L1 (2 contracts, opened 20 February) into legs l1 and l2, on 27 February. */
const split = (gene: { pao: number; cause: string }, parent: SplitRecord['parent']): SplitRecord => ({
  auid: 'b',
  userId: 'u1',
  lineageId: 'L1',
  trades: ['l1', 'l2'],
  su: 'bull-put-spread',
  gene: { tod: '2026-02-20', ed: '2026-04-17', cs: 2, ...gene },
  parent,
  createdAt: '2026-02-27T15:00:00.000Z',
});

describe("the audit's roll tree", () => {
  it('goes through a split trade: a spread rolled, the new spread split, a leg partly closed (QA: the legs stood as roots)', () => {
    const l = emptyLineage('u1', 'L1');
    const close = (closeDate: string): TradeRecord['close'] => ({ closeAction: 'close', closeDate, premiumAtClose: 5, netFeeToClose: 1, closeTransaction: 1 });
    l.trades.set('a', record('a', { status: 3, close: close('2026-02-20') }));
    const leg = { openDate: '2026-02-20', strategyUid: 'long-put', ancestorUid: 'b', contractSize: 2 };
    l.trades.set('l1', record('l1', { ...leg, strikePrices: [385], status: 2, close: close('2026-02-27') }));
    l.trades.set('l2', record('l2', { ...leg, strategyUid: 'naked-put', strikePrices: [390], status: 2, contractSize: 1, close: close('2026-02-27') }));
    l.trades.set('r', record('r', { ...leg, strategyUid: 'naked-put', strikePrices: [390], contractSize: 1, partialOf: 'l2' }));
    l.splits.push(split({ pao: 100, cause: 'Leg 2 closed, Leg 1 remains open.' }, { rf: 'a', pf: null, sp: [390, 385], nd: 0.3 }));
    const tree = rollTreeOf(l);
    expect(tree.nodes.map((n) => [n.uid, n.parent, n.depth, n.split])).toEqual([
      ['a', null, 0, false],
      ['b', 'a', 1, true],
      ['l1', 'b', 2, false],
      ['l2', 'b', 2, false],
      ['r', 'l2', 3, false],
    ]);
    expect(tree.nodes[1]).toMatchObject({ status: 0, strike_prices: [390, 385], contract_size: 2, premium_at_open: 100, trade_open_date: '2026-02-20', trade_close_date: '2026-02-27', expiration_date: '2026-04-17' });
  });
});

describe("the audit's split trees", () => {
  const close = (closeDate: string): TradeRecord['close'] => ({ closeAction: 'close', closeDate, premiumAtClose: 5, netFeeToClose: 1, closeTransaction: 1 });
  // A Bull Put Spread of 2 contracts split: leg 1 (l1) closed, leg 2 (l2) stayed open.
  const splitSpread = () => {
    const l = emptyLineage('u1', 'L1');
    const leg = { openDate: '2026-02-20', strategyUid: 'naked-put', ancestorUid: 'b', strikePrices: [400], createdAt: '2026-02-27T15:00:00.000Z' };
    l.trades.set('l1', record('l1', { ...leg, strategyUid: 'long-put', strikePrices: [395], status: 2, close: close('2026-02-27') }));
    l.trades.set('l2', record('l2', leg));
    l.splits.push(split({ pao: 150, cause: 'Leg 1 closed, Leg 2 remains open.' }, { rf: null, pf: null, sp: [400, 395], nd: 0.3 }));
    return l;
  };
  const legs = (l: ReturnType<typeof splitSpread>) => splitTreesOf(l).map((s) => s.legs.map((x) => [x.uid, x.status, x.strike_prices, x.su]));

  it('lists what partial closes of a leg left after the two legs, as the split history does (QA: only the two legs)', () => {
    const l = splitSpread();
    expect(legs(l)).toEqual([[['l1', 2, [395], 'long-put'], ['l2', 1, [400], 'naked-put']]]);
    // 1 of the open leg's 2 contracts closed on 3 March, the remainder closed in part again on 4 March:
    // each remainder keeps the leg's auid, so the split history lists it (by creation, then uid).
    l.trades.set('l2', { ...l.trades.get('l2')!, contractSize: 1, status: 2, close: close('2026-03-03') });
    l.trades.set('r2', record('r2', { ...l.trades.get('l2')!, uid: 'r2', status: 2, close: close('2026-03-04'), partialOf: 'l2', createdAt: '2026-03-03T15:00:00.000Z' }));
    l.trades.set('r1', record('r1', { ...l.trades.get('l2')!, uid: 'r1', status: 1, close: null, partialOf: 'r2', createdAt: '2026-03-04T15:00:00.000Z' }));
    expect(legs(l)).toEqual([[['l1', 2, [395], 'long-put'], ['l2', 2, [400], 'naked-put'], ['r2', 2, [400], 'naked-put'], ['r1', 1, [400], 'naked-put']]]);
    // A trade rolled from a leg is a roll, not a part of the split (it has no auid).
    l.trades.set('n', record('n', { strikePrices: [390], rolledFrom: 'r1', createdAt: '2026-03-05T15:00:00.000Z' }));
    expect(legs(l)[0]!.map(([uid]) => uid)).toEqual(['l1', 'l2', 'r2', 'r1']);
  });

  it('names a leg deleted by then as deleted, after what the split history lists', () => {
    const l = splitSpread();
    l.trades.delete('l1');
    expect(legs(l)).toEqual([[['l2', 1, [400], 'naked-put'], ['l1', null, [], null]]]);
  });
});

