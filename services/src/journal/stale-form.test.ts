import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { lineageStreamId } from '@oj/contracts/journal-events';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { confirmedTerms } from '@oj/contracts/trades';
import { upcastJournalEvent } from '@oj/infra/eventstore/create';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { createPGliteDatabase, createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import type { ProjectorHandle } from '@oj/projections/runtime/projector';
import { createTestApp, signInAs, startTestProjector, type TestApp } from '../identity/testing.ts';

/**
 * A close, roll or split confirmed on a form opened before the trade was edited elsewhere (another tab,
 * another device). QA: the phone's Close showed a $200.00 profit; the desk then edited the premium from
 * 300 to 30; the phone's Close Trade recorded a -$70.00 loss, final. The console now sends the trade's
 * terms as its form showed them (`confirmedTerms` of the list row) and the decider refuses a trade that
 * no longer holds them. The other half: the terms of every kind of open row, as the read model lists
 * them, are the ones the decider holds, so no close of an unchanged trade is ever refused.
 * Today is Monday 2 March 2026, 10:00 in New York.
 */
const adapters = ['postgres', 'pglite'] as const;
const url = (path: string) => `/api/v1${path}`;

describe.each(adapters)('a form opened before an edit elsewhere, on %s', (adapter) => {
  let t: TestApp;
  let store: PostgresEventStore;
  let projector: ProjectorHandle;
  let me: { userId: string; authorization: string };
  let account: string;

  const send = (method: 'GET' | 'POST' | 'PATCH', path: string, payload?: unknown) =>
    t.app.inject({ method, url: url(path), headers: { authorization: me.authorization }, ...(payload !== undefined ? { payload: payload as object } : {}) });
  const ok = async <T = Record<string, unknown>>(method: 'GET' | 'POST' | 'PATCH', path: string, payload?: unknown): Promise<T> => {
    const r = await send(method, path, payload);
    expect(r.statusCode, r.body).toBeLessThan(300);
    return r.json() as T;
  };
  const settle = async () => {
    const { rows } = await sql<{ c: string; p: string }>`
      select transaction_id::text as c, global_position::text as p from events order by transaction_id desc, global_position desc limit 1`.execute(t.db.db);
    const last = rows[0];
    if (last) await projector.waitFor({ commit: BigInt(last.c), prepare: BigInt(last.p) }, 60_000);
  };
  /** The open rows as the console's list shows them (the read model, not a command's answer). */
  const openRows = async (): Promise<TradeListItem[]> => {
    await settle();
    return (await ok<{ items: TradeListItem[] }>('GET', '/trades/status/open?page=1&size=100')).items;
  };
  const rowOf = async (uid: string) => (await openRows()).find((r) => r.uid === uid)!;
  const eventsOf = async (uid: string) => (await store.readStream(lineageStreamId(me.userId, uid))).map((e) => e.type);
  const trade = (extra: Record<string, unknown> = {}) => ({
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
  const add = async (extra: Record<string, unknown> = {}) => (await ok<TradeListItem>('POST', '/trades/add-trade', { trade_data: trade(extra), tag_data: [] })).uid;
  const closing = { trade_close_date: '2026-02-27', premium_at_close: 100, net_fee_to_close: 1, close_transaction: 2 };
  const spread = (extra: Record<string, unknown> = {}) =>
    trade({ ticker: 'SPY', strategy_uid: 'bull-put-spread', strike_prices: [150, 145], contract_size: 2, premium_at_open: 120, net_fee_to_open: 2, stock_price_at_open: 160, ...extra });
  const splitBody = (expected: unknown) => ({
    trade_data: {
      closing_trade: { leg_index: 0, premium_at_open: 150, status: 2, trade_close_date: '2026-02-27', premium_at_close: 20, net_fee_to_close: 1, close_transaction: 1 },
      opening_trade: { premium_at_open: 30 },
    },
    tag_data: [],
    expected,
  });
  const rollBody = (expected: unknown, contracts = 3) => ({
    trade_roll_data: {
      old_trade: { ...closing, contract_size: contracts },
      new_trade: { expiration_date: '2026-04-17', contract_size: contracts, strike_prices: [58], stock_price_at_open: 61, net_delta: 0.25, premium_at_open: 280, net_fee_to_open: 3, notes: 'rolled' },
    },
    tag_data: [],
    expected,
  });

  beforeAll(async () => {
    const database: TestDatabase =
      adapter === 'pglite' ? await createPGliteDatabase().then((d) => ({ ...d, url: '', name: 'pglite', drop: () => d.close() })) : await createTestDatabase('journal_stale_form');
    store = new PostgresEventStore(database, { upcast: upcastJournalEvent, pollIntervalMs: 50 });
    t = await createTestApp({ database, eventStore: store, now: '2026-03-02T15:00:00Z' });
    projector = await startTestProjector(t, store);
    // As the in-process projector does (platform/workers.ts).
    t.deps.waitForProjections = (ms, position) => projector.waitFor(position ?? 'head', ms);
    me = await signInAs(t);
    account = (await ok<{ uid: string }>('POST', '/accounts/add-account', { name: 'Main', broker: 'ibkr', ac_type: 1 })).uid;
  });
  afterAll(async () => {
    await projector?.stop();
    await store?.close();
    await t?.close();
  });

  it('refuses a close, a roll and a split whose form showed terms the trade no longer holds (409, nothing appended), and takes them on the terms it holds', async () => {
    const put = await add();
    const shown = confirmedTerms(await rowOf(put));
    await ok('PATCH', `/trades/update/${put}`, { premium_at_open: 30, expected: { premium_at_open: 300 } });

    const close = await send('POST', `/trades/close/${put}`, { ...closing, contract_size: 3, expected: shown });
    expect([close.statusCode, close.json().message]).toEqual([
      409,
      'This trade was changed elsewhere since you opened it (Premium). Nothing was closed: close this form, look at the trade as it is now and try again.',
    ]);
    const roll = await send('POST', `/trades/roll/${put}`, rollBody(shown));
    expect([roll.statusCode, roll.json().message]).toEqual([
      409,
      'This trade was changed elsewhere since you opened it (Premium). Nothing was rolled: close this form, look at the trade as it is now and try again.',
    ]);
    expect(await eventsOf(put)).toEqual(['TradeOpened', 'TradeEdited']);

    const legs = await add(spread());
    const shownLegs = confirmedTerms(await rowOf(legs));
    await ok('PATCH', `/trades/update/${legs}`, { strike_prices: [155, 140], expected: { strike_prices: [150, 145] } });
    const split = await send('POST', `/trades/split-trade/${legs}`, splitBody(shownLegs));
    expect([split.statusCode, split.json().message]).toEqual([
      409,
      'This trade was changed elsewhere since you opened it (Strikes). Nothing was split: close this form, look at the trade as it is now and try again.',
    ]);
    expect(await eventsOf(legs)).toEqual(['TradeOpened', 'TradeEdited']);

    // A note written elsewhere changes nothing a close confirms: the form's terms leave notes out.
    await ok('PATCH', `/trades/update/${put}`, { notes: 'from the desk', expected: { notes: 'n' } });
    // On the terms the trade holds now (a form opened again), each goes through.
    const closed = await ok<{ closed_trade: TradeListItem }>('POST', `/trades/close/${put}`, { ...closing, contract_size: 1, expected: confirmedTerms(await rowOf(put)) });
    expect([closed.closed_trade.pao, closed.closed_trade.cs]).toEqual([10, 1]);
    await ok('POST', `/trades/split-trade/${legs}`, splitBody(confirmedTerms(await rowOf(legs))));
  });

  it('never refuses a form on an unchanged trade: every kind of open row, as listed, closes with its own terms', async () => {
    // Odd decimals, no notes, a cost basis without a stock price, a remainder, a roll's new trade, a
    // split's open leg, an edited trade: each row's terms as the list shows them are the decider's.
    await add({ ticker: 'DEC', premium_at_open: 123.45, net_fee_to_open: 1.3, net_delta: 0.27, stock_price_at_open: 61.37, strike_prices: [59.5], notes: null });
    await add({ ticker: 'CC', strategy_uid: 'covered-call', strike_prices: [65], stock_price_at_open: null, cost_basis: 55.55, net_delta: 0.35 });
    const partial = await add({ ticker: 'PART' });
    await ok('POST', `/trades/close/${partial}`, { ...closing, contract_size: 1, expected: confirmedTerms(await rowOf(partial)) });
    const rolled = await add({ ticker: 'ROLL' });
    await ok('POST', `/trades/roll/${rolled}`, rollBody(confirmedTerms(await rowOf(rolled)), 2));
    const legs = await add(spread({ ticker: 'LEGS', premium_at_open: 120.01 }));
    await ok('POST', `/trades/split-trade/${legs}`, { ...splitBody(confirmedTerms(await rowOf(legs))), trade_data: { ...splitBody(null).trade_data, opening_trade: { premium_at_open: 29.99 } } });
    const edited = await add({ ticker: 'EDIT' });
    await ok('PATCH', `/trades/update/${edited}`, { premium_at_open: 310.1, strike_prices: [61.25], net_delta: 0.123, expected: { premium_at_open: 300 } });

    const rows = (await openRows()).filter((r) => r.ticker !== 'KO' && r.ticker !== 'SPY');
    // DEC, CC, PART's remainder, ROLL's remainder and its new trade, LEGS' open leg, EDIT.
    expect(rows.map((r) => r.ticker).sort()).toEqual(['CC', 'DEC', 'EDIT', 'LEGS', 'PART', 'ROLL', 'ROLL']);
    for (const row of rows) {
      const r = await send('POST', `/trades/close/${row.uid}`, { ...closing, trade_close_date: '2026-03-02', contract_size: row.cs, expected: confirmedTerms(row) });
      expect([row.ticker, r.statusCode], r.body).toEqual([row.ticker, 200]);
    }
  });

  // Postgres only: PGlite is one connection, and the lock that holds the projector would hold the test.
  it.runIf(adapter === 'postgres')(
    'answers a refusal once the read models show the change it was refused for: the list the console reads next shows the trade as it is (CI: "$300.00" stayed behind "changed elsewhere")',
    async () => {
      const put = await add({ ticker: 'LAG' });
      const shown = confirmedTerms(await rowOf(put));
      // The projector is held: it cannot record where it is until the lock goes, so its writes stay unseen.
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      const holder = t.db.db.transaction().execute(async (trx) => {
        await sql`lock table projection_checkpoints in exclusive mode`.execute(trx);
        locked();
        await released;
      });
      await isLocked;
      const listed = async () => (await ok<{ items: TradeListItem[] }>('GET', '/trades/status/open?page=1&size=5&ticker=LAG')).items.map((r) => r.pao);
      let answeredAt = 0;
      let releasedAt = 0;
      try {
        // Another device edits the premium; this form, opened on $300, confirms its close.
        await ok('PATCH', `/trades/update/${put}`, { premium_at_open: 30, expected: { premium_at_open: 300 } });
        const close = send('POST', `/trades/close/${put}`, { ...closing, contract_size: 3, expected: shown }).then((r) => {
          answeredAt = performance.now();
          return r;
        });
        // Well inside the refusal's 2 s wait, so that the wait, not its limit, is what is measured.
        await new Promise((r) => setTimeout(r, 300));
        // The read models do not show the edit yet.
        expect(await listed()).toEqual([300]);
        releasedAt = performance.now();
        release();
        await holder;
        const refused = await close;
        expect([refused.statusCode, refused.json().message]).toEqual([
          409,
          'This trade was changed elsewhere since you opened it (Premium). Nothing was closed: close this form, look at the trade as it is now and try again.',
        ]);
      } finally {
        release();
        await holder;
      }
      // Answered only once the projector could go on, and the list read at once shows the edit.
      expect(answeredAt).toBeGreaterThan(releasedAt);
      expect(await listed()).toEqual([30]);
    },
  );
});
