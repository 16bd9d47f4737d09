import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { lineageStreamId } from '@oj/contracts/journal-events';
import { upcastJournalEvent } from '@oj/infra/eventstore/create';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { createTestDatabase } from '@oj/infra/testing/postgres';
import type { ProjectorHandle } from '@oj/projections/runtime/projector';
import { createTestApp, signInAs, startTestProjector, type TestApp } from '../identity/testing.ts';

/**
 * A trade's history (Trade Detail → History) for every kind of trade, and the two per-trade lineage
 * views (history, split ancestor) never crossing users, in either direction. Today is Monday 2 March 2026.
 */
const url = (path: string) => `/api/v1${path}`;
type Who = { userId: string; authorization: string };
const RANDOM_UID = '0191c9a0-0000-7000-8000-000000000000';

describe('trade history and lineage views per user', () => {
  let t: TestApp;
  let store: PostgresEventStore;
  let projector: ProjectorHandle;
  let a: Who;
  let b: Who;
  /** Per user: an added trade, an added closed trade, a partial close's remainder, a roll's new trade, a split spread and its legs. */
  const trades = new Map<string, { account: string; opened: string; addedClosed: string; remainder: string; rolledTo: string; spread: string; legs: string[] }>();

  const get = (path: string, who: Who) => t.app.inject({ method: 'GET', url: url(path), headers: { authorization: who.authorization } });
  const send = async (who: Who, path: string, payload: unknown, status = 200) => {
    const r = await t.app.inject({ method: path.startsWith('/trades/update') ? 'PATCH' : 'POST', url: url(path), headers: { authorization: who.authorization }, payload: payload as object });
    expect(r.statusCode, r.body).toBe(status);
    return r.json();
  };
  const settle = async () => {
    const { rows } = await sql<{ c: string; p: string }>`select transaction_id::text as c, global_position::text as p from events order by transaction_id desc, global_position desc limit 1`.execute(t.db.db);
    if (rows[0]) await projector.waitFor({ commit: BigInt(rows[0].c), prepare: BigInt(rows[0].p) }, 60_000);
  };

  async function journalOf(who: Who) {
    const account = (await send(who, '/accounts/add-account', { name: 'Main', broker: 'ibkr', ac_type: 1 }, 201)).uid;
    const trade = (extra: Record<string, unknown> = {}) => ({
      ticker: 'SPY', strategy_uid: 'cash-secured-put', account_uid: account, strike_prices: [400], trade_open_date: '2026-02-02', expiration_date: '2026-03-20',
      contract_size: 3, premium_at_open: 300, net_fee_to_open: 1.95, net_delta: 0.3, stock_price_at_open: 420, notes: '', ...extra,
    });
    const close = { trade_close_date: '2026-02-20', premium_at_close: 60, net_fee_to_close: 1.3, close_transaction: 2 };
    const opened = (await send(who, '/trades/add-trade', { trade_data: trade(), tag_data: [] }, 201)).uid as string;
    const addedClosed = (await send(who, '/trades/add-closed-trade', { trade_data: { ...trade(), ...close, status: 2 }, tag_data: [] }, 201)).closed_trade.uid as string;
    const toRoll = (await send(who, '/trades/add-trade', { trade_data: trade(), tag_data: [] }, 201)).uid as string;
    const remainder = (await send(who, `/trades/close/${toRoll}`, { ...close, contract_size: 1 })).remaining_trade.uid as string;
    const rolledTo = (
      await send(who, `/trades/roll/${remainder}`, {
        trade_roll_data: {
          old_trade: { ...close, trade_close_date: '2026-02-27' },
          new_trade: { expiration_date: '2026-04-17', contract_size: 2, strike_prices: [395], premium_at_open: 110, net_fee_to_open: 0.65, net_delta: 0.25, stock_price_at_open: 418 },
        },
        tag_data: [],
      })
    ).new_trade_after_roll.uid as string;
    const spread = (await send(who, '/trades/add-trade', { trade_data: trade({ strategy_uid: 'bull-put-spread', strike_prices: [150, 145], contract_size: 1, premium_at_open: 120, net_fee_to_open: 2 }), tag_data: [] }, 201)).uid as string;
    const split = await send(who, `/trades/split-trade/${spread}`, {
      trade_data: { closing_trade: { leg_index: 1, premium_at_open: 30, status: 2, trade_close_date: '2026-02-27', premium_at_close: 20, net_fee_to_close: 1, close_transaction: 1 }, opening_trade: { premium_at_open: 150 } },
      tag_data: [],
    });
    trades.set(who.userId, { account, opened, addedClosed, remainder, rolledTo, spread, legs: [split.closed_trade.uid, split.open_trade.uid] });
  }

  beforeAll(async () => {
    const database = await createTestDatabase('trade_history');
    store = new PostgresEventStore(database, { upcast: upcastJournalEvent, pollIntervalMs: 50 });
    t = await createTestApp({ database, eventStore: store, now: '2026-03-02T15:00:00Z' });
    projector = await startTestProjector(t, store);
    a = await signInAs(t);
    b = await signInAs(t);
    await journalOf(a);
    await journalOf(b);
    await settle();
  }, 120_000);
  afterAll(async () => {
    await projector?.stop();
    await store?.close();
    await t?.close();
  });

  it("answers the history of a trade that starts its lineage: one added, and one added closed (QA: 404 'Trade not found.')", async () => {
    const mine = trades.get(a.userId)!;
    for (const uid of [mine.opened, mine.addedClosed]) {
      const r = await get(`/trades/${uid}/history`, a);
      expect(r.statusCode, r.body).toBe(200);
      const stream = await store.readStream(lineageStreamId(a.userId, uid));
      expect(stream.length).toBeGreaterThan(0);
      expect(r.json()).toMatchObject({ uid, lineage_id: uid });
      expect(r.json().items.map((i: { type: string }) => i.type)).toEqual(stream.map((e) => e.type));
    }
    // Derived trades still answer their lineage's events, from the opening one.
    const rolled = await get(`/trades/${mine.rolledTo}/history`, a);
    expect(rolled.statusCode, rolled.body).toBe(200);
    expect(rolled.json().items.map((i: { type: string }) => i.type)).toEqual(['TradeOpened', 'TradeClosed', 'TradeRolled']);
  });

  it("a trade's history is its owner's only, both ways, original and derived trades alike: 404 with the message of a uid that does not exist", async () => {
    const missing = await get(`/trades/${RANDOM_UID}/history`, a);
    expect(missing.statusCode).toBe(404);
    for (const [who, owner] of [[b, a], [a, b]] as const) {
      const theirs = trades.get(owner.userId)!;
      for (const uid of [theirs.opened, theirs.addedClosed, theirs.remainder, theirs.rolledTo, theirs.spread, ...theirs.legs]) {
        const r = await get(`/trades/${uid}/history`, who);
        expect([uid, r.statusCode, r.json()]).toEqual([uid, 404, missing.json()]);
      }
    }
  });

  it("a split's ancestor is its owner's only, both ways: 404 with the message of a uid that does not exist", async () => {
    const own = await get(`/trades/${trades.get(a.userId)!.spread}/ancestor`, a);
    expect(own.statusCode, own.body).toBe(200);
    const missing = await get(`/trades/${RANDOM_UID}/ancestor`, a);
    expect(missing.statusCode).toBe(404);
    for (const [who, owner] of [[b, a], [a, b]] as const) {
      const theirs = trades.get(owner.userId)!;
      for (const uid of [theirs.spread, ...theirs.legs]) {
        const r = await get(`/trades/${uid}/ancestor`, who);
        expect([uid, r.statusCode, r.json()]).toEqual([uid, 404, missing.json()]);
      }
    }
    // The owner's view is unchanged by the foreign requests.
    expect((await get(`/trades/${trades.get(a.userId)!.spread}/ancestor`, a)).json()).toEqual(own.json());
  });

  it("a list filtered by another user's account (au) is empty, in every list, and the owner's lists are unchanged", async () => {
    const lists = ['/trades/status/open', '/trades/status/closed', '/trades/status/rolled', '/trades/expiring'];
    const own = await Promise.all(lists.map(async (list) => (await get(`${list}?au=${trades.get(a.userId)!.account}&size=100`, a)).json()));
    expect(own.map((l: { total: number }) => l.total).reduce((x, y) => x + y, 0)).toBeGreaterThan(0);
    for (const [who, owner] of [[b, a], [a, b]] as const) {
      for (const list of lists) {
        const r = await get(`${list}?au=${trades.get(owner.userId)!.account}`, who);
        expect([list, r.statusCode, r.json().items, r.json().total]).toEqual([list, 200, [], 0]);
      }
    }
    const after = await Promise.all(lists.map(async (list) => (await get(`${list}?au=${trades.get(a.userId)!.account}&size=100`, a)).json()));
    expect(after).toEqual(own);
  });
});
