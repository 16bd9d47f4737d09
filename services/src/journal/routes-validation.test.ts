import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineageStreamId } from '@oj/contracts/journal-events';
import { upcastJournalEvent } from '@oj/infra/eventstore/create';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { createPGliteDatabase, createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';

/**
 * Validation gaps of the close family, add-closed-trade, notes, split and edit (part 1 §4, §5, §7): each
 * refusal answers the spec's message with a 4xx and appends nothing. Both adapters of the PostgreSQL
 * event store. Today is Monday 2 March 2026, 10:00 in New York.
 */
const adapters = ['postgres', 'pglite'] as const;

describe.each(adapters)('trade command validation on %s', (adapter) => {
  let t: TestApp;
  let store: PostgresEventStore;
  let me: { userId: string; authorization: string };
  let account: string;

  const url = (path: string) => `/api/v1${path}`;
  const send = (method: 'POST' | 'PATCH', path: string, payload: unknown) =>
    t.app.inject({ method, url: url(path), headers: { authorization: me.authorization, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
  const tradeData = (extra: Record<string, unknown> = {}) => ({
    ticker: 'KO',
    strategy_uid: 'cash-secured-put',
    account_uid: account,
    strike_prices: [60],
    trade_open_date: '2026-02-02',
    expiration_date: '2026-03-20',
    contract_size: 3,
    premium_at_open: 300,
    net_fee_to_open: 3,
    net_delta: 0.3,
    stock_price_at_open: 62,
    notes: 'n',
    ...extra,
  });
  const addTrade = async (extra: Record<string, unknown> = {}) => {
    const r = await send('POST', '/trades/add-trade', { trade_data: tradeData(extra), tag_data: [] });
    expect(r.statusCode, r.body).toBe(201);
    return r.json() as { uid: string; notes: string };
  };
  const eventsOf = async (lineageId: string) => (await store.readStream(lineageStreamId(me.userId, lineageId))).map((e) => e.type);
  const closing = { trade_close_date: '2026-02-27', premium_at_close: 10, net_fee_to_close: 1, close_transaction: 2 };
  const spreadData = (extra: Record<string, unknown> = {}) =>
    tradeData({ strategy_uid: 'bull-put-spread', strike_prices: [150, 145], contract_size: 2, premium_at_open: 120, net_fee_to_open: 2, stock_price_at_open: 160, ...extra });
  const splitBody = (closingTrade: Record<string, unknown>, opening: Record<string, unknown> = { premium_at_open: 150 }) => ({
    trade_data: {
      closing_trade: { premium_at_open: 30, status: 2, trade_close_date: '2026-02-27', premium_at_close: 20, net_fee_to_close: 1, close_transaction: 1, ...closingTrade },
      opening_trade: opening,
    },
    tag_data: [],
  });

  beforeAll(async () => {
    const database: TestDatabase =
      adapter === 'pglite' ? await createPGliteDatabase().then((d) => ({ ...d, url: '', name: 'pglite', drop: () => d.close() })) : await createTestDatabase('journal_validation');
    store = new PostgresEventStore(database, { upcast: upcastJournalEvent });
    t = await createTestApp({ database, eventStore: store, now: '2026-03-02T15:00:00Z' });
    me = await signInAs(t);
    const r = await t.app.inject({ method: 'POST', url: url('/accounts/add-account'), headers: { authorization: me.authorization }, payload: { name: 'Main', broker: 'ibkr', ac_type: 1 } });
    expect(r.statusCode, r.body).toBe(201);
    account = r.json().uid as string;
  });
  afterAll(async () => {
    await store?.close();
    await t?.close();
  });

  it('1. a close-family request without a body (or with a null body) means an empty body', async () => {
    const expired = await addTrade({ expiration_date: '2026-02-20' });
    const bare = await t.app.inject({ method: 'POST', url: url(`/trades/expire-worthless/${expired.uid}`), headers: { authorization: me.authorization } });
    expect(bare.statusCode, bare.body).toBe(200);
    expect(bare.json()).toMatchObject({ remaining_trade: null, closed_trade: { status: 6, tcd: '2026-02-20', pac: 0, nftc: 0, ct: 3, cs: 3 } });

    const expired2 = await addTrade({ expiration_date: '2026-02-20' });
    const nullBody = await t.app.inject({ method: 'POST', url: url(`/trades/expire-worthless/${expired2.uid}`), headers: { authorization: me.authorization, 'content-type': 'application/json' }, payload: 'null' });
    expect(nullBody.statusCode, nullBody.body).toBe(200);
    expect(nullBody.json().closed_trade).toMatchObject({ status: 6 });

    // The other close routes answer their own rule for an empty body, not a schema error.
    const open = await addTrade();
    for (const path of [`/trades/assigned/${open.uid}`, `/trades/close/${open.uid}`]) {
      const r = await t.app.inject({ method: 'POST', url: url(path), headers: { authorization: me.authorization } });
      expect([path, r.statusCode, r.json().message]).toEqual([path, 422, 'Close date is required.']);
    }
    expect(await eventsOf(open.uid)).toEqual(['TradeOpened']);
  });

  it('2. assigned, called away, exercised and expire worthless close the full contract size only', async () => {
    const csp = await addTrade();
    const expired = await addTrade({ expiration_date: '2026-02-20' });
    const cc = await addTrade({ strategy_uid: 'covered-call', cost_basis: 60, stock_price_at_open: undefined });
    const call = await addTrade({ strategy_uid: 'long-call' });
    const attempts: Array<[string, Record<string, unknown>]> = [
      [`/trades/assigned/${csp.uid}`, { trade_close_date: '2026-02-27', contract_size: 1 }],
      [`/trades/assigned/${csp.uid}`, { trade_close_date: '2026-02-27', contract_size: 2 }],
      [`/trades/called-away/${cc.uid}`, { trade_close_date: '2026-02-27', contract_size: 1 }],
      [`/trades/exercised/${call.uid}`, { trade_close_date: '2026-02-27', contract_size: 2 }],
      [`/trades/expire-worthless/${expired.uid}`, { contract_size: 1 }],
      [`/trades/assigned/${csp.uid}`, { trade_close_date: '2026-02-27', contract_size: 4 }],
    ];
    for (const [path, body] of attempts) {
      const r = await send('POST', path, body);
      expect([path, body, r.statusCode, r.json().message]).toEqual([path, body, 422, 'Invalid Contract Size']);
    }
    for (const trade of [csp, expired, cc, call]) expect(await eventsOf(trade.uid)).toEqual(['TradeOpened']);
    // The full size, sent or omitted, is accepted.
    const full = await send('POST', `/trades/assigned/${csp.uid}`, { trade_close_date: '2026-02-27', contract_size: 3 });
    expect(full.statusCode, full.body).toBe(200);
    expect(full.json()).toMatchObject({ remaining_trade: null, closed_trade: { status: 4, cs: 3 } });
    // The path built from the strategy catalogue's own spelling of the outcome (extra_outcome) works too.
    const strategies = (await t.app.inject({ method: 'GET', url: url('/strategies/'), headers: { authorization: me.authorization } })).json() as Array<{ uid: string; extra_outcome: string }>;
    const outcome = strategies.find((x) => x.uid === 'covered-call')!.extra_outcome;
    const omitted = await send('POST', `/trades/${outcome}/${cc.uid}`, { trade_close_date: '2026-02-27' });
    expect(omitted.statusCode, omitted.body).toBe(200);
    expect(omitted.json()).toMatchObject({ remaining_trade: null, closed_trade: { status: 5, cs: 3 } });
    // A normal close may still be partial.
    const partial = await send('POST', `/trades/close/${call.uid}`, { ...closing, contract_size: 1 });
    expect(partial.statusCode, partial.body).toBe(200);
    expect(partial.json().remaining_trade).toMatchObject({ cs: 2 });
  });

  it('3. non-numeric closing values answer the close and roll forms\' own messages', async () => {
    const trade = await addTrade();
    const closeCases: Array<[Record<string, unknown>, string]> = [
      [{ premium_at_close: 'abc' }, 'Must be a valid positive number.'],
      [{ net_fee_to_close: 'abc' }, 'Must be a valid positive number.'],
      [{ premium_at_close: null }, 'Must be a valid positive number.'],
      [{ contract_size: 'abc' }, 'Invalid Contract Size'],
      [{ contract_size: 1.5 }, 'Invalid Contract Size'],
      [{ close_transaction: 'abc' }, 'Transaction type is required.'],
    ];
    for (const [extra, message] of closeCases) {
      const r = await send('POST', `/trades/close/${trade.uid}`, { ...closing, contract_size: 1, ...extra });
      expect([extra, r.statusCode, r.json().message]).toEqual([extra, 422, message]);
    }
    const outcome = await send('POST', `/trades/assigned/${trade.uid}`, { trade_close_date: '2026-02-27', contract_size: 'abc' });
    expect([outcome.statusCode, outcome.json().message]).toEqual([422, 'Invalid Contract Size']);

    const newTrade = { expiration_date: '2026-04-17', contract_size: 3, strike_prices: [58], premium_at_open: 90, net_fee_to_open: 2, net_delta: 0.2, stock_price_at_open: 61 };
    const rollCases: Array<[Record<string, unknown>, string]> = [
      [{ premium_at_close: 'abc' }, 'Must be a positive number.'],
      [{ net_fee_to_close: 'abc' }, 'Must be a non-negative number.'],
      [{ close_transaction: 'abc' }, 'Please select a transaction type.'],
    ];
    for (const [extra, message] of rollCases) {
      const r = await send('POST', `/trades/roll/${trade.uid}`, { trade_roll_data: { old_trade: { ...closing, ...extra }, new_trade: newTrade }, tag_data: [] });
      expect([extra, r.statusCode, r.json().message]).toEqual([extra, 422, message]);
    }

    const addClosedCases: Array<[Record<string, unknown>, string]> = [
      [{ premium_at_close: 'abc' }, 'Must be a number greater than 0.'],
      [{ net_fee_to_close: 'abc' }, 'Must be a number greater than 0.'],
      [{ close_transaction: 'abc' }, 'Transaction must be Credit or Debit.'],
    ];
    for (const [extra, message] of addClosedCases) {
      const r = await send('POST', '/trades/add-closed-trade', { trade_data: { ...tradeData(), ...closing, status: 2, ...extra }, tag_data: [] });
      expect([extra, r.statusCode, r.json().message]).toEqual([extra, 422, message]);
    }
    expect(await eventsOf(trade.uid)).toEqual(['TradeOpened']);
  });

  it('4. add-closed-trade with an outcome status refuses a negative premium or fee to close', async () => {
    const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ status: 4 }, { premium_at_close: -5 }],
      [{ status: 4 }, { net_fee_to_close: -1 }],
      [{ status: 5, strategy_uid: 'covered-call', cost_basis: 60 }, { premium_at_close: -0.01 }],
      [{ status: 7, strategy_uid: 'long-call' }, { net_fee_to_close: -2 }],
      [{ status: 6, expiration_date: '2026-02-20' }, { premium_at_close: -5 }],
    ];
    for (const [trade, values] of cases) {
      const r = await send('POST', '/trades/add-closed-trade', { trade_data: { ...tradeData(trade), ...closing, ...values }, tag_data: [] });
      expect([trade, values, r.statusCode, r.json().message]).toEqual([trade, values, 422, 'Must be a positive number or zero.']);
    }
    // Zero (what the form sends) and missing values are accepted and recorded as 0.
    const ok = await send('POST', '/trades/add-closed-trade', { trade_data: { ...tradeData({ status: 4 }), trade_close_date: '2026-02-27', premium_at_close: 0, net_fee_to_close: 0, close_transaction: 3 }, tag_data: [] });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().closed_trade).toMatchObject({ status: 4, pac: 0, nftc: 0, ct: 3 });
    // A normal close keeps its own rule.
    const normal = await send('POST', '/trades/add-closed-trade', { trade_data: { ...tradeData({ status: 2 }), ...closing, premium_at_close: -5 }, tag_data: [] });
    expect([normal.statusCode, normal.json().message]).toEqual([422, 'Must be a number greater than 0.']);
  });

  it('5. notes: null means empty notes on add-trade, add-closed-trade, roll and update', async () => {
    const added = await addTrade({ notes: null });
    expect(added.notes).toBe('');
    const closed = await send('POST', '/trades/add-closed-trade', { trade_data: { ...tradeData({ notes: null }), ...closing, status: 2 }, tag_data: [] });
    expect(closed.statusCode, closed.body).toBe(201);
    expect(closed.json().closed_trade.notes).toBe('');

    const trade = await addTrade({ notes: 'something' });
    const cleared = await send('PATCH', `/trades/update/${trade.uid}`, { notes: null });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json().notes).toBe('');
    expect(await eventsOf(trade.uid)).toEqual(['TradeOpened', 'TradeEdited']);
    // Already empty: nothing changes, nothing is appended.
    const again = await send('PATCH', `/trades/update/${trade.uid}`, { notes: null });
    expect(again.statusCode, again.body).toBe(200);
    expect(await eventsOf(trade.uid)).toEqual(['TradeOpened', 'TradeEdited']);

    const newTrade = { expiration_date: '2026-04-17', contract_size: 3, strike_prices: [58], premium_at_open: 90, net_fee_to_open: 2, net_delta: 0.2, stock_price_at_open: 61, notes: null };
    // A closed size unlike the new one (0, or any other) is refused by name, and nothing is appended.
    for (const size of [0, -1, 2]) {
      const refused = await send('POST', `/trades/roll/${trade.uid}`, { trade_roll_data: { old_trade: { ...closing, contract_size: size }, new_trade: newTrade }, tag_data: [] });
      expect([refused.statusCode, refused.json().detail], refused.body).toEqual([422, [{ field: 'old_trade.contract_size', message: 'Must equal the new contract size [ 3 ].' }]]);
    }
    expect(await eventsOf(trade.uid)).toEqual(['TradeOpened', 'TradeEdited']);
    const roll = await send('POST', `/trades/roll/${trade.uid}`, { trade_roll_data: { old_trade: closing, new_trade: newTrade }, tag_data: [] });
    expect(roll.statusCode, roll.body).toBe(200);
    expect(roll.json().new_trade_after_roll.notes).toBe('');
  });

  it('6. split-trade without leg_index finds the closed leg from its strike, or refuses clearly', async () => {
    // Bull put spread: leg 1 sells the 150 put, leg 2 buys the 145 put.
    const byStrike = await addTrade(spreadData());
    const r = await send('POST', `/trades/split-trade/${byStrike.uid}`, splitBody({ strike_prices: [145] }));
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toMatchObject({ closed_trade: { status: 2, su: 'long-put', sp: [145], pao: 30 }, open_trade: { status: 1, su: 'naked-put', sp: [150], pao: 150 } });

    const leg0 = await addTrade(spreadData());
    const r0 = await send('POST', `/trades/split-trade/${leg0.uid}`, splitBody({ strike_prices: [150], premium_at_open: 150, close_transaction: 2 }, { premium_at_open: 30 }));
    expect(r0.statusCode, r0.body).toBe(200);
    expect(r0.json()).toMatchObject({ closed_trade: { su: 'naked-put', sp: [150], pao: 150 }, open_trade: { su: 'long-put', sp: [145], pao: 30 } });

    // The opening leg's strike, or the closing leg's single-leg strategy, says it as well.
    const byOpening = await addTrade(spreadData());
    const ro = await send('POST', `/trades/split-trade/${byOpening.uid}`, splitBody({}, { premium_at_open: 150, strike_prices: [150] }));
    expect(ro.statusCode, ro.body).toBe(200);
    expect(ro.json().closed_trade).toMatchObject({ su: 'long-put', sp: [145] });

    // leg_index keeps working as before.
    const byIndex = await addTrade(spreadData());
    const ri = await send('POST', `/trades/split-trade/${byIndex.uid}`, splitBody({ leg_index: 1 }));
    expect(ri.statusCode, ri.body).toBe(200);
    expect(ri.json().closed_trade).toMatchObject({ su: 'long-put', sp: [145] });

    const spread = await addTrade(spreadData());
    const noHint = await send('POST', `/trades/split-trade/${spread.uid}`, splitBody({}));
    expect([noHint.statusCode, noHint.json().message]).toEqual([422, 'Say which leg to close: leg_index (0 or 1), or the closing leg\'s strike_prices.']);
    const noMatch = await send('POST', `/trades/split-trade/${spread.uid}`, splitBody({ strike_prices: [140] }));
    expect([noMatch.statusCode, noMatch.json().message]).toEqual([422, 'No leg of this trade matches the strike price or strategy given for the split.']);
    expect(await eventsOf(spread.uid)).toEqual(['TradeOpened']);

    // A short straddle's legs share the strike: the strike alone cannot say which leg; its strategy can.
    const straddle = await addTrade(spreadData({ strategy_uid: 'short-straddle', strike_prices: [150, 150], premium_at_open: 180 }));
    const ambiguous = await send('POST', `/trades/split-trade/${straddle.uid}`, splitBody({ strike_prices: [150], premium_at_open: 80 }, { premium_at_open: 100 }));
    expect([ambiguous.statusCode, ambiguous.json().message]).toEqual([422, 'Both legs of this trade match the closing leg: say which with leg_index (0 or 1).']);
    expect(await eventsOf(straddle.uid)).toEqual(['TradeOpened']);
    const byStrategy = await send('POST', `/trades/split-trade/${straddle.uid}`, splitBody({ strike_prices: [150], strategy_uid: 'naked-put', premium_at_open: 80 }, { premium_at_open: 100 }));
    expect(byStrategy.statusCode, byStrategy.body).toBe(200);
    expect(byStrategy.json()).toMatchObject({ closed_trade: { su: 'naked-put', pao: 80 }, open_trade: { su: 'naked-call', pao: 100 } });
  });

  it('6b. split-trade: a missing or non-numeric leg premium answers the Split form\'s "Must be a positive non-zero number."', async () => {
    const spread = await addTrade(spreadData());
    const noClosing = await send('POST', `/trades/split-trade/${spread.uid}`, splitBody({ leg_index: 1, premium_at_open: undefined }));
    expect([noClosing.statusCode, noClosing.json().message]).toEqual([422, 'Must be a positive non-zero number.']);
    const textOpening = await send('POST', `/trades/split-trade/${spread.uid}`, splitBody({ leg_index: 1 }, { premium_at_open: 'abc' }));
    expect([textOpening.statusCode, textOpening.json().message]).toEqual([422, 'Must be a positive non-zero number.']);
    expect(await eventsOf(spread.uid)).toEqual(['TradeOpened']);
  });

  it('7. edit: a missing, non-numeric or negative premium, fee, price or strike answers "Must be a positive number"; delta "Must be a number"', async () => {
    // Part 1 §5 "Edit trade": premium, fee and price are required, 0 or more, and each strike required and
    // above 0 ("Must be a positive number"); delta is required and numeric ("Must be a number").
    const put = await addTrade();
    const coveredCall = await addTrade({ strategy_uid: 'covered-call', stock_price_at_open: null, cost_basis: 60 });
    const cases: Array<[string, Record<string, unknown>, string]> = [];
    for (const value of [null, 'abc', -1]) {
      cases.push([put.uid, { premium_at_open: value }, 'Must be a positive number']);
      cases.push([put.uid, { net_fee_to_open: value }, 'Must be a positive number']);
      cases.push([put.uid, { stock_price_at_open: value }, 'Must be a positive number']);
      cases.push([coveredCall.uid, { cost_basis: value }, 'Must be a positive number']);
    }
    for (const strikes of [['abc'], [null], [0], [-5], 'abc']) cases.push([put.uid, { strike_prices: strikes }, 'Must be a positive number']);
    cases.push([put.uid, { net_delta: null }, 'Must be a number'], [put.uid, { net_delta: 'abc' }, 'Must be a number']);
    const answers = [];
    for (const [uid, changes] of cases) {
      const r = await send('PATCH', `/trades/update/${uid}`, changes);
      answers.push([changes, r.statusCode, r.json().message]);
    }
    expect(answers).toEqual(cases.map(([, changes, message]) => [changes, 422, message]));
    expect(await eventsOf(put.uid)).toEqual(['TradeOpened']);
    expect(await eventsOf(coveredCall.uid)).toEqual(['TradeOpened']);

    // The add form says the same with its own full stop (§5 "Add trade").
    for (const changes of [{ premium_at_open: null }, { net_fee_to_open: 'abc' }, { stock_price_at_open: null }]) {
      const r = await send('POST', '/trades/add-trade', { trade_data: tradeData(changes), tag_data: [] });
      expect([changes, r.statusCode, r.json().message]).toEqual([changes, 422, 'Must be a positive number.']);
    }
  });

  it('8. edit from a stale tab: an edit made on values the trade no longer holds is refused (409), nothing appended, the other edit kept', async () => {
    // QA: two tabs opened Edit on the same trade (premium 300); tab A saved 310, then tab B, still showing
    // 300, saved 250 and silently overwrote A's change. Each tab now sends what its form showed.
    const trade = await addTrade();
    const a = await send('PATCH', `/trades/update/${trade.uid}`, { premium_at_open: 310, expected: { premium_at_open: 300 } });
    expect([a.statusCode, a.json().pao]).toEqual([200, 310]);
    const b = await send('PATCH', `/trades/update/${trade.uid}`, { premium_at_open: 250, expected: { premium_at_open: 300 } });
    expect([b.statusCode, b.json().message]).toEqual([409, 'This trade was changed elsewhere since you opened it (Premium). Nothing was saved: close this form and edit the trade again.']);
    expect(await eventsOf(trade.uid)).toEqual(['TradeOpened', 'TradeEdited']);
    // Tab B's change of another field, on a value still held, goes through beside A's; the premium stays A's.
    const notes = await send('PATCH', `/trades/update/${trade.uid}`, { notes: 'from B', expected: { notes: 'n' } });
    expect([notes.statusCode, notes.json().pao, notes.json().notes]).toEqual([200, 310, 'from B']);
    // `expected` is checked as a shape: a field the edit form does not have, or a value of the wrong type, is a 422.
    for (const expected of [{ strategy_uid: 'x' }, { premium_at_open: 'abc' }, 'abc']) {
      const r = await send('PATCH', `/trades/update/${trade.uid}`, { notes: 'again', expected });
      expect(r.statusCode).toBe(422);
    }
    expect(await eventsOf(trade.uid)).toEqual(['TradeOpened', 'TradeEdited', 'TradeEdited']);
  });
});
