import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineageStreamId } from '@oj/contracts/journal-events';
import { upcastJournalEvent } from '@oj/infra/eventstore/create';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { createPGliteDatabase, createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';

/**
 * One Idempotency-Key sent by two requests at the same time with different bodies (issue 16, defect 9).
 * Both used to find no stored answer, decide with the key's deterministic ids, and the second append was
 * taken for a retry of the first: it was answered with its own events, which were never stored. The key
 * must name exactly one request however the two interleave: one is answered, the other is a 409, and the
 * answer given is the one the log holds.
 */
const adapters = ['postgres', 'pglite'] as const;
const ROUNDS = 8;
const reuse = 'This Idempotency-Key was already used for a different request.';

describe.each(adapters)('one Idempotency-Key, two concurrent bodies, on %s', (adapter) => {
  let t: TestApp;
  let store: PostgresEventStore;
  let me: { userId: string; authorization: string };
  let account: string;

  const send = (method: 'POST' | 'PATCH', path: string, payload: unknown, key: string) =>
    t.app.inject({ method, url: `/api/v1${path}`, headers: { authorization: me.authorization, 'idempotency-key': key }, payload: payload as object });
  const tradeData = (premium: number) => ({
    ticker: 'msft',
    strategy_uid: 'cash-secured-put',
    account_uid: account,
    strike_prices: [300],
    trade_open_date: '2026-02-02',
    expiration_date: '2026-03-20',
    contract_size: 2,
    premium_at_open: premium,
    net_fee_to_open: 2,
    net_delta: 0.3,
    stock_price_at_open: 310,
    notes: '',
  });

  beforeAll(async () => {
    const database: TestDatabase =
      adapter === 'pglite' ? await createPGliteDatabase().then((d) => ({ ...d, url: '', name: 'pglite', drop: () => d.close() })) : await createTestDatabase('journal_idem_race');
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

  it('add-trade: one is answered and stored as answered, the other is refused', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const key = `race-open-${round}`;
      const [a, b] = await Promise.all([
        send('POST', '/trades/add-trade', { trade_data: tradeData(100), tag_data: [] }, key),
        send('POST', '/trades/add-trade', { trade_data: tradeData(200), tag_data: [] }, key),
      ]);
      const codes = [a.statusCode, b.statusCode].sort();
      expect([round, codes]).toEqual([round, [201, 409]]);
      const [won, lost] = a.statusCode === 201 ? [a, b] : [b, a];
      expect(lost.json().message).toBe(reuse);
      const answered = won.json() as { uid: string; pao: number };
      const stored = await store.readStream(lineageStreamId(me.userId, answered.uid));
      expect(stored.map((e) => e.type)).toEqual(['TradeOpened']);
      // The answer is the stored trade's: its premium is the one of the request that was answered.
      expect(JSON.stringify(stored[0]!.data)).toContain(String(answered.pao));
      // Retries of either body keep getting the same outcome.
      const again = await send('POST', '/trades/add-trade', { trade_data: tradeData(answered.pao), tag_data: [] }, key);
      expect(again.json()).toEqual(answered);
      const other = await send('POST', '/trades/add-trade', { trade_data: tradeData(answered.pao === 100 ? 200 : 100), tag_data: [] }, key);
      expect([other.statusCode, other.json().message]).toEqual([409, reuse]);
    }
  });

  it('closes of two trades under one key: one close is answered, the other is a 409 (never a 500)', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const opened = await Promise.all([0, 1].map((i) => send('POST', '/trades/add-trade', { trade_data: tradeData(300 + i), tag_data: [] }, `race-close-open-${round}-${i}`)));
      const uids = opened.map((r) => r.json().uid as string);
      const key = `race-close-${round}`;
      const body = { contract_size: 1, trade_close_date: '2026-02-27', premium_at_close: 50, net_fee_to_close: 1, close_transaction: 2 };
      const answers = await Promise.all(uids.map((uid) => send('POST', `/trades/close/${uid}`, body, key)));
      expect([round, answers.map((r) => r.statusCode).sort()]).toEqual([round, [200, 409]]);
      const streams = await Promise.all(uids.map((uid) => store.readStream(lineageStreamId(me.userId, uid))));
      const closed = streams.map((s) => s.filter((e) => e.type === 'TradeClosed').length);
      expect(closed.sort()).toEqual([0, 1]);
      const wonAt = answers.findIndex((r) => r.statusCode === 200);
      // Refused because the key is taken, not as a lost race on a stream it never touched.
      expect(answers[1 - wonAt]!.json().message).toBe(reuse);
      expect(streams[wonAt]!.filter((e) => e.type === 'TradeClosed')).toHaveLength(1);
    }
  });
});
