import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { lineageStreamId, userStreamPrefix } from '@oj/contracts/journal-events';
import { upcastJournalEvent } from '@oj/infra/eventstore/create';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { createPGliteDatabase, createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { login } from '../identity/commands.ts';
import { identityContext } from '../identity/routes.ts';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';

/**
 * Rules of issue 4 that routes.test.ts leaves open: text PostgreSQL cannot store and malformed uids on
 * every route (422, never 500, nothing appended), tenant isolation through account uids, the
 * subscription's 403 message, the New York business date from the injected clock, and idempotent
 * retries of every command. Both adapters of the PostgreSQL event store. Today is Monday 2 March 2026.
 */
const adapters = ['postgres', 'pglite'] as const;
const NOW = '2026-03-02T15:00:00Z';

describe.each(adapters)('trade command rules on %s', (adapter) => {
  let t: TestApp;
  let store: PostgresEventStore;
  type User = { userId: string; email: string; password: string; authorization: string };
  let me: User;
  let other: User;
  let account: string;
  let otherAccount: string;

  const url = (path: string) => `/api/v1${path}`;
  const send = (method: 'POST' | 'PATCH' | 'DELETE', path: string, payload?: unknown, who: User = me, headers: Record<string, string> = {}) =>
    t.app.inject({
      method,
      url: url(path),
      headers: { authorization: who.authorization, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
    });
  const tradeData = (extra: Record<string, unknown> = {}) => ({
    ticker: 'KO',
    strategy_uid: 'cash-secured-put',
    account_uid: account,
    strike_prices: [60],
    trade_open_date: '2026-02-02',
    expiration_date: '2026-03-20',
    contract_size: 2,
    premium_at_open: 100,
    net_fee_to_open: 2,
    net_delta: 0.2,
    stock_price_at_open: 62,
    notes: 'n',
    ...extra,
  });
  const spreadData = (extra: Record<string, unknown> = {}) =>
    tradeData({ strategy_uid: 'bull-put-spread', strike_prices: [150, 145], premium_at_open: 120, net_fee_to_open: 2, stock_price_at_open: 160, ...extra });
  const addTrade = async (extra: Record<string, unknown> = {}, who: User = me) => {
    const r = await send('POST', '/trades/add-trade', { trade_data: tradeData(extra), tag_data: [] }, who);
    expect(r.statusCode, r.body).toBe(201);
    return r.json() as { uid: string };
  };
  const eventsOf = async (userId: string, lineageId: string) => (await store.readStream(lineageStreamId(userId, lineageId))).map((e) => e.type);
  // Straight from the events table: readAll stops at the server-wide visibility horizon, which other
  // databases' open transactions on a shared server can hold back.
  const userEventCount = async (userId: string) =>
    Number((await sql<{ n: string }>`select count(*)::text as n from events where stream_id like ${`${userStreamPrefix(userId)}%`}`.execute(t.db.db)).rows[0]!.n);

  const closeBody = { contract_size: 2, trade_close_date: '2026-02-27', premium_at_close: 10, net_fee_to_close: 1, close_transaction: 2 };
  const rollBody = (extra: Record<string, unknown> = {}) => ({
    trade_roll_data: {
      old_trade: { trade_close_date: '2026-02-27', premium_at_close: 10, net_fee_to_close: 1, close_transaction: 2 },
      new_trade: { expiration_date: '2026-04-17', contract_size: 2, strike_prices: [58], premium_at_open: 90, net_fee_to_open: 2, net_delta: 0.2, stock_price_at_open: 61, ...extra },
    },
    tag_data: [],
  });
  const splitBody = (closing: Record<string, unknown> = {}) => ({
    trade_data: {
      closing_trade: { leg_index: 1, premium_at_open: 30, status: 2, trade_close_date: '2026-02-27', premium_at_close: 20, net_fee_to_close: 1, close_transaction: 1, ...closing },
      opening_trade: { premium_at_open: 150 },
    },
    tag_data: [],
  });

  beforeAll(async () => {
    const database: TestDatabase =
      adapter === 'pglite' ? await createPGliteDatabase().then((d) => ({ ...d, url: '', name: 'pglite', drop: () => d.close() })) : await createTestDatabase('journal_rules');
    store = new PostgresEventStore(database, { upcast: upcastJournalEvent });
    t = await createTestApp({ database, eventStore: store, now: NOW });
    me = await signInAs(t);
    other = await signInAs(t);
    const addAccount = async (who: User) => {
      const r = await t.app.inject({ method: 'POST', url: url('/accounts/add-account'), headers: { authorization: who.authorization }, payload: { name: 'Main', broker: 'ibkr', ac_type: 1 } });
      expect(r.statusCode, r.body).toBe(201);
      return r.json().uid as string;
    };
    account = await addAccount(me);
    otherAccount = await addAccount(other);
  });
  afterAll(async () => {
    await store?.close();
    await t?.close();
  });

  it('text PostgreSQL cannot store (NUL, unpaired surrogates) is a 422 on every route that takes text, nothing appended', async () => {
    const trade = await addTrade();
    const before = await userEventCount(me.userId);
    const message = 'Text cannot contain NUL characters or unpaired surrogates.';
    for (const bad of ['a\u0000b', 'a\ud800b', '\udc00']) {
      const cases: Array<[string, 'POST' | 'PATCH', string, unknown]> = [
        ['add notes', 'POST', '/trades/add-trade', { trade_data: tradeData({ notes: bad }), tag_data: [] }],
        ['add tag', 'POST', '/trades/add-trade', { trade_data: tradeData(), tag_data: [{ name: bad }] }],
        ['add account', 'POST', '/trades/add-trade', { trade_data: tradeData({ account_uid: bad }), tag_data: [] }],
        ['add ticker', 'POST', '/trades/add-trade', { trade_data: tradeData({ ticker: bad }), tag_data: [] }],
        ['add-closed notes', 'POST', '/trades/add-closed-trade', { trade_data: { ...tradeData({ notes: bad }), ...closeBody, status: 2 }, tag_data: [] }],
        ['add-closed tag', 'POST', '/trades/add-closed-trade', { trade_data: { ...tradeData(), ...closeBody, status: 2 }, tag_data: [{ name: bad }] }],
        ['close date', 'POST', `/trades/close/${trade.uid}`, { ...closeBody, trade_close_date: bad }],
        ['outcome date', 'POST', `/trades/assigned/${trade.uid}`, { trade_close_date: bad }],
        ['expire date', 'POST', `/trades/expire-worthless/${trade.uid}`, { trade_close_date: bad }],
        ['roll notes', 'POST', `/trades/roll/${trade.uid}`, rollBody({ notes: bad })],
        ['roll tag', 'POST', `/trades/roll/${trade.uid}`, { ...rollBody(), tag_data: [{ name: bad }] }],
        ['split date', 'POST', `/trades/split-trade/${trade.uid}`, splitBody({ trade_close_date: bad })],
        ['edit notes', 'PATCH', `/trades/update/${trade.uid}`, { notes: bad }],
        ['edit account', 'PATCH', `/trades/update/${trade.uid}`, { account_uid: bad }],
        ['edit ticker', 'PATCH', `/trades/update/${trade.uid}`, { ticker: bad }],
      ];
      for (const [name, method, path, body] of cases) {
        const r = await send(method, path, body);
        expect([name, JSON.stringify(bad), r.statusCode, r.json().message]).toEqual([name, JSON.stringify(bad), 422, message]);
      }
    }
    expect(await userEventCount(me.userId)).toBe(before);
  });

  it('a uid no trade can have (NUL, spaces, dots) is a 422 on every uid route, never a 500', async () => {
    for (const uid of ['a%00b', 'a%20b', 'a.b', '%E2%82%AC']) {
      const cases: Array<['POST' | 'PATCH' | 'DELETE', string, unknown]> = [
        ['POST', `/trades/close/${uid}`, closeBody],
        ['POST', `/trades/expire-worthless/${uid}`, {}],
        ['POST', `/trades/assigned/${uid}`, { trade_close_date: '2026-02-27' }],
        ['POST', `/trades/called-away/${uid}`, { trade_close_date: '2026-02-27' }],
        ['POST', `/trades/exercised/${uid}`, { trade_close_date: '2026-02-27' }],
        ['POST', `/trades/roll/${uid}`, rollBody()],
        ['POST', `/trades/split-trade/${uid}`, splitBody()],
        ['PATCH', `/trades/update/${uid}`, { notes: 'x' }],
        ['DELETE', `/trades/${uid}`, undefined],
      ];
      for (const [method, path, body] of cases) {
        const r = await send(method, path, body);
        expect([path, r.statusCode, r.json().message]).toEqual([path, 422, 'Invalid trade uid.']);
      }
    }
  });

  it("tenant isolation by account: another user's account is a 403 on add, add-closed and edit, nothing appended", async () => {
    const notOwned = 'Choose one of your own trade accounts: this account was not found.';
    const before = await userEventCount(me.userId);
    const add = await send('POST', '/trades/add-trade', { trade_data: tradeData({ account_uid: otherAccount }), tag_data: [] });
    expect([add.statusCode, add.json().message]).toEqual([403, notOwned]);
    const addClosed = await send('POST', '/trades/add-closed-trade', { trade_data: { ...tradeData({ account_uid: otherAccount }), ...closeBody, status: 2 }, tag_data: [] });
    expect([addClosed.statusCode, addClosed.json().message]).toEqual([403, notOwned]);
    expect(await userEventCount(me.userId)).toBe(before);

    const trade = await addTrade();
    const edit = await send('PATCH', `/trades/update/${trade.uid}`, { account_uid: otherAccount, notes: 'moved' });
    expect([edit.statusCode, edit.json().message]).toEqual([403, notOwned]);
    expect(await eventsOf(me.userId, trade.uid)).toEqual(['TradeOpened']);
    // The other user's own trade stays out of reach by uid, whatever the account.
    const theirs = await addTrade({ account_uid: otherAccount }, other);
    const steal = await send('PATCH', `/trades/update/${theirs.uid}`, { account_uid: account });
    expect([steal.statusCode, steal.json().message]).toEqual([404, 'Trade not found.']);
    expect(await eventsOf(other.userId, theirs.uid)).toEqual(['TradeOpened']);
  });

  it('an expired subscription: add, add-closed, roll and split answer 403 with the renew message, nothing appended', async () => {
    const lapsed = await signInAs(t);
    const r = await t.app.inject({ method: 'POST', url: url('/accounts/add-account'), headers: { authorization: lapsed.authorization }, payload: { name: 'Main', broker: 'ibkr', ac_type: 1 } });
    const lapsedAccount = r.json().uid as string;
    const single = await addTrade({ account_uid: lapsedAccount }, lapsed);
    const spread = await send('POST', '/trades/add-trade', { trade_data: spreadData({ account_uid: lapsedAccount }), tag_data: [] }, lapsed);
    expect(spread.statusCode, spread.body).toBe(201);
    await t.db.db.updateTable('subscriptions').set({ current_period_end: new Date('2026-01-01T00:00:00Z') }).where('user_uid', '=', lapsed.userId).execute();
    await t.app.principals.settled();
    const before = await userEventCount(lapsed.userId);
    const attempts: Array<[string, unknown]> = [
      ['/trades/add-trade', { trade_data: tradeData({ account_uid: lapsedAccount }), tag_data: [] }],
      ['/trades/add-closed-trade', { trade_data: { ...tradeData({ account_uid: lapsedAccount }), ...closeBody, status: 2 }, tag_data: [] }],
      [`/trades/roll/${single.uid}`, rollBody()],
      [`/trades/split-trade/${spread.json().uid}`, splitBody()],
    ];
    for (const [path, body] of attempts) {
      const answer = await send('POST', path, body, lapsed);
      expect([path, answer.statusCode, answer.json().message]).toEqual([path, 403, 'Your subscription has expired, please renew']);
    }
    expect(await userEventCount(lapsed.userId)).toBe(before);
  });

  it('business dates are New York dates of the injected clock (23:30 in New York is still the day before in UTC terms)', async () => {
    const saved = me;
    // Access tokens expire with the clock: sign in again at each new time.
    const at = async (iso: string) => {
      t.clock.set(iso);
      const session = await login(identityContext(t.deps), { email: saved.email, password: saved.password });
      me = { ...saved, authorization: `Bearer ${session.accessToken}` };
    };
    try {
      // 04:30 UTC on Tuesday 3 March is 23:30 on Monday 2 March in New York (EST).
      await at('2026-03-03T04:30:00Z');
      const early = await send('POST', '/trades/add-trade', { trade_data: tradeData({ trade_open_date: '2026-03-03' }), tag_data: [] });
      expect([early.statusCode, early.json().message]).toEqual([422, 'Future dates are not allowed.']);
      const today = await addTrade({ trade_open_date: '2026-03-02' });
      const [opened] = await store.readStream(lineageStreamId(me.userId, today.uid));
      expect(opened!.metadata).toMatchObject({ businessDate: '2026-03-02', recordedAt: '2026-03-03T04:30:00.000Z' });
      const closeTomorrow = await send('POST', `/trades/close/${today.uid}`, { ...closeBody, trade_close_date: '2026-03-03' });
      expect([closeTomorrow.statusCode, closeTomorrow.json().message]).toEqual([422, 'Future dates are not permitted.']);
      // 05:30 UTC is 00:30 on Tuesday in New York: the 3rd is today now.
      await at('2026-03-03T05:30:00Z');
      const later = await addTrade({ trade_open_date: '2026-03-03' });
      const [laterOpened] = await store.readStream(lineageStreamId(me.userId, later.uid));
      expect(laterOpened!.metadata.businessDate).toBe('2026-03-03');
      // Expiration on the 3rd is not past yet on the 3rd; it is on the 4th.
      const expiring = await addTrade({ trade_open_date: '2026-03-02', expiration_date: '2026-03-03' });
      expect((await send('POST', `/trades/expire-worthless/${expiring.uid}`, {})).statusCode).toBe(409);
      await at('2026-03-04T15:00:00Z');
      const worthless = await send('POST', `/trades/expire-worthless/${expiring.uid}`, { trade_close_date: '2026-03-04', premium_at_close: 5, net_fee_to_close: 1, close_transaction: 1 });
      expect(worthless.statusCode, worthless.body).toBe(200);
      expect(worthless.json().closed_trade).toMatchObject({ status: 6, tcd: '2026-03-03', pac: 0, nftc: 0, ct: 3 });
    } finally {
      t.clock.set(NOW);
      me = saved;
    }
  });

  it('idempotency on every command: a retry with the same key answers the first answer and appends nothing', async () => {
    const retried = async (method: 'POST' | 'PATCH' | 'DELETE', path: string, body: unknown, key: string) => {
      const first = await send(method, path, body, me, { 'idempotency-key': key });
      expect([key, first.statusCode < 300, first.body]).toEqual([key, true, first.body]);
      const count = await userEventCount(me.userId);
      const second = await send(method, path, body, me, { 'idempotency-key': key });
      expect([key, second.statusCode, second.json()]).toEqual([key, first.statusCode, first.json()]);
      expect([key, await userEventCount(me.userId)]).toEqual([key, count]);
      return first.json();
    };
    await retried('POST', '/trades/add-closed-trade', { trade_data: { ...tradeData(), ...closeBody, status: 2 }, tag_data: [] }, 'i-add-closed');
    const expired = await addTrade({ expiration_date: '2026-02-20' });
    await retried('POST', `/trades/expire-worthless/${expired.uid}`, {}, 'i-expire');
    // The in-the-money outcome closes the full size (§4); a partial close is a normal close.
    const assigned = await addTrade();
    await retried('POST', `/trades/assigned/${assigned.uid}`, { trade_close_date: '2026-02-27' }, 'i-assigned');
    const itm = await addTrade();
    const partial = await retried('POST', `/trades/close/${itm.uid}`, { ...closeBody, contract_size: 1 }, 'i-close-partial');
    const rolled = await retried('POST', `/trades/roll/${partial.remaining_trade.uid}`, rollBody({ contract_size: 1 }), 'i-roll');
    expect(rolled.remaining_trade).toBeNull();
    await retried('PATCH', `/trades/update/${rolled.new_trade_after_roll.uid}`, { notes: 'once' }, 'i-edit');
    await retried('DELETE', `/trades/${rolled.new_trade_after_roll.uid}`, undefined, 'i-delete');
    const spread = await send('POST', '/trades/add-trade', { trade_data: spreadData(), tag_data: [] });
    const split = await retried('POST', `/trades/split-trade/${spread.json().uid}`, splitBody(), 'i-split');
    expect(await eventsOf(me.userId, itm.uid)).toEqual(['TradeOpened', 'TradeClosed', 'TradeRolled', 'TradeEdited', 'TradeDeleted']);
    expect(await eventsOf(me.userId, spread.json().uid)).toEqual(['TradeOpened', 'TradeSplit']);
    expect(split.open_trade.auid).toBe(spread.json().uid);
    // The same key from another user is that user's own key.
    const theirs = await send('POST', '/trades/add-trade', { trade_data: tradeData({ account_uid: otherAccount }), tag_data: [] }, other, { 'idempotency-key': 'i-add-closed' });
    expect(theirs.statusCode, theirs.body).toBe(201);
  });

  it('missing or mistyped fields of the add and roll forms answer the form messages of §5', async () => {
    const without = (key: string) => {
      const data: Record<string, unknown> = tradeData();
      delete data[key];
      return data;
    };
    const addCases: Array<[Record<string, unknown>, string]> = [
      [without('account_uid'), 'Account is required and cannot be null.'],
      [tradeData({ account_uid: null }), 'Account is required and cannot be null.'],
      [without('ticker'), 'Invalid Ticker'],
      [without('trade_open_date'), 'Open date cannot be empty'],
      [tradeData({ trade_open_date: '' }), 'Open date cannot be empty'],
      [without('expiration_date'), 'Expiration date is required.'],
      [without('strike_prices'), 'Invalid strike price for leg 1.'],
      [tradeData({ strike_prices: [null] }), 'Strike price must be a positive number.'],
      [without('contract_size'), 'Must be 1 or higher.'],
      [tradeData({ contract_size: 1.5 }), 'Must be 1 or higher.'],
      [without('premium_at_open'), 'Must be a positive number.'],
      [without('net_fee_to_open'), 'Must be a positive number.'],
      [tradeData({ net_delta: '0.3' }), 'Must be between 0 and 1.'],
      [without('stock_price_at_open'), 'Must be a positive number.'],
    ];
    const { contract_size: _size, ...closing } = closeBody;
    for (const [data, message] of addCases) {
      for (const path of ['/trades/add-trade', '/trades/add-closed-trade']) {
        const body = path === '/trades/add-trade' ? { trade_data: data, tag_data: [] } : { trade_data: { ...closing, ...data, status: 2 }, tag_data: [] };
        const r = await send('POST', path, body);
        expect([path, data, r.statusCode, r.json().message]).toEqual([path, data, 422, message]);
      }
    }
    const trade = await addTrade();
    const newTrade = (rollBody().trade_roll_data.new_trade as Record<string, unknown>);
    const rollCases: Array<[Record<string, unknown>, string]> = [
      [{ ...newTrade, contract_size: undefined }, 'Must be a positive number.'],
      [{ ...newTrade, net_fee_to_open: undefined }, 'Must be a non-negative number.'],
      [{ ...newTrade, strike_prices: undefined }, 'Strike price must be a positive number.'],
      [{ ...newTrade, net_delta: undefined }, 'Must be between 0 and 1.'],
      [{ ...newTrade, premium_at_open: undefined }, 'Must be a positive number.'],
    ];
    for (const [next, message] of rollCases) {
      const r = await send('POST', `/trades/roll/${trade.uid}`, { trade_roll_data: { old_trade: rollBody().trade_roll_data.old_trade, new_trade: next }, tag_data: [] });
      expect([next, r.statusCode, r.json().message]).toEqual([next, 422, message]);
    }
    expect(await eventsOf(me.userId, trade.uid)).toEqual(['TradeOpened']);
  });

  it('deeply nested JSON in any field is a 4xx, never a 500', async () => {
    const trade = await addTrade();
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const cases: Array<['POST' | 'PATCH', string, string]> = [
      ['PATCH', `/trades/update/${trade.uid}`, `{"tags":[{"name":${deep}}]}`],
      ['PATCH', `/trades/update/${trade.uid}`, `{"tags":[${deep}]}`],
      ['PATCH', `/trades/update/${trade.uid}`, `{"notes":${deep}}`],
      ['POST', '/trades/add-trade', `{"trade_data":${deep},"tag_data":[{"name":${deep}}]}`],
      ['POST', `/trades/roll/${trade.uid}`, `{"trade_roll_data":{"old_trade":${deep}}}`],
      ['POST', `/trades/split-trade/${trade.uid}`, `{"trade_data":{"closing_trade":${deep}}}`],
      ['POST', `/trades/close/${trade.uid}`, `{"premium_at_close":${deep}}`],
    ];
    for (const [method, path, payload] of cases) {
      const r = await t.app.inject({ method, url: url(path), headers: { authorization: me.authorization, 'content-type': 'application/json' }, payload });
      expect([path, payload.slice(0, 30), r.statusCode >= 400 && r.statusCode < 500]).toEqual([path, payload.slice(0, 30), true]);
    }
    const tags = await send('PATCH', `/trades/update/${trade.uid}`, { tags: [{ name: 'other' }] });
    expect([tags.statusCode, tags.json().message]).toEqual([422, 'Strategy, transaction and tags cannot be changed.']);
    expect((await send('PATCH', `/trades/update/${trade.uid}`, { tags: [], notes: 'same tags' })).statusCode).toBe(200);
    expect(await eventsOf(me.userId, trade.uid)).toEqual(['TradeOpened', 'TradeEdited']);
  });

  it('idempotency under concurrency: the same key sent 8 times at once gives one answer and one append', async () => {
    const body = { trade_data: tradeData(), tag_data: [] };
    const opens = await Promise.all(Array.from({ length: 8 }, () => send('POST', '/trades/add-trade', body, me, { 'idempotency-key': 'c-open' })));
    expect(opens.map((r) => r.statusCode)).toEqual(Array(8).fill(201));
    const uid = opens[0]!.json().uid as string;
    expect(new Set(opens.map((r) => r.json().uid))).toEqual(new Set([uid]));
    const closes = await Promise.all(Array.from({ length: 8 }, () => send('POST', `/trades/close/${uid}`, { ...closeBody, contract_size: 1 }, me, { 'idempotency-key': 'c-close' })));
    expect(closes.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
    for (const r of closes) expect(r.json()).toEqual(closes[0]!.json());
    expect(await eventsOf(me.userId, uid)).toEqual(['TradeOpened', 'TradeClosed']);
  });
});
