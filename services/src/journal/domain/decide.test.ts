import { describe, expect, it } from 'vitest';
import { journalEventSchemas, type JournalEvent } from '@oj/contracts/journal-events';
import type { TradeData } from '@oj/contracts/trades';
import { AppError } from '../../app/errors.ts';
import { decide, type JournalCommand } from './decide.ts';
import { fold, type Lineage } from './lineage.ts';

/**
 * Given events / when command / then events or error. Today is Monday 2 March 2026 in New York.
 */
const today = '2026-03-02';
const ctx = { today };

const given = (...events: JournalEvent[]): Lineage =>
  fold(events.map((event, i) => ({ event, meta: { revision: i, recordedAt: `2026-03-02T15:00:0${i % 10}Z`, userId: 'u1' } })));

function when(state: Lineage, command: JournalCommand): JournalEvent[] {
  return decide(command, state, ctx);
}
function thenFails(state: Lineage, command: JournalCommand, kind: AppError['kind'], message: string): void {
  try {
    decide(command, state, ctx);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect({ kind: (e as AppError).kind, message: (e as AppError).message }).toEqual({ kind, message });
    return;
  }
  throw new Error('expected the command to be refused');
}

const csp: TradeData = {
  ticker: 'aapl',
  strategy_uid: 'cash-secured-put',
  account_uid: 'acct-1',
  strike_prices: [150],
  trade_open_date: '2026-02-02',
  expiration_date: '2026-02-20',
  contract_size: 3,
  premium_at_open: 300,
  net_fee_to_open: 3,
  net_delta: 0.3,
  stock_price_at_open: 160,
  notes: 'first',
};
const spread: TradeData = { ...csp, strategy_uid: 'bull-put-spread', strike_prices: [150, 145], contract_size: 2, premium_at_open: 120, net_fee_to_open: 2.01, expiration_date: '2026-03-20' };
const open = (tradeId: string, data: TradeData = csp): JournalEvent[] => decide({ type: 'OpenTrade', tradeId, data, tags: ['wheel'] }, { status: 'empty' }, ctx);
const openCmd = (data: Partial<TradeData>): JournalCommand => ({ type: 'OpenTrade', tradeId: 'T', data: { ...csp, ...data }, tags: [] });
const empty: Lineage = { status: 'empty' };
const close = (data: Extract<JournalCommand, { type: 'CloseTrade' }>['data'], action: Extract<JournalCommand, { type: 'CloseTrade' }>['action'] = 'close', tradeId = 'T'): JournalCommand => ({
  type: 'CloseTrade',
  tradeId,
  action,
  data,
  remainderId: 'R',
});
const normalClose = { contract_size: 3, trade_close_date: '2026-02-10', premium_at_close: 100, net_fee_to_close: 3, close_transaction: 2 };

describe('OpenTrade', () => {
  it('records the terms as entered, ticker upper-cased, credit/debit from the strategy', () => {
    const events = when(empty, { type: 'OpenTrade', tradeId: 'T', data: { ...csp, open_transaction: 2 }, tags: ['wheel', 'wheel'] });
    expect(events).toEqual([
      {
        type: 'TradeOpened',
        data: {
          tradeId: 'T',
          lineageId: 'T',
          terms: expect.objectContaining({ ticker: 'AAPL', strategyUid: 'cash-secured-put', openTransaction: 1, contractSize: 3, premiumAtOpen: 300, tags: ['wheel'], costBasis: null }),
        },
      },
    ]);
  });
  it.each<[string, Partial<TradeData>, string]>([
    ['ticker', { ticker: 'TOOLONG' }, 'Invalid Ticker'],
    ['ticker chars', { ticker: 'A-B' }, 'Invalid Ticker'],
    ['price', { stock_price_at_open: -1 }, 'Must be a positive number.'],
    ['missing price', { stock_price_at_open: null }, 'Must be a positive number.'],
    ['delta 0', { net_delta: 0 }, 'Must be between 0 and 1.'],
    ['delta > 1', { net_delta: 1.2 }, 'Must be between 0 and 1.'],
    ['premium', { premium_at_open: -5 }, 'Must be a positive number.'],
    ['fee', { net_fee_to_open: -1 }, 'Must be a positive number.'],
    ['contracts', { contract_size: 0 }, 'Must be 1 or higher.'],
    ['open date empty', { trade_open_date: '' }, 'Open date cannot be empty'],
    ['open date format', { trade_open_date: '02/02/2026' }, 'Open date must be in YYYY-MM-DD format.'],
    ['open date invalid', { trade_open_date: '2026-02-30' }, 'Open date is invalid.'],
    ['future open', { trade_open_date: '2026-03-03', expiration_date: '2026-03-20' }, 'Future dates are not allowed.'],
    ['too old', { trade_open_date: '2024-02-29' }, 'Open date cannot be older than 2 years.'],
    ['weekend open', { trade_open_date: '2026-02-01' }, 'Weekend dates are not allowed.'],
    ['weekend expiration', { expiration_date: '2026-02-21' }, 'Weekend dates are not allowed.'],
    ['expiration before open', { expiration_date: '2026-01-30' }, 'Expiration date must be on or after open date.'],
    // More than five years ahead (QA: 9999-12-31 was accepted).
    ['far expiration', { expiration_date: '2031-03-03' }, 'Expiration date cannot be more than 5 years away.'],
    ['absurd expiration', { expiration_date: '9999-12-31' }, 'Expiration date cannot be more than 5 years away.'],
    ['strike', { strike_prices: [0] }, 'Strike price must be a positive number.'],
    ['missing strike', { strike_prices: [] }, 'Invalid strike price for leg 1.'],
    ['leg rule', { strategy_uid: 'bull-put-spread', strike_prices: [150, 155] }, 'Invalid strike price for leg 2.'],
    ['four legs', { strategy_uid: 'iron-condor', strike_prices: [100, 110, 105, 120] }, 'Invalid strike price for leg 3.'],
    ['same rule', { strategy_uid: 'short-straddle', strike_prices: [100, 101] }, 'Invalid strike price for leg 2.'],
    ['notes', { notes: 'x'.repeat(101) }, 'Max 100 characters'],
    ['account', { account_uid: '' }, 'Account is required and cannot be null.'],
    ['strategy', { strategy_uid: 'nope' }, 'Strategy is required.'],
  ])('refuses a bad %s', (_name, data, message) => {
    thenFails(empty, openCmd(data), 'invalid', message);
  });
  it('accepts a future expiration, an open date exactly two years back, and four legs in order', () => {
    expect(when(empty, openCmd({ trade_open_date: '2024-03-04', expiration_date: '2027-01-15' }))).toHaveLength(1);
    expect(when(empty, openCmd({ expiration_date: '2031-02-28' }))).toHaveLength(1);
    expect(when(empty, openCmd({ strategy_uid: 'iron-condor', strike_prices: [100, 105, 110, 115] }))).toHaveLength(1);
  });
});

