import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineageStreamId } from '@oj/contracts/journal-events';
import { upcastJournalEvent } from '@oj/infra/eventstore/create';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';

/**
 * Defects found in review of the trade commands (part 1 §5, §7). Today is Monday 2 March 2026, 10:00
 * in New York.
 */
describe('trade command defects', () => {
  let t: TestApp;
  let store: PostgresEventStore;
  let me: { userId: string; authorization: string };
  let account: string;

  const send = (method: 'POST' | 'PATCH', path: string, payload: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method, url: `/api/v1${path}`, headers: { authorization: me.authorization, ...headers }, payload: payload as object });
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
  const addTrade = async (extra: Record<string, unknown> = {}) => {
    const r = await send('POST', '/trades/add-trade', { trade_data: tradeData(extra), tag_data: [] });
    expect(r.statusCode, r.body).toBe(201);
    return r.json() as { uid: string; au: string; ticker: string; pao: number };
  };
  const eventsOf = async (uid: string) => (await store.readStream(lineageStreamId(me.userId, uid))).map((e) => e.type);

  beforeAll(async () => {
    const database: TestDatabase = await createTestDatabase('journal_defects');
    store = new PostgresEventStore(database, { upcast: upcastJournalEvent });
    t = await createTestApp({ database, eventStore: store, now: '2026-03-02T15:00:00Z' });
    me = await signInAs(t);
    const r = await t.app.inject({ method: 'POST', url: '/api/v1/accounts/add-account', headers: { authorization: me.authorization }, payload: { name: 'Main', broker: 'ibkr', ac_type: 1 } });
    expect(r.statusCode, r.body).toBe(201);
    account = r.json().uid as string;
  });
  afterAll(async () => {
    await store?.close();
    await t?.close();
  });

  it('a trade added or edited with its account uid in capitals is recorded under the account uid itself', async () => {
    // The ownership check compares uuids (case-insensitive in PostgreSQL), the read models compare text:
    // a trade recorded under "019C..." is missing from every list filtered by the account's "019c...".
    const added = await addTrade({ account_uid: account.toUpperCase() });
    expect(added.au).toBe(account);
    const other = await addTrade();
    const edited = await send('PATCH', `/trades/update/${other.uid}`, { account_uid: account.toUpperCase() });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json().au).toBe(account);
    expect(await eventsOf(other.uid)).toEqual(['TradeOpened']);
  });

  it('an edit refuses a ticker that only becomes 1 to 6 letters or digits once upper-cased', async () => {
    // "ß".toUpperCase() is "SS", "ﬁ" is "FI": add-trade refuses these tickers, the edit must too.
    const trade = await addTrade();
    for (const ticker of ['ßß', 'ﬁ']) {
      const r = await send('PATCH', `/trades/update/${trade.uid}`, { ticker });
      expect(r.statusCode, r.body).toBe(422);
      expect(r.json().message).toBe('Invalid Ticker');
    }
    expect(await eventsOf(trade.uid)).toEqual(['TradeOpened']);
  });

  it('a keyed edit that changed nothing is answered the same on retry, and does not undo a later edit', async () => {
    const trade = await addTrade();
    const first = await send('PATCH', `/trades/update/${trade.uid}`, { premium_at_open: 300 }, { 'idempotency-key': 'noop-edit-1' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().pao).toBe(300);
    // Another request changes the premium; then the first one's retry arrives (its answer was lost).
    const later = await send('PATCH', `/trades/update/${trade.uid}`, { premium_at_open: 500 });
    expect(later.json().pao).toBe(500);
    const retry = await send('PATCH', `/trades/update/${trade.uid}`, { premium_at_open: 300 }, { 'idempotency-key': 'noop-edit-1' });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json()).toEqual(first.json());
    expect(await eventsOf(trade.uid)).toEqual(['TradeOpened', 'TradeEdited']);
  });
});
