import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { sql } from 'kysely';
import { upcastJournalEvent } from '@oj/infra/eventstore/create';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import type { StoredEvent } from '@oj/infra/eventstore/port';
import { createPGliteDatabase, createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { allProjections } from '@oj/projections/catalogue';
import type { ProjectorHandle } from '@oj/projections/runtime/projector';
import { RebuildLockedError, rebuild } from '@oj/projections/runtime/rebuild';
import { liveTables } from '@oj/projections/runtime/registry';
import { tradeTables } from '@oj/projections/trades/projection';
import { smallJournal } from '@oj/projections/trades/testing';
import { tradeDaySummary, tradesByDateResponse } from '@oj/contracts/trade-views';
import { createTestApp, signInAs, startTestProjector, type TestApp } from '../identity/testing.ts';

/**
 * End to end: trade commands through the API, the projector running in process, the read-model queries
 * answering; then the invariant of the architecture: a rebuild from an empty database gives read models
 * identical, row by row, to the live ones, also after a projector process and a rebuild process were
 * killed (SIGKILL) in the middle of their work. Today is Monday 2 March 2026, 10:00 in New York.
 */
const adapters = ['postgres', 'pglite'] as const;
const url = (path: string) => `/api/v1${path}`;

async function dumpLive(t: TestApp): Promise<Record<string, unknown[]>> {
  const tables = await liveTables(t.db.db, 'trades');
  const out: Record<string, unknown[]> = {};
  for (const name of tradeTables) {
    out[name] = (await sql<Record<string, unknown>>`select * from ${sql.table(tables[name]!)} order by 1, 2`.execute(t.db.db)).rows;
  }
  return out;
}

/** Appends hand-built journal events (other users) through the store, stream by stream, in log order. */
async function appendJournal(store: PostgresEventStore, events: readonly StoredEvent[]): Promise<void> {
  for (const e of events) {
    const { streamId, revision, position: _p, ...event } = e;
    await store.append(streamId, [{ ...event, id: crypto.randomUUID() }], revision === 0 ? 'no_stream' : revision - 1);
  }
}

describe.each(adapters)('trade read models end to end on %s', (adapter) => {
  let t: TestApp;
  let store: PostgresEventStore;
  let projector: ProjectorHandle | undefined;
  let me: { userId: string; authorization: string };
  let account: string;

  const send = async (method: 'GET' | 'POST' | 'DELETE', path: string, payload?: unknown) =>
    t.app.inject({ method, url: url(path), headers: { authorization: me.authorization }, ...(payload !== undefined ? { payload: payload as object } : {}) });
  const ok = async (method: 'GET' | 'POST', path: string, payload?: unknown) => {
    const r = await send(method, path, payload);
    expect(r.statusCode, r.body).toBeLessThan(300);
    return r.json();
  };
  const start = () =>
    startTestProjector(t, store);
  /**
   * Waits until the read models have applied the last committed event. Not `waitFor('head')`: the
   * store's head is the visibility horizon, which any long transaction on the server (another test's
   * database included) holds back, so it can name an older position than the appends just made.
   */
  const settle = async (timeoutMs = 60_000) => {
    const { rows } = await sql<{ c: string; p: string }>`
      select transaction_id::text as c, global_position::text as p from events order by transaction_id desc, global_position desc limit 1`.execute(t.db.db);
    const last = rows[0];
    if (last) await projector!.waitFor({ commit: BigInt(last.c), prepare: BigInt(last.p) }, timeoutMs);
  };
  const runtimeDeps = () => ({ database: t.db, eventStore: store, projections: allProjections, lanes: 2 });

  beforeAll(async () => {
    const database: TestDatabase =
      adapter === 'pglite' ? await createPGliteDatabase().then((d) => ({ ...d, url: '', name: 'pglite', drop: () => d.close() })) : await createTestDatabase('trade_views_e2e');
    store = new PostgresEventStore(database, { upcast: upcastJournalEvent, pollIntervalMs: 50 });
    t = await createTestApp({ database, eventStore: store, now: '2026-03-02T15:00:00Z' });
    projector = await start();
    t.deps.waitForProjections = (ms) => projector!.waitFor('head', ms);
    me = await signInAs(t);
    const r = await t.app.inject({ method: 'POST', url: url('/accounts/add-account'), headers: { authorization: me.authorization }, payload: { name: 'Main', broker: 'ibkr', ac_type: 1 } });
    account = r.json().uid;
  });
  afterAll(async () => {
    await projector?.stop();
    await store?.close();
    await t?.close();
  });

  it('commands through the API; the queries answer the same trades the commands answered', async () => {
    const tradeData = (extra: Record<string, unknown> = {}) => ({
      ticker: 'AAPL', strategy_uid: 'cash-secured-put', account_uid: account, strike_prices: [150], trade_open_date: '2026-02-02', expiration_date: '2026-03-20',
      contract_size: 3, premium_at_open: 300, net_fee_to_open: 3, net_delta: 0.3, stock_price_at_open: 160, notes: '', ...extra,
    });
    const opened = await ok('POST', '/trades/add-trade', { trade_data: tradeData(), tag_data: [] });
    const partial = await ok('POST', `/trades/close/${opened.uid}`, { contract_size: 1, trade_close_date: '2026-02-27', premium_at_close: 40, net_fee_to_close: 1, close_transaction: 2 });
    const roll = await ok('POST', `/trades/roll/${partial.remaining_trade.uid}`, {
      trade_roll_data: {
        old_trade: { trade_close_date: '2026-02-27', premium_at_close: 50, net_fee_to_close: 2, close_transaction: 2 },
        new_trade: { expiration_date: '2026-04-17', contract_size: 2, strike_prices: [145], premium_at_open: 260, net_fee_to_open: 2, net_delta: 0.25, stock_price_at_open: 158 },
      },
      tag_data: [],
    });
    const spread = await ok('POST', '/trades/add-trade', { trade_data: tradeData({ ticker: 'SPY', strategy_uid: 'bull-put-spread', strike_prices: [500, 495], contract_size: 1, premium_at_open: 120, net_fee_to_open: 2 }), tag_data: [] });
    const split = await ok('POST', `/trades/split-trade/${spread.uid}`, {
      trade_data: { closing_trade: { leg_index: 1, premium_at_open: 30, status: 2, trade_close_date: '2026-02-27', premium_at_close: 20, net_fee_to_close: 1, close_transaction: 1 }, opening_trade: { premium_at_open: 150 } },
      tag_data: [],
    });
    const scalp = await ok('POST', '/trades/add-closed-trade', {
      trade_data: { ...tradeData({ ticker: 'TSLA', strategy_uid: 'long-call', strike_prices: [300], contract_size: 1, premium_at_open: 200, net_fee_to_open: 1, trade_open_date: '2026-02-27' }), contract_size: 1, trade_close_date: '2026-02-27', premium_at_close: 260, net_fee_to_close: 1, close_transaction: 1, status: 2 },
      tag_data: [],
    });
    await settle();

    const open = await ok('GET', '/trades/status/open');
    const closed = await ok('GET', '/trades/status/closed');
    const rolled = await ok('GET', '/trades/status/rolled');
    const byUid = new Map<string, unknown>([...open.items, ...closed.items, ...rolled.items].map((i: { uid: string }) => [i.uid, i]));
    // The read model and the command answers come from the same formulas: identical items.
    // (The partial close was answered before the roll; its lineage has had a roll since.)
    expect(byUid.get(partial.closed_trade.uid)).toEqual({ ...partial.closed_trade, rh: true });
    for (const answered of [roll.closed_trade, roll.new_trade_after_roll, split.closed_trade, split.open_trade, scalp.closed_trade]) {
      expect(byUid.get(answered.uid)).toEqual(answered);
    }
    expect(open.items.map((i: { uid: string }) => i.uid).sort()).toEqual([roll.new_trade_after_roll.uid, split.open_trade.uid].sort());
    expect(rolled.items.map((i: { uid: string }) => i.uid)).toEqual([partial.remaining_trade.uid]);
    expect(partial.closed_trade).toMatchObject({ npc: 60, c: 15000, ror: 0.39, do: 25 });

    const history = (await ok('GET', `/trades/${roll.new_trade_after_roll.uid}/roll-history`)).roll_history;
    expect(history.map((h: { uid: string; rolled_from_uid: string | null }) => [h.uid, h.rolled_from_uid])).toEqual([
      [opened.uid, null],
      [partial.remaining_trade.uid, opened.uid],
      [roll.new_trade_after_roll.uid, partial.remaining_trade.uid],
    ]);
    const ancestor = await ok('GET', `/trades/${spread.uid}/ancestor`);
    expect(ancestor.trades.map((x: { uid: string }) => x.uid)).toEqual([split.closed_trade.uid, split.open_trade.uid]);
    expect(ancestor.gene).toMatchObject({ tod: '2026-02-02', cs: 1, pao: 120 });

    const day = tradesByDateResponse.parse(await ok('GET', '/trades/trade-by-date/2026-02-27'));
    const inSection = (section: string) => day.filter((x) => x.section === section).map((x) => x.uid);
    expect(inSection('scalp')).toEqual([scalp.closed_trade.uid]);
    expect(inSection('open')).toEqual([roll.new_trade_after_roll.uid]);
    // Closes of the day: partial (-40), roll (-50), split leg (+20); opened: the roll's new trade (+260); scalp -200 +260.
    expect(tradeDaySummary(day)).toMatchObject({ trades: 6, scalp_count: 1, closed_count: 3, premium: -40 - 50 + 20 + 260 - 200 + 260 });
    const premium = await ok('GET', '/metrics/premium-data');
    // 2 February: the CSP (300) and the spread (120) opened; 27 February: the day above.
    // Every weekday of the window is answered (zeros on quiet days); these are the days with premium.
    expect(premium.daily_income.filter((d: { np: number }) => d.np !== 0).map((d: { id: string; np: number }) => [d.id, d.np])).toEqual([
      ['2026-02-02', 420],
      ['2026-02-27', 250],
    ]);
    expect(premium.daily_income.at(-1).net_premium_so_far).toBe(670);
  });

  it('a spread rolled, then split: the roll history goes through the split; a partial close of a leg stays in the split history (QA)', async () => {
    const spread = await ok('POST', '/trades/add-trade', {
      trade_data: {
        ticker: 'QQQ', strategy_uid: 'bull-put-spread', account_uid: account, strike_prices: [400, 395], trade_open_date: '2026-02-02', expiration_date: '2026-03-20',
        contract_size: 2, premium_at_open: 150, net_fee_to_open: 2, net_delta: 0.2, stock_price_at_open: 410, notes: '',
      },
      tag_data: [],
    });
    const roll = await ok('POST', `/trades/roll/${spread.uid}`, {
      trade_roll_data: {
        old_trade: { trade_close_date: '2026-02-20', premium_at_close: 60, net_fee_to_close: 2, close_transaction: 2 },
        new_trade: { expiration_date: '2026-04-17', contract_size: 2, strike_prices: [390, 385], premium_at_open: 100, net_fee_to_open: 2, net_delta: 0.2, stock_price_at_open: 405 },
      },
      tag_data: [],
    });
    const rolledTo = roll.new_trade_after_roll.uid as string;
    const split = await ok('POST', `/trades/split-trade/${rolledTo}`, {
      trade_data: { closing_trade: { leg_index: 1, premium_at_open: 20, status: 2, trade_close_date: '2026-02-27', premium_at_close: 5, net_fee_to_close: 1, close_transaction: 1 }, opening_trade: { premium_at_open: 120 } },
      tag_data: [],
    });
    const openLeg = split.open_trade.uid as string;
    const partial = await ok('POST', `/trades/close/${openLeg}`, { contract_size: 1, trade_close_date: '2026-02-27', premium_at_close: 30, net_fee_to_close: 1, close_transaction: 2 });
    const remainder = partial.remaining_trade.uid as string;
    await settle();

    // The rolled-into spread left the lists, but the tree goes through it: spread, its roll, the split, the legs.
    for (const uid of [spread.uid, split.closed_trade.uid, remainder, rolledTo]) {
      const body = await ok('GET', `/trades/${uid}/roll-history`);
      const parentOf = Object.fromEntries(body.roll_history.map((h: { uid: string; rolled_from_uid: string | null; split_of_uid: string | null }) => [h.uid, h.split_of_uid ?? h.rolled_from_uid]));
      expect(parentOf).toEqual({ [spread.uid]: null, [split.closed_trade.uid]: rolledTo, [openLeg]: rolledTo, [remainder]: openLeg });
      expect(body.roll_history[0].uid).toBe(spread.uid);
      expect(body.splits).toEqual([
        { uid: rolledTo, rolled_from_uid: spread.uid, partial_of_uid: null, strike_prices: [390, 385], premium_at_open: 100, expiration_date: '2026-04-17', trade_open_date: '2026-02-20', contract_size: 2, split_date: '2026-02-27' },
      ]);
    }
    // The split history: both legs and the contract of the open leg still open after its partial close.
    const ancestor = await ok('GET', `/trades/${rolledTo}/ancestor`);
    expect(ancestor.trades.map((x: { uid: string; status: number; cs: number }) => [x.uid, x.status, x.cs])).toEqual([
      [split.closed_trade.uid, 2, 2],
      [openLeg, 2, 1],
      [remainder, 1, 1],
    ]);
  });

  it('trades-by-date: a split spread is one entered position with its strikes; once a leg is deleted, what is left is listed as itself (QA)', async () => {
    const spread = await ok('POST', '/trades/add-trade', {
      trade_data: {
        ticker: 'AMD', strategy_uid: 'long-straddle', account_uid: account, strike_prices: [120, 120], trade_open_date: '2026-02-09', expiration_date: '2026-03-20',
        contract_size: 2, premium_at_open: 1000, net_fee_to_open: 2.6, net_delta: 0.1, stock_price_at_open: 118, notes: '',
      },
      tag_data: [],
    });
    const split = await ok('POST', `/trades/split-trade/${spread.uid}`, {
      trade_data: { closing_trade: { leg_index: 0, premium_at_open: 600, status: 2, trade_close_date: '2026-02-10', premium_at_close: 650, net_fee_to_close: 1.3, close_transaction: 1 }, opening_trade: { premium_at_open: 400 } },
      tag_data: [],
    });
    await settle();
    const entered = tradesByDateResponse.parse(await ok('GET', '/trades/trade-by-date/2026-02-09'));
    // Both legs: the straddle as entered, its two strikes, the legs' premiums (600 + 400 debit), its contracts.
    expect(entered.map((x) => [x.section, x.uid, x.su, x.sp, x.pao, x.ot, x.cs])).toEqual([['open', spread.uid, 'long-straddle', [120, 120], 1000, 2, 2]]);

    expect((await send('DELETE', `/trades/${split.open_trade.uid}`)).statusCode).toBeLessThan(300);
    await settle();
    const left = tradesByDateResponse.parse(await ok('GET', '/trades/trade-by-date/2026-02-09'));
    // The straddle no longer exists as entered: the closed leg is listed as what it is, a long call of one strike
    // and its own premium, and the day's premium is that leg's (-600), as the day's record says.
    expect(left.map((x) => [x.section, x.uid, x.su, x.sp, x.pao, x.ot, x.cs])).toEqual([['open', split.closed_trade.uid, split.closed_trade.su, [120], 600, 2, 2]]);
    expect(split.closed_trade.su).not.toBe('long-straddle');
    expect(tradeDaySummary(left)).toMatchObject({ trades: 1, premium: -600 });
    const premium = await ok('GET', '/metrics/premium-data');
    expect(premium.daily_income.find((d: { id: string }) => d.id === '2026-02-09').np).toBe(-600);
  });

  it('dashboard and pulse: a split spread is one trade opened, as entered, also after a leg is partially closed (QA)', async () => {
    // A user of its own, so the dashboard's periods hold these trades alone.
    const trader = await signInAs(t);
    const call = async (method: 'GET' | 'POST', path: string, payload?: unknown) => {
      const r = await t.app.inject({ method, url: url(path), headers: { authorization: trader.authorization }, ...(payload !== undefined ? { payload: payload as object } : {}) });
      expect(r.statusCode, r.body).toBeLessThan(300);
      return r.json();
    };
    const acct = (await call('POST', '/accounts/add-account', { name: 'Spreads', broker: 'ibkr', ac_type: 1 })).uid;
    // QA's example on 2 contracts: a Bull Put Spread 500/490 opened Tuesday 17 February for a credit of 400 (delta
    // 0.15, expiring 20 March: 31 days), split on 19 February: leg 2 (the 490 put, bought for 200) sold for 120,
    // leg 1 (the 500 put, sold for 600) kept open.
    const spread = await call('POST', '/trades/add-trade', {
      trade_data: {
        ticker: 'IWM', strategy_uid: 'bull-put-spread', account_uid: acct, strike_prices: [500, 490], trade_open_date: '2026-02-17', expiration_date: '2026-03-20',
        contract_size: 2, premium_at_open: 400, net_fee_to_open: 2.6, net_delta: 0.15, stock_price_at_open: 510, notes: '',
      },
      tag_data: [],
    });
    const split = await call('POST', `/trades/split-trade/${spread.uid}`, {
      trade_data: { closing_trade: { leg_index: 1, premium_at_open: 200, status: 2, trade_close_date: '2026-02-19', premium_at_close: 120, net_fee_to_close: 1.3, close_transaction: 1 }, opening_trade: { premium_at_open: 600 } },
      tag_data: [],
    });
    expect([split.closed_trade.su, split.open_trade.su]).not.toContain('bull-put-spread');
    await settle();
    const dashboard = async () => {
      const body = await call('GET', '/metrics/premium-data');
      const days = Object.fromEntries(body.daily_income.map((d: { id: string }) => [d.id, d]));
      return { body, days };
    };
    const pulse = async () => call('GET', '/trades/tt/IWM?timeframe=3');

    let { body, days } = await dashboard();
    // 17 February: one trade opened, the spread (delta 0.15 once, 31 days); premium the legs' -200 + 600 = 400.
    expect(days['2026-02-17']).toMatchObject({ np: 400, otc: 1, nd: 0.15, nep: 31, ctc: 0, sg: { 'bull-put-spread': 1 } });
    expect(Object.keys(days['2026-02-17'].sg)).toEqual(['bull-put-spread']);
    // 19 February: the long put leg closed (+120), as itself; nothing opened.
    expect(days['2026-02-19']).toMatchObject({ np: 120, otc: 0, ctc: 1, npc: -80 });
    // The last 30 days: 1 opened (delta 0.15, 31 days to expiry), 1 closed; Strategies: the Bull Put Spread alone.
    expect(body.periods.m.metrics).toMatchObject({ premium: 520, opened: 1, closed: 1, delta: 0.15, avg_days_to_expiry: 31 });
    expect(body.breakdowns.m.strategies).toEqual([{ key: 'bull-put-spread', count: 1 }]);
    expect(body.lifetime).toMatchObject({ premium: 520, delta: 0.15, opened: 1, closed: 1 });
    // Pulse, IWM over the month: the same.
    expect(await pulse()).toMatchObject({ premium: 520, quadrant: { opened: 1, closed: 1 }, gauges: { delta: 0.15, avg_days_to_expiry: 31 } });

    // The open leg bought back 1 contract of 2 on 20 February for 100: its remainder is no other trade opened,
    // and both legs are still there: still one spread opened on 17 February (premium -200 + 300 + 300).
    const partial = await call('POST', `/trades/close/${split.open_trade.uid}`, { contract_size: 1, trade_close_date: '2026-02-20', premium_at_close: 100, net_fee_to_close: 0.65, close_transaction: 2 });
    expect(partial.remaining_trade.uid).toBeTruthy();
    await settle();
    ({ body, days } = await dashboard());
    expect(days['2026-02-17']).toMatchObject({ np: 400, otc: 1, nd: 0.15, nep: 31, sg: { 'bull-put-spread': 1 } });
    expect(Object.keys(days['2026-02-17'].sg)).toEqual(['bull-put-spread']);
    expect(days['2026-02-20']).toMatchObject({ np: -100, otc: 0, ctc: 1, npc: 200 });
    expect(body.periods.m.metrics).toMatchObject({ premium: 420, opened: 1, closed: 2, delta: 0.15, avg_days_to_expiry: 31 });
    expect(body.breakdowns.m.strategies).toEqual([{ key: 'bull-put-spread', count: 1 }]);
    expect(await pulse()).toMatchObject({ premium: 420, quadrant: { opened: 1, closed: 2 }, gauges: { delta: 0.15, avg_days_to_expiry: 31 } });
  });

  it('a rebuild from empty equals the live read models, row by row', async () => {
    await appendJournal(store, smallJournal(`${me.userId}-a`, `${me.userId}-b`).events);
    await settle();
    const live = await dumpLive(t);
    expect(live.trades!.length).toBeGreaterThan(15);
    await rebuild(runtimeDeps(), 'trades');
    await settle();
    expect(await dumpLive(t)).toEqual(live);
  });

  it.runIf(adapter === 'postgres')('also after a projector process and a rebuild process were killed mid-way', async () => {
    await projector!.stop();
    projector = undefined;
    const env = { ...process.env, NODE_ENV: 'test', DATABASE_URL: t.db.url, REDIS_URL: '', PROJECTOR_LANES: '2', DATA_DIR: t.dataDir, PUBLIC_URL: 'http://journal.test', JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789', LOG_LEVEL: 'silent' };
    delete (env as Record<string, string | undefined>).REDIS_URL;
    const child = (args: string[]): ChildProcess => spawn(process.execPath, args, { env, stdio: 'ignore' });

    // A projector process applies while events keep arriving; it is killed with work still ahead.
    const projectorProcess = child(['services/src/projector.ts']);
    const journals = Array.from({ length: 12 }, (_, i) => smallJournal(`${me.userId}-k${i}`, `${me.userId}-x${i}`).events);
    for (const [i, events] of journals.entries()) {
      await appendJournal(store, events);
      if (i === 6) {
        projectorProcess.kill('SIGKILL');
        await once(projectorProcess, 'exit');
      }
    }
    // A fresh projector picks up from the checkpoints.
    projector = await start();
    await settle();
    const live = await dumpLive(t);

    // A rebuild process killed once it has written part of the next version; the next rebuild resumes it.
    const rebuildProcess = child(['projections/src/cli.ts', 'rebuild', 'trades', '--batch-size', '20']);
    for (let i = 0; i < 400; i++) {
      const r = await sql<{ done: number }>`select coalesce(max(events_done), 0)::int as done from projection_rebuilds where projection = 'trades' and finished_at is null`.execute(t.db.db);
      if (Number(r.rows[0]?.done) > 0 || rebuildProcess.exitCode !== null) break;
      await new Promise((res) => setTimeout(res, 25));
    }
    rebuildProcess.kill('SIGKILL');
    await once(rebuildProcess, 'exit').catch(() => undefined);
    // The killed process's session (and its advisory lock) ends when the server notices the dead socket.
    let resumed: Awaited<ReturnType<typeof rebuild>> | undefined;
    for (let i = 0; !resumed; i++) {
      try {
        resumed = await rebuild(runtimeDeps(), 'trades');
      } catch (e) {
        if (!(e instanceof RebuildLockedError) || i > 300) throw e;
        await new Promise((res) => setTimeout(res, 100));
      }
    }
    expect(resumed[0]?.switched).toBe(true);
    await settle();
    expect(await dumpLive(t)).toEqual(live);
  });
});