describe('AddClosedTrade', () => {
  const cmd = (extra: Record<string, unknown>): JournalCommand => ({ type: 'AddClosedTrade', tradeId: 'T', data: { ...csp, status: 2, ...normalClose, ...extra } as never, tags: [] });
  it('opens and closes in one decision', () => {
    const events = when(empty, cmd({}));
    expect(events.map((e) => e.type)).toEqual(['TradeOpened', 'TradeClosed']);
    expect(events[1]!.data).toMatchObject({ close: { closeAction: 'close', contractsClosed: 3, premiumAtClose: 100, closeTransaction: 2 }, remainder: null });
  });
  it.each<[Record<string, unknown>, string]>([
    [{ premium_at_close: 0 }, 'Must be a number greater than 0.'],
    [{ net_fee_to_close: 0 }, 'Must be a number greater than 0.'],
    [{ close_transaction: 3 }, 'Transaction must be Credit or Debit.'],
    [{ trade_close_date: '2026-03-03' }, 'future dates are not permitted.'],
    [{ trade_close_date: '2026-01-30' }, 'Close date cannot be before the open date.'],
    [{ trade_close_date: '2026-02-23' }, 'Close date cannot be after the expiration date.'],
    [{ trade_close_date: '2026-02-07' }, 'Weekend dates are not allowed.'],
    [{ status: 5 }, "This strategy's in-the-money outcome is assigned."],
  ])('refuses %o', (extra, message) => thenFails(empty, cmd(extra), 'invalid', message));
  it('expired worthless: neutral, 0, 0 on the expiration date', () => {
    const events = when(empty, cmd({ status: 6, premium_at_close: 5, trade_close_date: '2026-02-10' }));
    expect(events[1]!.data).toMatchObject({ close: { closeAction: 'expireWorthless', closeDate: '2026-02-20', premiumAtClose: 0, netFeeToClose: 0, closeTransaction: 3 } });
  });
});

