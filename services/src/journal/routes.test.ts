import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineageStreamId } from '@oj/contracts/journal-events';
import { upcastJournalEvent } from '@oj/infra/eventstore/create';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { createPGliteDatabase, createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';

/**
 * The trade commands over HTTP on both adapters of the PostgreSQL event store (node-postgres and
 * PGlite). Today is Monday 2 March 2026, 10:00 in New York.
 */
const adapters = ['postgres', 'pglite'] as const;

describe.each(adapters)('trade commands on %s', (adapter) => {
  let t: TestApp;
  let store: PostgresEventStore;
  let me: { userId: string; authorization: string };
  let other: { userId: string; authorization: string };
  let account: string;
  let otherAccount: string;

  const url = (path: string) => `/api/v1${path}`;
  const send = async (method: 'POST' | 'PATCH' | 'DELETE', path: string, payload?: unknown, authorization = me.authorization, headers: Record<string, string> = {}) =>
    t.app.inject({ method, url: url(path), headers: { authorization, ...headers }, ...(payload !== undefined ? { payload: payload as object } : {}) });
  const tradeData = (extra: Record<string, unknown> = {}) => ({
    ticker: 'aapl',
    strategy_uid: 'cash-secured-put',
    account_uid: account,
    strike_prices: [150],
    trade_open_date: '2026-02-02',
    expiration_date: '2026-03-20',
    contract_size: 3,
    premium_at_open: 300,
    net_fee_to_open: 3,
    net_delta: 0.3,
    stock_price_at_open: 160,
    notes: 'n',
    ...extra,
  });
  const addTrade = async (extra: Record<string, unknown> = {}, authorization = me.authorization) => {
    const r = await send('POST', '/trades/add-trade', { trade_data: tradeData(extra), tag_data: [{ name: 'wheel' }] }, authorization);
    expect(r.statusCode, r.body).toBe(201);
    return r.json() as { uid: string; lid: string };
  };
  const streamOf = (userId: string, lineageId: string) => store.readStream(lineageStreamId(userId, lineageId));
  const closeBody = { contract_size: 3, trade_close_date: '2026-02-27', premium_at_close: 100, net_fee_to_close: 3, close_transaction: 2 };

  beforeAll(async () => {
    const database: TestDatabase =
      adapter === 'pglite' ? await createPGliteDatabase().then((d) => ({ ...d, url: '', name: 'pglite', drop: () => d.close() })) : await createTestDatabase('journal_routes');
    store = new PostgresEventStore(database, { upcast: upcastJournalEvent });
    t = await createTestApp({ database, eventStore: store, now: '2026-03-02T15:00:00Z' });
    me = await signInAs(t);
    other = await signInAs(t);
    const addAccount = async (authorization: string) => {
      const r = await t.app.inject({ method: 'POST', url: url('/accounts/add-account'), headers: { authorization }, payload: { name: 'Main', broker: 'ibkr', ac_type: 1 } });
      expect(r.statusCode, r.body).toBe(201);
      return r.json().uid as string;
    };
    account = await addAccount(me.authorization);
    otherAccount = await addAccount(other.authorization);
  });
  afterAll(async () => {
    await store?.close();
    await t?.close();
  });

  it('add-trade answers the list item and appends TradeOpened with the full envelope', async () => {
    const r = await send('POST', '/trades/add-trade', { trade_data: tradeData(), tag_data: [{ name: 'wheel' }] }, me.authorization, { 'x-request-id': 'req-open-1' });
    expect(r.statusCode, r.body).toBe(201);
    const item = r.json();
    expect(item).toMatchObject({ ticker: 'AAPL', status: 1, cs: 3, pao: 300, ot: 1, su: 'cash-secured-put', au: account, tags: ['wheel'], tod: '2026-02-02', do: 28, lid: item.uid });
    const events = await streamOf(me.userId, item.uid);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'TradeOpened',
      schemaVersion: 1,
      metadata: { userId: me.userId, actor: { id: me.userId, role: 'trader' }, correlationId: 'req-open-1', causationId: 'req-open-1', idempotencyKey: null, recordedAt: '2026-03-02T15:00:00.000Z', businessDate: '2026-03-02', command: 'OpenTrade' },
    });
  });

  it('partial close, then roll, then edit, then delete, each answered from the folded lineage', async () => {
    const trade = await addTrade();
    const partial = await send('POST', `/trades/close/${trade.uid}`, { ...closeBody, contract_size: 1 });
    expect(partial.statusCode, partial.body).toBe(200);
    const p = partial.json();
    expect(p.closed_trade).toMatchObject({ uid: trade.uid, status: 2, cs: 1, pao: 100, pac: 100, ct: 2, npc: 0, tcd: '2026-02-27' });
    expect(p.remaining_trade).toMatchObject({ status: 1, cs: 2, pao: 200, pf: trade.uid, lid: trade.uid });

    const roll = await send('POST', `/trades/roll/${p.remaining_trade.uid}`, {
      trade_roll_data: {
        old_trade: { trade_close_date: '2026-02-27', premium_at_close: 50, net_fee_to_close: 2, close_transaction: 2 },
        new_trade: { expiration_date: '2026-04-17', contract_size: 1, strike_prices: [145], premium_at_open: 120, net_fee_to_open: 1, net_delta: 0.25, stock_price_at_open: 158 },
      },
      tag_data: [],
    });
    expect(roll.statusCode, roll.body).toBe(200);
    const rolled = roll.json();
    expect(rolled.closed_trade).toMatchObject({ uid: p.remaining_trade.uid, status: 3, cs: 1, rh: true });
    expect(rolled.remaining_trade).toMatchObject({ status: 1, cs: 1 });
    expect(rolled.new_trade_after_roll).toMatchObject({ status: 1, cs: 1, rf: p.remaining_trade.uid, tod: '2026-02-27', ed: '2026-04-17', sp: [145], tags: ['wheel'] });

    const locked = await send('PATCH', `/trades/update/${rolled.new_trade_after_roll.uid}`, { ticker: 'MSFT' });
    expect(locked.statusCode).toBe(422);
    expect(locked.json().message).toBe('Account, ticker, open date and contract size cannot be changed on a trade that was rolled or split from another.');
    const edit = await send('PATCH', `/trades/update/${rolled.new_trade_after_roll.uid}`, { notes: 'rolled down', premium_at_open: 125 });
    expect(edit.statusCode, edit.body).toBe(200);
    expect(edit.json()).toMatchObject({ notes: 'rolled down', pao: 125 });

    const del = await send('DELETE', `/trades/${rolled.remaining_trade.uid}`);
    expect(del.statusCode, del.body).toBe(200);
    expect((await send('DELETE', `/trades/${rolled.remaining_trade.uid}`)).statusCode).toBe(404);
    const closedEdit = await send('PATCH', `/trades/update/${trade.uid}`, { notes: 'x' });
    expect([closedEdit.statusCode, closedEdit.json().message]).toEqual([409, 'Closed trades are final: this trade cannot be edited.']);
    const closedDelete = await send('DELETE', `/trades/${trade.uid}`);
    expect([closedDelete.statusCode, closedDelete.json().message]).toEqual([409, 'Closed trades are final: this trade cannot be deleted.']);
    const types = (await streamOf(me.userId, trade.uid)).map((e) => e.type);
    expect(types).toEqual(['TradeOpened', 'TradeClosed', 'TradeRolled', 'TradeEdited', 'TradeDeleted']);
  });

  it('expire-worthless, in-the-money outcomes, add-closed-trade and split', async () => {
    const expired = await addTrade({ expiration_date: '2026-02-20' });
    const ew = await send('POST', `/trades/expire-worthless/${expired.uid}`, {});
    expect(ew.statusCode, ew.body).toBe(200);
    expect(ew.json()).toMatchObject({ remaining_trade: null, closed_trade: { status: 6, tcd: '2026-02-20', pac: 0, ct: 3, nftc: 0 } });

    const notExpired = await addTrade();
    const early = await send('POST', `/trades/expire-worthless/${notExpired.uid}`, {});
    expect([early.statusCode, early.json().message]).toEqual([409, 'Expire Worthless is only possible once the trade has expired.']);
    const wrong = await send('POST', `/trades/called-away/${notExpired.uid}`, { trade_close_date: '2026-02-27' });
    expect([wrong.statusCode, wrong.json().message]).toEqual([422, "This strategy's in-the-money outcome is assigned."]);
    const assigned = await send('POST', `/trades/assigned/${notExpired.uid}`, { trade_close_date: '2026-02-27', contract_size: 3 });
    expect(assigned.statusCode, assigned.body).toBe(200);
    expect(assigned.json().closed_trade).toMatchObject({ status: 4, pac: 0, ct: 3 });

    const addClosed = await send('POST', '/trades/add-closed-trade', { trade_data: { ...tradeData(), ...closeBody, status: 2 }, tag_data: [] });
    expect(addClosed.statusCode, addClosed.body).toBe(201);
    expect(addClosed.json().closed_trade).toMatchObject({ status: 2, pac: 100, npc: 200, cs: 3 });

    const spread = await addTrade({ strategy_uid: 'bull-put-spread', strike_prices: [150, 145], contract_size: 2, premium_at_open: 120, net_fee_to_open: 2 });
    const bad = await send('POST', `/trades/split-trade/${spread.uid}`, {
      trade_data: { closing_trade: { leg_index: 1, premium_at_open: 40, status: 2, trade_close_date: '2026-02-27', premium_at_close: 20, net_fee_to_close: 1, close_transaction: 1 }, opening_trade: { premium_at_open: 150 } },
      tag_data: [],
    });
    expect([bad.statusCode, bad.json().message]).toEqual([422, 'Premiums must sum to net premium ($120.00 Credit).']);
    const split = await send('POST', `/trades/split-trade/${spread.uid}`, {
      trade_data: { closing_trade: { leg_index: 1, premium_at_open: 30, status: 2, trade_close_date: '2026-02-27', premium_at_close: 20, net_fee_to_close: 1, close_transaction: 1 }, opening_trade: { premium_at_open: 150 } },
      tag_data: [],
    });
    expect(split.statusCode, split.body).toBe(200);
    expect(split.json()).toMatchObject({
      closed_trade: { status: 2, su: 'long-put', sp: [145], auid: spread.uid, nfto: 1, ot: 2 },
      open_trade: { status: 1, su: 'naked-put', sp: [150], auid: spread.uid, nfto: 1, pao: 150 },
    });
    const again = await send('PATCH', `/trades/update/${split.json().open_trade.uid}`, { contract_size: 1 });
    expect(again.statusCode).toBe(422);
  });

  it('answers the spec messages for bad values', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ticker: 'TOOLONG' }, 'Invalid Ticker'],
      [{ net_delta: 0 }, 'Must be between 0 and 1.'],
      [{ trade_open_date: '2026-03-03' }, 'Future dates are not allowed.'],
      [{ trade_open_date: '2026-02-28' }, 'Weekend dates are not allowed.'],
      [{ strategy_uid: 'bull-put-spread', strike_prices: [150, 151] }, 'Invalid strike price for leg 2.'],
    ];
    for (const [extra, message] of cases) {
      const r = await send('POST', '/trades/add-trade', { trade_data: tradeData(extra), tag_data: [] });
      expect([r.statusCode, r.json().message]).toEqual([422, message]);
    }
  });

  it('creating trades needs an own account and an active subscription (403)', async () => {
    const foreign = await send('POST', '/trades/add-trade', { trade_data: tradeData({ account_uid: otherAccount }), tag_data: [] });
    expect([foreign.statusCode, foreign.json().message]).toEqual([403, 'Choose one of your own trade accounts: this account was not found.']);
    const noAccount = await signInAs(t);
    const none = await send('POST', '/trades/add-trade', { trade_data: tradeData({ account_uid: account }), tag_data: [] }, noAccount.authorization);
    expect([none.statusCode, none.json().message]).toEqual([403, 'Create a trade account before adding trades.']);
    const lapsed = await signInAs(t);
    const trade = await addTrade({}, me.authorization);
    await t.db.db.updateTable('subscriptions').set({ current_period_end: new Date('2026-01-01T00:00:00Z') }).where('user_uid', '=', lapsed.userId).execute();
    await t.app.principals.settled();
    const expiredSub = await send('POST', '/trades/add-trade', { trade_data: tradeData(), tag_data: [] }, lapsed.authorization);
    expect(expiredSub.statusCode).toBe(403);
    expect(trade.uid).toBeTruthy();
  });

  it('tenant isolation: every route answers 404 for a foreign uid and appends nothing', async () => {
    const mine = await addTrade({ strategy_uid: 'bull-put-spread', strike_prices: [150, 145], contract_size: 2, premium_at_open: 120 });
    const attempts: Array<[('POST' | 'PATCH' | 'DELETE'), string, unknown]> = [
      ['POST', `/trades/close/${mine.uid}`, closeBody],
      ['POST', `/trades/expire-worthless/${mine.uid}`, {}],
      ['POST', `/trades/assigned/${mine.uid}`, { trade_close_date: '2026-02-27' }],
      ['POST', `/trades/called-away/${mine.uid}`, { trade_close_date: '2026-02-27' }],
      ['POST', `/trades/exercised/${mine.uid}`, { trade_close_date: '2026-02-27' }],
      ['POST', `/trades/roll/${mine.uid}`, { trade_roll_data: { old_trade: closeBody, new_trade: { ...tradeData(), contract_size: 1 } }, tag_data: [] }],
      ['POST', `/trades/split-trade/${mine.uid}`, { trade_data: { closing_trade: { leg_index: 1, premium_at_open: 30, status: 2, trade_close_date: '2026-02-27', premium_at_close: 20, net_fee_to_close: 1, close_transaction: 1 }, opening_trade: { premium_at_open: 150 } }, tag_data: [] }],
      ['PATCH', `/trades/update/${mine.uid}`, { notes: 'mine now' }],
      ['DELETE', `/trades/${mine.uid}`, undefined],
    ];
    for (const [method, path, body] of attempts) {
      const foreign = await send(method, path, body, other.authorization);
      expect([path, foreign.statusCode, foreign.json().message]).toEqual([path, 404, 'Trade not found.']);
      const missing = await send(method, path.replace(mine.uid, '0191c9a0-0000-7000-8000-000000000000'), body, other.authorization);
      expect([path, missing.statusCode, missing.json().message]).toEqual([path, 404, 'Trade not found.']);
    }
    expect(await streamOf(me.userId, mine.uid)).toHaveLength(1);
    expect(await streamOf(other.userId, mine.uid)).toHaveLength(0);
  });

  it("tenant isolation on derived trades: a partial close's remainder, a roll's new trade and split legs answer 404 to another user, and nothing is appended", async () => {
    const held = await addTrade();
    const partial = (await send('POST', `/trades/close/${held.uid}`, { ...closeBody, contract_size: 1 })).json();
    const roll = (
      await send('POST', `/trades/roll/${partial.remaining_trade.uid}`, {
        trade_roll_data: {
          old_trade: { trade_close_date: '2026-02-27', premium_at_close: 50, net_fee_to_close: 2, close_transaction: 2 },
          new_trade: { expiration_date: '2026-04-17', contract_size: 1, strike_prices: [145], premium_at_open: 120, net_fee_to_open: 1, net_delta: 0.25, stock_price_at_open: 158 },
        },
        tag_data: [],
      })
    ).json();
    const spread = await addTrade({ strategy_uid: 'bull-put-spread', strike_prices: [150, 145], contract_size: 2, premium_at_open: 120 });
    const split = (
      await send('POST', `/trades/split-trade/${spread.uid}`, {
        trade_data: { closing_trade: { leg_index: 1, premium_at_open: 30, status: 2, trade_close_date: '2026-02-27', premium_at_close: 20, net_fee_to_close: 1, close_transaction: 1 }, opening_trade: { premium_at_open: 150 } },
        tag_data: [],
      })
    ).json();
    const derived = [roll.remaining_trade.uid, roll.new_trade_after_roll.uid, split.open_trade.uid, split.closed_trade.uid] as string[];
    expect(derived.every((uid) => typeof uid === 'string')).toBe(true);
    const before = [(await streamOf(me.userId, held.uid)).length, (await streamOf(me.userId, spread.uid)).length];
    for (const uid of [partial.remaining_trade.uid as string, ...derived]) {
      const attempts: Array<['POST' | 'PATCH' | 'DELETE', string, unknown]> = [
        ['POST', `/trades/close/${uid}`, { ...closeBody, contract_size: 1 }],
        ['POST', `/trades/expire-worthless/${uid}`, {}],
        ['PATCH', `/trades/update/${uid}`, { notes: 'mine now' }],
        ['DELETE', `/trades/${uid}`, undefined],
        ['POST', `/trades/roll/${uid}`, { trade_roll_data: { old_trade: closeBody, new_trade: { ...tradeData(), contract_size: 1 } }, tag_data: [] }],
        ['POST', `/trades/split-trade/${uid}`, { trade_data: { closing_trade: { leg_index: 1, premium_at_open: 30, status: 2, trade_close_date: '2026-02-27', premium_at_close: 20, net_fee_to_close: 1, close_transaction: 1 }, opening_trade: { premium_at_open: 150 } }, tag_data: [] }],
      ];
      for (const [method, path, body] of attempts) {
        const foreign = await send(method, path, body, other.authorization, { 'idempotency-key': `steal-${method}-${path}` });
        expect([path, foreign.statusCode, foreign.json().message]).toEqual([path, 404, 'Trade not found.']);
      }
    }
    expect([(await streamOf(me.userId, held.uid)).length, (await streamOf(me.userId, spread.uid)).length]).toEqual(before);
    expect(await streamOf(other.userId, held.uid)).toHaveLength(0);
    expect(await streamOf(other.userId, spread.uid)).toHaveLength(0);
    // The owner still acts on them: they were not changed by the refused requests.
    const edit = await send('PATCH', `/trades/update/${roll.new_trade_after_roll.uid}`, { notes: 'still mine' });
    expect([edit.statusCode, edit.json().notes]).toEqual([200, 'still mine']);
  });

  it('never answers 500 to malformed or out-of-range payloads', async () => {
    const trade = await addTrade();
    const routes: Array<['POST' | 'PATCH' | 'DELETE', string]> = [
      ['POST', '/trades/add-trade'],
      ['POST', '/trades/add-closed-trade'],
      ['POST', `/trades/close/${trade.uid}`],
      ['POST', `/trades/expire-worthless/${trade.uid}`],
      ['POST', `/trades/assigned/${trade.uid}`],
      ['POST', `/trades/called-away/${trade.uid}`],
      ['POST', `/trades/exercised/${trade.uid}`],
      ['POST', `/trades/roll/${trade.uid}`],
      ['POST', `/trades/split-trade/${trade.uid}`],
      ['PATCH', `/trades/update/${trade.uid}`],
      ['DELETE', `/trades/${trade.uid}x`],
    ];
    const big = 1e308;
    const payloads: unknown[] = [
      'not json',
      [],
      null,
      { trade_data: null },
      { trade_data: { ...tradeData(), contract_size: 1.5, premium_at_open: 'a lot' }, tag_data: 'wheel' },
      { trade_data: { ...tradeData(), strike_prices: [big, -big], net_delta: big, trade_open_date: '9999-99-99', expiration_date: '' }, tag_data: [] },
      { trade_data: { ...tradeData(), status: 99, trade_close_date: 'yesterday', premium_at_close: -1, close_transaction: 42 }, tag_data: [] },
      { contract_size: -5, trade_close_date: '2026-13-45', premium_at_close: big, net_fee_to_close: 'x', close_transaction: 'credit' },
      { contract_size: 1e9, trade_close_date: '2026-02-27', premium_at_close: 1, net_fee_to_close: 1, close_transaction: 2 },
      { trade_roll_data: { old_trade: {}, new_trade: { strike_prices: 'x' } } },
      { trade_roll_data: { old_trade: closeBody, new_trade: { ...tradeData(), contract_size: 0, expiration_date: '1900-01-01' } }, tag_data: [] },
      { trade_data: { closing_trade: { leg_index: 7, premium_at_open: -1 }, opening_trade: {} } },
      { ticker: 42, expiration_date: '2026-02-30', strike_prices: [null], trade_open_date: 'x'.repeat(5000), contract_size: -1, net_delta: 'x', tags: 'x' },
      { strike_prices: [1, 2, 3, 4, 5, 6, 7, 8], trade_open_date: '1999-01-01', notes: 'x'.repeat(5000) },
    ];
    for (const [method, path] of routes) {
      for (const payload of payloads) {
        const r = await t.app.inject({
          method,
          url: url(path),
          headers: { authorization: me.authorization, 'content-type': 'application/json' },
          payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
        });
        expect([method, path, payload, r.statusCode < 500]).toEqual([method, path, payload, true]);
        if (r.statusCode >= 400) expect([path, payload, typeof r.json().message]).toEqual([path, payload, 'string']);
      }
    }
    const huge = await send('POST', '/trades/add-trade', { trade_data: tradeData({ strike_prices: [1e308] }), tag_data: [] });
    expect([huge.statusCode, huge.json().message]).toEqual([422, 'Must be at most 1000000000.']);
    // The lower bound says so (QA: -1e308 answered "Must be at most 1000000000.").
    const below = await send('POST', '/trades/add-trade', { trade_data: tradeData({ strike_prices: [-1e308] }), tag_data: [] });
    expect([below.statusCode, below.json().message]).toEqual([422, 'Must be at least -1000000000.']);
    const many = await send('POST', '/trades/add-trade', { trade_data: tradeData({ contract_size: 1e10 }), tag_data: [] });
    expect([many.statusCode, many.json().message]).toEqual([422, 'Must be at most 100000.']);
    const long = await send('POST', `/trades/close/${trade.uid}`, closeBody, me.authorization, { 'idempotency-key': 'k'.repeat(300) });
    expect(long.statusCode).toBe(400);
  });

  it('idempotency: a retried command returns the first answer and appends nothing more', async () => {
    const body = { trade_data: tradeData(), tag_data: [] };
    const first = await send('POST', '/trades/add-trade', body, me.authorization, { 'idempotency-key': 'open-1' });
    const second = await send('POST', '/trades/add-trade', body, me.authorization, { 'idempotency-key': 'open-1' });
    expect(first.statusCode).toBe(201);
    expect(second.json()).toEqual(first.json());
    const uid = first.json().uid as string;
    const close1 = await send('POST', `/trades/close/${uid}`, { ...closeBody, contract_size: 1 }, me.authorization, { 'idempotency-key': 'close-1' });
    const close2 = await send('POST', `/trades/close/${uid}`, { ...closeBody, contract_size: 1 }, me.authorization, { 'idempotency-key': 'close-1' });
    expect(close1.statusCode, close1.body).toBe(200);
    expect(close2.json()).toEqual(close1.json());
    const events = await streamOf(me.userId, uid);
    expect(events.map((e) => e.type)).toEqual(['TradeOpened', 'TradeClosed']);
    expect(events[1]!.metadata.idempotencyKey).toBe('close-1');
    // The key belongs to that request: another command with it is refused.
    const reuse = await send('DELETE', `/trades/${uid}`, undefined, me.authorization, { 'idempotency-key': 'close-1' });
    expect([reuse.statusCode, reuse.json().message]).toEqual([409, 'This Idempotency-Key was already used for a different request.']);
    // So is the same route with other contents: a retry must be the same request, not a new one under an old key.
    const otherBody = await send('POST', `/trades/close/${uid}`, { ...closeBody, contract_size: 1, premium_at_close: 99 }, me.authorization, { 'idempotency-key': 'close-1' });
    expect([otherBody.statusCode, otherBody.json().message]).toEqual([409, 'This Idempotency-Key was already used for a different request.']);
    // The same request with its fields in another order is the same request.
    const reordered = Object.fromEntries(Object.entries({ ...closeBody, contract_size: 1 }).reverse());
    const close2b = await send('POST', `/trades/close/${uid}`, reordered, me.authorization, { 'idempotency-key': 'close-1' });
    expect(close2b.json()).toEqual(close1.json());
    expect(await streamOf(me.userId, uid)).toHaveLength(2);
    // A crash between the append and storing the answer: the events carry the key, so the retry answers from them.
    await t.db.db.deleteFrom('journal_command_answers').where('user_id', '=', me.userId).where('idempotency_key', '=', 'close-1').execute();
    const close3 = await send('POST', `/trades/close/${uid}`, { ...closeBody, contract_size: 1 }, me.authorization, { 'idempotency-key': 'close-1' });
    expect(close3.statusCode, close3.body).toBe(200);
    expect(close3.json().closed_trade).toEqual(close1.json().closed_trade);
    expect(close3.json().remaining_trade.uid).toBe(close1.json().remaining_trade.uid);
    expect(await streamOf(me.userId, uid)).toHaveLength(2);
  });

  it('idempotency: a refused request leaves its key unused, so the corrected request under the same key succeeds once (QA: 409)', async () => {
    const keyed = (key: string) => ({ 'idempotency-key': key });
    const claims = async (key: string) =>
      (await t.db.db.selectFrom('journal_command_answers').select('idempotency_key').where('user_id', '=', me.userId).where('idempotency_key', '=', key).execute()).length;
    // A domain refusal (a rule of the spec, decided on the lineage): 422, nothing appended, no claim left.
    const trade = await addTrade();
    const tooMany = await send('POST', `/trades/close/${trade.uid}`, { ...closeBody, contract_size: 5 }, me.authorization, keyed('fix-close'));
    expect(tooMany.statusCode, tooMany.body).toBe(422);
    expect(await claims('fix-close')).toBe(0);
    const fixed = await send('POST', `/trades/close/${trade.uid}`, { ...closeBody, contract_size: 1 }, me.authorization, keyed('fix-close'));
    expect(fixed.statusCode, fixed.body).toBe(200);
    // After the success: the same request replays the stored answer; another body under the key is a 409.
    const replay = await send('POST', `/trades/close/${trade.uid}`, { ...closeBody, contract_size: 1 }, me.authorization, keyed('fix-close'));
    expect([replay.statusCode, replay.json()]).toEqual([200, fixed.json()]);
    const otherBody = await send('POST', `/trades/close/${trade.uid}`, { ...closeBody, contract_size: 2 }, me.authorization, keyed('fix-close'));
    expect([otherBody.statusCode, otherBody.json().message]).toEqual([409, 'This Idempotency-Key was already used for a different request.']);
    expect((await streamOf(me.userId, trade.uid)).map((e) => [e.type, e.metadata.idempotencyKey])).toEqual([
      ['TradeOpened', null],
      ['TradeClosed', 'fix-close'],
    ]);
    // A trade that is not the caller's (404) and an account that is not (403): the key is free afterwards too.
    const foreign = await addTrade({ account_uid: otherAccount }, other.authorization);
    const notMine = await send('PATCH', `/trades/update/${foreign.uid}`, { notes: 'x' }, me.authorization, keyed('fix-edit'));
    expect(notMine.statusCode).toBe(404);
    expect(await claims('fix-edit')).toBe(0);
    const edit = await send('PATCH', `/trades/update/${trade.uid}`, { notes: 'x' }, me.authorization, keyed('fix-edit'));
    expect(edit.statusCode).toBe(409); // closed trades are final: a refusal again, the key still free
    const open = await addTrade();
    const edited = await send('PATCH', `/trades/update/${open.uid}`, { notes: 'x' }, me.authorization, keyed('fix-edit'));
    expect(edited.statusCode, edited.body).toBe(200);
    const foreignAccount = await send('POST', '/trades/add-trade', { trade_data: tradeData({ account_uid: otherAccount }), tag_data: [] }, me.authorization, keyed('fix-open'));
    expect(foreignAccount.statusCode).toBe(403);
    expect(await claims('fix-open')).toBe(0);
    const opened = await send('POST', '/trades/add-trade', { trade_data: tradeData(), tag_data: [] }, me.authorization, keyed('fix-open'));
    expect(opened.statusCode, opened.body).toBe(201);
    const openedAgain = await send('POST', '/trades/add-trade', { trade_data: tradeData(), tag_data: [] }, me.authorization, keyed('fix-open'));
    expect(openedAgain.json()).toEqual(opened.json());
    expect(await streamOf(me.userId, opened.json().uid)).toHaveLength(1);
    expect(await streamOf(other.userId, foreign.uid)).toHaveLength(1);
    // A body the contract refuses (422 before any command) never claims the key either.
    const invalid = await send('POST', `/trades/close/${open.uid}`, { ...closeBody, contract_size: -1 }, me.authorization, keyed('fix-invalid'));
    expect(invalid.statusCode).toBe(422);
    const valid = await send('POST', `/trades/close/${open.uid}`, closeBody, me.authorization, keyed('fix-invalid'));
    expect(valid.statusCode, valid.body).toBe(200);
  });

  it('idempotency: a retry after a lost answer answers as of its own events, whatever the lineage did since', async () => {
    const trade = await addTrade();
    // A lost answer leaves the key's claim without one (the connection died after the append); an
    // operator clearing old answers removes the claim too. Either way the retry answers the same.
    const lose = (key: string, how: 'claim kept' | 'claim cleared') =>
      how === 'claim kept'
        ? t.db.db.updateTable('journal_command_answers').set({ answer: null }).where('user_id', '=', me.userId).where('idempotency_key', '=', key).execute()
        : t.db.db.deleteFrom('journal_command_answers').where('user_id', '=', me.userId).where('idempotency_key', '=', key).execute();
    const edit1 = await send('PATCH', `/trades/update/${trade.uid}`, { notes: 'first edit' }, me.authorization, { 'idempotency-key': 'edit-1' });
    expect(edit1.statusCode, edit1.body).toBe(200);
    // The answer is lost (the connection died after the append), and the trader goes on: another edit.
    await lose('edit-1', 'claim cleared');
    const edit2 = await send('PATCH', `/trades/update/${trade.uid}`, { premium_at_open: 333 }, me.authorization, { 'idempotency-key': 'edit-2' });
    expect(edit2.json().notes).toBe('first edit');
    expect(edit2.json().pao).not.toBe(edit1.json().pao);
    // Decided again on today's lineage, the retry would answer the second edit's premium.
    const retry1 = await send('PATCH', `/trades/update/${trade.uid}`, { notes: 'first edit' }, me.authorization, { 'idempotency-key': 'edit-1' });
    expect(retry1.statusCode, retry1.body).toBe(200);
    expect(retry1.json()).toEqual(edit1.json());
    // Not a no-op on today's lineage: decided again, its append finds the key's events already stored.
    const edit3 = await send('PATCH', `/trades/update/${trade.uid}`, { notes: 'third edit' }, me.authorization, { 'idempotency-key': 'edit-3' });
    await lose('edit-3', 'claim cleared');
    await send('PATCH', `/trades/update/${trade.uid}`, { notes: 'fourth edit', premium_at_open: 444 }, me.authorization, { 'idempotency-key': 'edit-4' });
    const retry3 = await send('PATCH', `/trades/update/${trade.uid}`, { notes: 'third edit' }, me.authorization, { 'idempotency-key': 'edit-3' });
    expect(retry3.json()).toEqual(edit3.json());
    // The trade is deleted since: the lost answer is still the edit's, not a 500 over a trade that is gone.
    await lose('edit-2', 'claim kept');
    const deleted = await send('DELETE', `/trades/${trade.uid}`, undefined, me.authorization, { 'idempotency-key': 'delete-1' });
    expect(deleted.statusCode, deleted.body).toBe(200);
    const retry2 = await send('PATCH', `/trades/update/${trade.uid}`, { premium_at_open: 333 }, me.authorization, { 'idempotency-key': 'edit-2' });
    expect(retry2.statusCode, retry2.body).toBe(200);
    expect(retry2.json()).toEqual(edit2.json());
    const events = await streamOf(me.userId, trade.uid);
    expect(events.map((e) => [e.type, e.metadata.idempotencyKey])).toEqual([
      ['TradeOpened', null],
      ['TradeEdited', 'edit-1'],
      ['TradeEdited', 'edit-2'],
      ['TradeEdited', 'edit-3'],
      ['TradeEdited', 'edit-4'],
      ['TradeDeleted', 'delete-1'],
    ]);
  });

  it('the OpenAPI document describes the trade commands', async () => {
    const r = await t.app.inject({ method: 'GET', url: url('/docs/json') });
    expect(r.statusCode).toBe(200);
    const paths = Object.keys(r.json().paths);
    for (const p of ['/api/v1/trades/add-trade', '/api/v1/trades/roll/{uid}', '/api/v1/trades/{outcome}/{uid}', '/api/v1/trades/update/{uid}']) expect(paths).toContain(p);
  });

  it('20 concurrent full closes of one trade: exactly one succeeds, one close in the log', async () => {
    const trade = await addTrade();
    const answers = await Promise.all(Array.from({ length: 20 }, () => send('POST', `/trades/close/${trade.uid}`, closeBody)));
    const codes = answers.map((a) => a.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(19);
    for (const a of answers.filter((x) => x.statusCode === 409)) {
      expect(['This trade is already closed.', 'This trade was changed by another request at the same time. Reload it and try again.']).toContain(a.json().message);
    }
    const events = await streamOf(me.userId, trade.uid);
    expect(events.filter((e) => e.type === 'TradeClosed')).toHaveLength(1);
    const metrics = await t.deps.metrics.getSingleMetricAsString('journal_command_results_total');
    expect(metrics).toMatch(/journal_command_results_total\{command="close:close",result="conflict"\} (\d+)/);
  });

  const typesOf = async (uid: string) => (await streamOf(me.userId, uid)).map((e) => e.type);

  it('a trade added or edited with its account uid in capitals is recorded under the account uid itself', async () => {
    // The ownership check compares uuids (case-insensitive in PostgreSQL), the read models compare text:
    // a trade recorded under "019C..." is missing from every list filtered by the account's "019c...".
    const added = await send('POST', '/trades/add-trade', { trade_data: tradeData({ account_uid: account.toUpperCase() }), tag_data: [] });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json().au).toBe(account);
    const other = await addTrade();
    const edited = await send('PATCH', `/trades/update/${other.uid}`, { account_uid: account.toUpperCase() });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json().au).toBe(account);
    expect(await typesOf(other.uid)).toEqual(['TradeOpened']);
  });

  it('an edit refuses a ticker that only becomes 1 to 6 letters or digits once upper-cased', async () => {
    // "ß".toUpperCase() is "SS", "ﬁ" is "FI": add-trade refuses these tickers, the edit must too.
    const trade = await addTrade();
    for (const ticker of ['ßß', 'ﬁ']) {
      const r = await send('PATCH', `/trades/update/${trade.uid}`, { ticker });
      expect(r.statusCode, r.body).toBe(422);
      expect(r.json().message).toBe('Invalid Ticker');
    }
    expect(await typesOf(trade.uid)).toEqual(['TradeOpened']);
  });

  it('a keyed edit that changed nothing is answered the same on retry, and does not undo a later edit', async () => {
    const trade = await addTrade();
    const first = await send('PATCH', `/trades/update/${trade.uid}`, { premium_at_open: 300 }, me.authorization, { 'idempotency-key': `noop-edit-${adapter}` });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().pao).toBe(300);
    // Another request changes the premium; then the first one's retry arrives (its answer was lost).
    const later = await send('PATCH', `/trades/update/${trade.uid}`, { premium_at_open: 500 });
    expect(later.json().pao).toBe(500);
    const retry = await send('PATCH', `/trades/update/${trade.uid}`, { premium_at_open: 300 }, me.authorization, { 'idempotency-key': `noop-edit-${adapter}` });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json()).toEqual(first.json());
    expect(await typesOf(trade.uid)).toEqual(['TradeOpened', 'TradeEdited']);
  });
});