describe('CloseTrade', () => {
  const state = given(...open('T'));
  it('full close', () => {
    expect(when(state, close(normalClose))).toEqual([
      { type: 'TradeClosed', data: { tradeId: 'T', close: { closeAction: 'close', closeDate: '2026-02-10', contractsClosed: 3, premiumAtClose: 100, netFeeToClose: 3, closeTransaction: 2 }, closedPart: { premiumAtOpen: 300, netFeeToOpen: 3 }, remainder: null } },
    ]);
  });
  it('partial close allocates the open premium and fee pro rata to a remainder', () => {
    const [e] = when(state, close({ ...normalClose, contract_size: 1 }));
    expect(e!.data).toMatchObject({ closedPart: { premiumAtOpen: 100, netFeeToOpen: 1 }, remainder: { tradeId: 'R', contractSize: 2, premiumAtOpen: 200, netFeeToOpen: 2 } });
    const after = given(...open('T'), e!);
    expect(after.status === 'active' && after.view.trades.get('R')).toMatchObject({ status: 1, contractSize: 2, partialOf: 'T' });
  });
  it.each<[Record<string, unknown>, string]>([
    [{ contract_size: 4 }, 'Invalid Contract Size'],
    [{ contract_size: 0 }, 'Invalid Contract Size'],
    [{ trade_close_date: undefined }, 'Close date is required.'],
    [{ trade_close_date: '2026-03-03' }, 'Future dates are not permitted.'],
    [{ trade_close_date: '2026-01-30' }, 'Close date cannot be before the open date.'],
    [{ trade_close_date: '2026-02-23' }, 'Close date cannot be after the expiration date.'],
    [{ close_transaction: null }, 'Transaction type is required.'],
    [{ premium_at_close: -1 }, 'Must be a valid positive number.'],
    [{ net_fee_to_close: -1 }, 'Must be a valid positive number.'],
  ])('refuses %o', (extra, message) => thenFails(state, close({ ...normalClose, ...extra }), 'invalid', message));
  it('expire worthless only once expired, fixed neutral/0/0 on expiration', () => {
    const [e] = when(state, close({ premium_at_close: 9, trade_close_date: '2026-02-10' }, 'expireWorthless'));
    expect(e!.data).toMatchObject({ close: { closeAction: 'expireWorthless', closeDate: '2026-02-20', premiumAtClose: 0, netFeeToClose: 0, closeTransaction: 3, contractsClosed: 3 } });
    const notExpired = given(...open('T', { ...csp, expiration_date: '2026-03-20' }));
    thenFails(notExpired, close({}, 'expireWorthless'), 'conflict', 'Expire Worthless is only possible once the trade has expired.');
  });
  it("ITM outcome: only the strategy's, neutral/0/0, date editable and checked", () => {
    const [e] = when(state, close({ trade_close_date: '2026-02-20', premium_at_close: 50, close_transaction: 1 }, 'assigned'));
    expect(e!.data).toMatchObject({ close: { closeAction: 'assigned', closeDate: '2026-02-20', premiumAtClose: 0, netFeeToClose: 0, closeTransaction: 3 } });
    thenFails(state, close({ trade_close_date: '2026-02-20' }, 'calledAway'), 'invalid', "This strategy's in-the-money outcome is assigned.");
    thenFails(state, close({ trade_close_date: '2026-03-03' }, 'assigned'), 'invalid', 'Future dates are not permitted.');
  });
  it('closed trades are final; unknown and deleted trades are not found', () => {
    const closed = given(...open('T'), ...when(state, close(normalClose)));
    thenFails(closed, close(normalClose), 'conflict', 'This trade is already closed.');
    // Closed in part by an earlier request (a second tab, a double submit): it says where the rest went (QA).
    const partly = given(...open('T'), ...when(state, close({ ...normalClose, contract_size: 1 })));
    thenFails(partly, close({ ...normalClose, contract_size: 1 }), 'conflict', 'Part of this trade was closed or rolled just before: the contracts still open are trade #R now. Reload to act on them.');
    thenFails(state, close(normalClose, 'close', 'X'), 'not_found', 'Trade not found.');
    thenFails(empty, close(normalClose), 'not_found', 'Trade not found.');
    const deleted = given(...open('T'), { type: 'TradeDeleted', data: { tradeId: 'T' } });
    thenFails(deleted, close(normalClose), 'not_found', 'Trade not found.');
  });
});

/** A roll of trade T (three contracts) closed on 27 February: the defaults roll all of it. */
const newTrade = { expiration_date: '2026-04-17', contract_size: 3, strike_prices: [145], premium_at_open: 250, net_fee_to_open: 3, net_delta: 0.25, stock_price_at_open: 158 };
const oldTrade = { trade_close_date: '2026-02-27', premium_at_close: 80, net_fee_to_close: 3, close_transaction: 2 };
const roll = (o: Record<string, unknown> = {}, n: Record<string, unknown> = {}): JournalCommand => ({
  type: 'RollTrade',
  tradeId: 'T',
  data: { old_trade: { ...oldTrade, ...o }, new_trade: { ...newTrade, ...n } } as never,
  tags: null,
  newTradeId: 'N',
  remainderId: 'R',
});

describe('RollTrade', () => {
  const state = given(...open('T', { ...csp, expiration_date: '2026-03-20' }));
  it('closes and opens in one event; the new trade opens on the close date with the same ticker, strategy and account', () => {
    const events = when(state, roll());
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'TradeRolled',
      data: { tradeId: 'T', close: { closeAction: 'close', contractsClosed: 3 }, remainder: null, newTrade: { tradeId: 'N', terms: { ticker: 'AAPL', openDate: '2026-02-27', strategyUid: 'cash-secured-put', accountUid: 'acct-1', tags: ['wheel'], openTransaction: 1 } } },
    });
    const after = given(...open('T', { ...csp, expiration_date: '2026-03-20' }), ...events);
    expect(after.status === 'active' && [after.view.trades.get('T')?.status, after.view.trades.get('N')?.rolledFrom]).toEqual([3, 'T']);
  });
  it('a partial roll leaves a remainder', () => {
    expect(when(state, roll({}, { contract_size: 1 }))[0]!.data).toMatchObject({ remainder: { tradeId: 'R', contractSize: 2 }, close: { contractsClosed: 1 } });
    // The console sends the closed size too; equal to the new size, it is the same roll.
    expect(when(state, roll({ contract_size: 1 }, { contract_size: 1 }))[0]!.data).toMatchObject({ remainder: { tradeId: 'R', contractSize: 2 }, close: { contractsClosed: 1 } });
  });
  it.each<[string, Record<string, unknown>, Record<string, unknown>, string]>([
    ['future close', { trade_close_date: '2026-03-03' }, {}, 'future dates are not permitted.'],
    ['close before open', { trade_close_date: '2026-01-30' }, {}, 'Close date cannot be before the open date.'],
    ['transaction', { close_transaction: 3 }, {}, 'Please select a transaction type.'],
    ['premium to close', { premium_at_close: -1 }, {}, 'Must be a positive number.'],
    ['fee', { net_fee_to_close: -1 }, {}, 'Must be a non-negative number.'],
    ['new size 0', {}, { contract_size: 0 }, 'Must be a positive number.'],
    ['new size too big', {}, { contract_size: 4 }, 'Cannot exceed contract size [ 3 ].'],
    ['closed size 0', { contract_size: 0 }, {}, 'Must equal the new contract size [ 3 ].'],
    ['closed size -1', { contract_size: -1 }, {}, 'Must equal the new contract size [ 3 ].'],
    ['closed size unlike the new', { contract_size: 2 }, {}, 'Must equal the new contract size [ 3 ].'],
    ['new expiration', {}, { expiration_date: '2026-02-26' }, 'New Expiration date must be on or after close Date.'],
    ['new expiration too far', {}, { expiration_date: '2031-03-03' }, 'Expiration date cannot be more than 5 years away.'],
    ['new price', {}, { stock_price_at_open: -1 }, 'Must be a positive number.'],
    ['missing new price', {}, { stock_price_at_open: undefined }, 'Must be a positive number.'],
    ['new delta', {}, { net_delta: 2 }, 'Must be between 0 and 1.'],
    ['new premium', {}, { premium_at_open: -1 }, 'Must be a positive number.'],
    ['new fee', {}, { net_fee_to_open: -1 }, 'Must be a non-negative number.'],
    ['new transaction', {}, { open_transaction: 5 }, 'Please select a transaction type.'],
    ['new strike', {}, { strike_prices: [-3] }, 'Strike price must be a positive number.'],
  ])('refuses a bad %s', (_n, o, n, message) => thenFails(state, roll(o, n), 'invalid', message));
  it('close date after expiration', () => {
    const expired = given(...open('T'));
    thenFails(expired, roll({ trade_close_date: '2026-02-23' }), 'invalid', 'Close date must be before or on Expiration');
  });
  it('per-leg strike messages of the roll form', () => {
    const s = given(...open('S', spread));
    thenFails(s, { ...(roll({}, { strike_prices: [140, 145], contract_size: 2 }) as Extract<JournalCommand, { type: 'RollTrade' }>), tradeId: 'S' }, 'invalid', 'Strike price for leg 2 must be lower than leg 1.');
  });
  it('a closed trade cannot be rolled', () => {
    const rolled = given(...open('T', { ...csp, expiration_date: '2026-03-20' }), ...when(state, roll()));
    thenFails(rolled, roll(), 'conflict', 'This trade is already closed.');
  });
});

describe('SplitTrade', () => {
  const state = given(...open('S', spread));
  const split = (closing: Record<string, unknown> = {}, openingPremium = 30): JournalCommand => ({
    type: 'SplitTrade',
    tradeId: 'S',
    data: { closing_trade: { leg_index: 1, premium_at_open: 150, status: 2, trade_close_date: '2026-02-27', premium_at_close: 20, net_fee_to_close: 1, close_transaction: 1, ...closing }, opening_trade: { premium_at_open: openingPremium } } as never,
    closedLegId: 'L1',
    openLegId: 'L0',
  });
  // Bull put spread: sell leg 0 (put 150), buy leg 1 (put 145); net credit 120 = sell - buy.
  it('closes one leg and continues the other, each with half the open fee and its footing strategy', () => {
    const [e] = when(state, split({ premium_at_open: 30 }, 150));
    expect(e).toEqual({
      type: 'TradeSplit',
      data: {
        tradeId: 'S',
        closedLeg: {
          tradeId: 'L1', legIndex: 1, strategyUid: 'long-put', strikePrice: 145, premiumAtOpen: 30, netFeeToOpen: 1, openTransaction: 2,
          close: { closeAction: 'close', closeDate: '2026-02-27', contractsClosed: 2, premiumAtClose: 20, netFeeToClose: 1, closeTransaction: 1 },
        },
        openLeg: { tradeId: 'L0', legIndex: 0, strategyUid: 'naked-put', strikePrice: 150, premiumAtOpen: 150, netFeeToOpen: 1.01, openTransaction: 1 },
      },
    });
    const after = given(...open('S', spread), e!);
    expect(after.status === 'active' && after.view.trades.get('L0')).toMatchObject({ status: 1, ancestorUid: 'S' });
    thenFails(after, split(), 'conflict', 'This trade was split: act on its legs instead.');
  });
  it('leg premiums must combine to the net premium within 0.01', () => {
    expect(when(state, split({ premium_at_open: 30.01 }, 150))).toHaveLength(1);
    thenFails(state, split({ premium_at_open: 30.02 }, 150), 'invalid', 'Premiums must sum to net premium ($120.00 Credit).');
    thenFails(state, split({ premium_at_open: 0 }, 150), 'invalid', 'Must be a positive non-zero number.');
  });
  it.each<[Record<string, unknown>, string]>([
    [{ trade_close_date: '2026-03-03' }, 'future dates are not permitted.'],
    [{ trade_close_date: '2026-01-30' }, 'Close date cannot be before the open date.'],
    [{ trade_close_date: '2026-02-28' }, 'Weekend dates are not allowed.'],
    [{ close_transaction: null }, 'Please select a transaction type.'],
    [{ premium_at_close: 0 }, 'Must be a positive number.'],
    [{ net_fee_to_close: -1 }, 'Must be a non-negative number.'],
    [{ status: 5 }, "This strategy's in-the-money outcome is assigned."],
  ])('refuses closing data %o', (closing, message) => thenFails(state, split({ premium_at_open: 30, ...closing }, 150), 'invalid', message));
  it('the ITM outcome forces neutral, 0, 0', () => {
    const [e] = when(state, split({ premium_at_open: 30, status: 4, premium_at_close: 9, close_transaction: 1 }, 150));
    expect(e!.data).toMatchObject({ closedLeg: { close: { closeAction: 'assigned', premiumAtClose: 0, netFeeToClose: 0, closeTransaction: 3 } } });
  });
  it('only breakable two-leg strategies', () => {
    thenFails(given(...open('S', csp)), split(), 'invalid', 'Only two-leg trades of a breakable strategy can be split.');
    thenFails(given(...open('S', { ...spread, strategy_uid: 'pmcc', strike_prices: [100, 120] })), split(), 'invalid', 'Only two-leg trades of a breakable strategy can be split.');
  });
});

describe('EditTrade', () => {
  const state = given(...open('T'));
  const edit = (changes: Record<string, unknown>, tradeId = 'T'): JournalCommand => ({ type: 'EditTrade', tradeId, changes: changes as never });
  it('records only the fields that changed', () => {
    expect(when(state, edit({ ticker: 'msft', notes: 'first', premium_at_open: 310 }))).toEqual([{ type: 'TradeEdited', data: { tradeId: 'T', changes: { ticker: 'MSFT', premiumAtOpen: 310 } } }]);
    expect(when(state, edit({ notes: 'first' }))).toEqual([]);
  });
  it('refuses an edit made on values the trade no longer holds (a tab opened before another tab edited it)', () => {
    // What the form showed, as the trade holds it: applied (the ticker and account as the edit records them).
    expect(when(state, edit({ premium_at_open: 310, expected: { premium_at_open: 300, ticker: 'aapl', account_uid: 'ACCT-1', notes: 'first', stock_price_at_open: 160 } }))).toEqual([
      { type: 'TradeEdited', data: { tradeId: 'T', changes: { premiumAtOpen: 310 } } },
    ]);
    // Another tab set the premium to 310: this tab's edit, made on 300, is refused and names what moved.
    const edited = given(...open('T'), { type: 'TradeEdited', data: { tradeId: 'T', changes: { premiumAtOpen: 310, notes: 'other tab' } } });
    thenFails(edited, edit({ premium_at_open: 250, expected: { premium_at_open: 300 } }), 'conflict', 'This trade was changed elsewhere since you opened it (Premium). Nothing was saved: close this form and edit the trade again.');
    thenFails(edited, edit({ premium_at_open: 250, notes: 'mine', expected: { premium_at_open: 300, notes: 'first' } }), 'conflict', 'This trade was changed elsewhere since you opened it (Premium, Notes). Nothing was saved: close this form and edit the trade again.');
    // An edit of another field, made on values still held, goes through beside the other tab's change.
    expect(when(edited, edit({ net_delta: 0.2, expected: { net_delta: 0.3 } }))).toEqual([{ type: 'TradeEdited', data: { tradeId: 'T', changes: { netDelta: 0.2 } } }]);
    // Without `expected` (an API client that sends none), the edit applies as before.
    expect(when(edited, edit({ premium_at_open: 250 }))).toEqual([{ type: 'TradeEdited', data: { tradeId: 'T', changes: { premiumAtOpen: 250 } } }]);
  });
  it.each<[Record<string, unknown>, string]>([
    [{ ticker: 'bad!' }, 'Invalid Ticker'],
    [{ stock_price_at_open: -1 }, 'Must be a positive number'],
    [{ stock_price_at_open: null }, 'Must be a positive number'],
    [{ trade_open_date: '2026-03-03' }, 'Open date cannot be in the future'],
    [{ trade_open_date: '2024-02-29' }, 'Open date cannot be older than 2 years.'],
    [{ trade_open_date: '2026-02-01' }, 'Weekend dates are not allowed.'],
    [{ trade_open_date: '2026-02-23' }, 'Must be before or same as Expiration Date'],
    [{ expiration_date: '2026-02-22' }, 'Weekend dates are not allowed.'],
    [{ expiration_date: '2031-03-03' }, 'Expiration date cannot be more than 5 years away.'],
    [{ expiration_date: '2026-01-30' }, 'Must be same as or after Open Date'],
    [{ strike_prices: [0] }, 'Must be a positive number'],
    [{ contract_size: 0 }, 'Must be 1 or higher'],
    [{ premium_at_open: -1 }, 'Must be a positive number'],
    [{ net_fee_to_open: -1 }, 'Must be a positive number'],
    [{ notes: 'x'.repeat(101) }, 'Max 100 characters'],
    [{ strategy_uid: 'naked-put' }, 'Strategy, transaction and tags cannot be changed.'],
    [{ open_transaction: 2 }, 'Strategy, transaction and tags cannot be changed.'],
    [{ tags: [{ name: 'other' }] }, 'Strategy, transaction and tags cannot be changed.'],
    [{ account_uid: '' }, 'Account is required and cannot be null.'],
  ])('refuses %o', (changes, message) => thenFails(state, edit(changes), 'invalid', message));
  it('edit strike relation messages', () => {
    thenFails(given(...open('S', spread)), edit({ strike_prices: [150, 150] }, 'S'), 'invalid', 'Strike must be lower than Strike 1');
    thenFails(given(...open('S', { ...spread, strategy_uid: 'short-straddle', strike_prices: [150, 150] })), edit({ strike_prices: [150, 151] }, 'S'), 'invalid', 'Strike must match Strike 1');
  });
  it('account, ticker, open date and contract size are locked on rolled and split descendants', () => {
    const rolled = given(...open('T', { ...csp, expiration_date: '2026-03-20' }), {
      type: 'TradeRolled',
      data: {
        tradeId: 'T',
        close: { closeAction: 'close', closeDate: '2026-02-27', contractsClosed: 3, premiumAtClose: 1, netFeeToClose: 0, closeTransaction: 2 },
        closedPart: { premiumAtOpen: 300, netFeeToOpen: 3 },
        remainder: null,
        newTrade: { tradeId: 'N', terms: { ...(open('x')[0] as Extract<JournalEvent, { type: 'TradeOpened' }>).data.terms, openDate: '2026-02-27', expirationDate: '2026-04-17' } },
      },
    });
    for (const changes of [{ ticker: 'MSFT' }, { account_uid: 'acct-2' }, { trade_open_date: '2026-03-02' }, { contract_size: 1 }]) {
      thenFails(rolled, edit(changes, 'N'), 'invalid', 'Account, ticker, open date and contract size cannot be changed on a trade that was rolled or split from another.');
    }
    expect(when(rolled, edit({ notes: 'ok', premium_at_open: 1 }, 'N'))).toHaveLength(1);
  });
  it('they are locked on what stayed open after a partial close or a partial roll too (QA: the remainder of a rolled trade took an open date before its roll)', () => {
    const partlyClosed = given(...open('T'), ...when(given(...open('T')), close({ ...normalClose, contract_size: 1 })));
    const rollable = open('T', { ...csp, expiration_date: '2026-03-20' });
    const partlyRolled = given(...rollable, ...when(given(...rollable), roll({}, { contract_size: 1 })));
    for (const remaining of [partlyClosed, partlyRolled]) {
      expect(remaining.status === 'active' && remaining.view.trades.get('R')).toMatchObject({ status: 1, rolledFrom: null, partialOf: 'T' });
      for (const changes of [{ ticker: 'MSFT' }, { account_uid: 'acct-2' }, { trade_open_date: '2026-01-30' }, { contract_size: 5 }]) {
        thenFails(remaining, edit(changes, 'R'), 'invalid', "Account, ticker, open date and contract size cannot be changed on what stayed open after a partial close or roll: they are the closed part's too.");
      }
      expect(when(remaining, edit({ notes: 'still mine', net_delta: 0.2 }, 'R'))).toHaveLength(1);
    }
  });
  it('closed trades are final', () => {
    const closed = given(...open('T'), ...when(state, close(normalClose)));
    thenFails(closed, edit({ notes: 'x' }), 'conflict', 'Closed trades are final: this trade cannot be edited.');
  });
});

describe('DeleteTrade', () => {
  const state = given(...open('T'));
  it('deletes an open trade, then it is gone', () => {
    const events = when(state, { type: 'DeleteTrade', tradeId: 'T' });
    expect(events).toEqual([{ type: 'TradeDeleted', data: { tradeId: 'T' } }]);
    const after = given(...open('T'), ...events);
    expect(after.status).toBe('settled');
    thenFails(after, { type: 'DeleteTrade', tradeId: 'T' }, 'not_found', 'Trade not found.');
  });
  it('closed trades are final', () => {
    const closed = given(...open('T'), ...when(state, close(normalClose)));
    thenFails(closed, { type: 'DeleteTrade', tradeId: 'T' }, 'conflict', 'Closed trades are final: this trade cannot be deleted.');
  });
});

describe('audit of issue 4', () => {
  const addClosed = (extra: Record<string, unknown>): JournalCommand => ({ type: 'AddClosedTrade', tradeId: 'T', data: { ...csp, status: 2, ...normalClose, ...extra } as never, tags: [] });
  it.each([1, 3, 99])('add-closed-trade refuses status %i with a message about the status', (status) => {
    thenFails(empty, addClosed({ status }), 'invalid', 'Status must be a closing status: 2 (closed), 4 (assigned), 5 (called away), 6 (expired worthless) or 7 (exercised).');
  });

  it('edit keeps the net delta in (0, 1] (§9)', () => {
    const state = given(...open('T'));
    const edit = (net_delta: number): JournalCommand => ({ type: 'EditTrade', tradeId: 'T', changes: { net_delta } });
    thenFails(state, edit(0), 'invalid', 'Must be between 0 and 1.');
    thenFails(state, edit(1.5), 'invalid', 'Must be between 0 and 1.');
    expect(when(state, edit(1))).toEqual([{ type: 'TradeEdited', data: { tradeId: 'T', changes: { netDelta: 1 } } }]);
  });

  it('account, ticker, open date and contract size are locked on a split leg; notes and premium are not', () => {
    const splitEvent = decide(
      {
        type: 'SplitTrade',
        tradeId: 'S',
        data: { closing_trade: { leg_index: 1, premium_at_open: 30, status: 2, trade_close_date: '2026-02-27', premium_at_close: 20, net_fee_to_close: 1, close_transaction: 1 }, opening_trade: { premium_at_open: 150 } },
        closedLegId: 'L1',
        openLegId: 'L0',
      },
      given(...open('S', spread)),
      ctx,
    );
    const legs = given(...open('S', spread), ...splitEvent);
    for (const changes of [{ ticker: 'MSFT' }, { account_uid: 'acct-2' }, { trade_open_date: '2026-02-03' }, { contract_size: 1 }]) {
      thenFails(legs, { type: 'EditTrade', tradeId: 'L0', changes }, 'invalid', 'Account, ticker, open date and contract size cannot be changed on a trade that was rolled or split from another.');
    }
    expect(when(legs, { type: 'EditTrade', tradeId: 'L0', changes: { notes: 'leg', premium_at_open: 151 } })).toHaveLength(1);
    thenFails(legs, { type: 'EditTrade', tradeId: 'L1', changes: { notes: 'x' } }, 'conflict', 'Closed trades are final: this trade cannot be edited.');
    thenFails(legs, { type: 'DeleteTrade', tradeId: 'L1' }, 'conflict', 'Closed trades are final: this trade cannot be deleted.');
  });

  it('events record what was entered and the structure, never derived metrics', () => {
    const derived = new Set(['npc', 'ror', 'aroc', 'arr', 'c', 'cg', 'do', 'collateral', 'netPremiumCaptured', 'returnOnRisk', 'annualisedReturn', 'capitalGain', 'daysHeld', 'daysOpen', 'status', 'netFee', 'profit']);
    const keys = (x: unknown): string[] =>
      Array.isArray(x) ? x.flatMap(keys) : x !== null && typeof x === 'object' ? Object.entries(x).flatMap(([k, v]) => [k, ...keys(v)]) : [];
    const s0 = given(...open('S', spread));
    const t0 = given(...open('T', { ...csp, expiration_date: '2026-03-20' }));
    const events: JournalEvent[] = [
      ...open('T'),
      ...when(empty, addClosed({})),
      ...when(t0, close({ ...normalClose, trade_close_date: '2026-02-27', contract_size: 1 })),
      ...when(t0, {
        type: 'RollTrade',
        tradeId: 'T',
        data: { old_trade: { trade_close_date: '2026-02-27', premium_at_close: 80, net_fee_to_close: 3, close_transaction: 2 }, new_trade: { expiration_date: '2026-04-17', contract_size: 2, strike_prices: [145], premium_at_open: 250, net_fee_to_open: 3, net_delta: 0.25, stock_price_at_open: 158 } },
        tags: null,
        newTradeId: 'N',
        remainderId: 'R',
      }),
      ...when(s0, {
        type: 'SplitTrade',
        tradeId: 'S',
        data: { closing_trade: { leg_index: 0, premium_at_open: 150, status: 2, trade_close_date: '2026-02-27', premium_at_close: 20, net_fee_to_close: 1, close_transaction: 2 }, opening_trade: { premium_at_open: 30 } },
        closedLegId: 'L0',
        openLegId: 'L1',
      }),
      ...when(t0, { type: 'EditTrade', tradeId: 'T', changes: { notes: 'edited', premium_at_open: 310 } }),
      ...when(t0, { type: 'DeleteTrade', tradeId: 'T' }),
    ];
    expect(events.map((e) => e.type)).toEqual(['TradeOpened', 'TradeOpened', 'TradeClosed', 'TradeClosed', 'TradeRolled', 'TradeSplit', 'TradeEdited', 'TradeDeleted']);
    for (const e of events) {
      expect([e.type, keys(e.data).filter((k) => derived.has(k))]).toEqual([e.type, []]);
      // Exactly the schema's fields: nothing computed slips in beside them.
      expect(journalEventSchemas[e.type].strict().safeParse(e.data).success).toBe(true);
    }
  });
});

describe('validation gaps: outcome sizes, add-closed negatives, null notes, split leg without leg_index', () => {
  const state = given(...open('T'));
  it('an action other than a normal close closes the full size only (§4 "Close options")', () => {
    for (const size of [1, 2, 4]) {
      thenFails(state, close({ trade_close_date: '2026-02-20', contract_size: size }, 'assigned'), 'invalid', 'Invalid Contract Size');
      thenFails(state, close({ contract_size: size }, 'expireWorthless'), 'invalid', 'Invalid Contract Size');
    }
    expect(when(state, close({ trade_close_date: '2026-02-20', contract_size: 3 }, 'assigned'))[0]!.data).toMatchObject({ close: { contractsClosed: 3 }, remainder: null });
    expect(when(state, close({}, 'expireWorthless'))[0]!.data).toMatchObject({ close: { contractsClosed: 3 }, remainder: null });
  });
  it('add-closed-trade with an outcome status refuses a negative premium or fee (§5 "Add closed trade form")', () => {
    const cmd = (extra: Record<string, unknown>): JournalCommand => ({ type: 'AddClosedTrade', tradeId: 'T', data: { ...csp, ...normalClose, ...extra } as never, tags: [] });
    thenFails(empty, cmd({ status: 4, premium_at_close: -1 }), 'invalid', 'Must be a positive number or zero.');
    thenFails(empty, cmd({ status: 4, net_fee_to_close: -1 }), 'invalid', 'Must be a positive number or zero.');
    thenFails(empty, cmd({ status: 6, premium_at_close: -1 }), 'invalid', 'Must be a positive number or zero.');
    expect(when(empty, cmd({ status: 4, premium_at_close: 0, net_fee_to_close: 0 }))[1]!.data).toMatchObject({ close: { closeAction: 'assigned', premiumAtClose: 0, netFeeToClose: 0 } });
  });
  it('null notes are empty notes on open and edit', () => {
    expect(when(empty, openCmd({ notes: null }))[0]!.data).toMatchObject({ terms: { notes: '' } });
    expect(when(state, { type: 'EditTrade', tradeId: 'T', changes: { notes: null } })).toEqual([{ type: 'TradeEdited', data: { tradeId: 'T', changes: { notes: '' } } }]);
  });
  it('split without leg_index: the leg is found from the strike or strategy given, or refused', () => {
    const s = given(...open('S', spread));
    const split = (closing: Record<string, unknown>, opening: Record<string, unknown> = { premium_at_open: 150 }): JournalCommand => ({
      type: 'SplitTrade',
      tradeId: 'S',
      data: { closing_trade: { premium_at_open: 30, status: 2, trade_close_date: '2026-02-27', premium_at_close: 20, net_fee_to_close: 1, close_transaction: 1, ...closing }, opening_trade: opening } as never,
      closedLegId: 'C',
      openLegId: 'O',
    });
    const closedLeg = (e: JournalEvent[]) => (e[0]!.type === 'TradeSplit' ? e[0]!.data.closedLeg.legIndex : -1);
    expect(closedLeg(when(s, split({ strike_prices: [145] })))).toBe(1);
    expect(closedLeg(when(s, split({ strategy_uid: 'long-put' })))).toBe(1);
    expect(closedLeg(when(s, split({}, { premium_at_open: 150, strike_prices: [150] })))).toBe(1);
    expect(closedLeg(when(s, split({ strike_prices: [150], premium_at_open: 150 }, { premium_at_open: 30 })))).toBe(0);
    thenFails(s, split({}), 'invalid', "Say which leg to close: leg_index (0 or 1), or the closing leg's strike_prices.");
    thenFails(s, split({ strike_prices: [140] }), 'invalid', 'No leg of this trade matches the strike price or strategy given for the split.');
    thenFails(s, split({ strike_prices: [145], strategy_uid: 'naked-put' }), 'invalid', 'No leg of this trade matches the strike price or strategy given for the split.');
    const straddle = given(...open('S', { ...spread, strategy_uid: 'short-straddle', strike_prices: [150, 150], premium_at_open: 180 }));
    thenFails(straddle, split({ strike_prices: [150], premium_at_open: 80 }, { premium_at_open: 100 }), 'invalid', 'Both legs of this trade match the closing leg: say which with leg_index (0 or 1).');
    expect(closedLeg(when(straddle, split({ strategy_uid: 'naked-call', premium_at_open: 80 }, { premium_at_open: 100 })))).toBe(0);
  });
});
