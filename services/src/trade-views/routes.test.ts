import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { physicalTables } from '@oj/projections/runtime/projection';
import { tradesProjection } from '@oj/projections/trades/projection';
import { smallJournal } from '@oj/projections/trades/testing';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';

/**
 * The queries over the small journal of projections/src/trades/testing.ts, projected straight into
 * the live tables (the projector is exercised in its own tests). Figures are hand-computed; see
 * docs/formulas.md for the arithmetic.
 */
let t: TestApp;
let auth: string;
let otherAuth: string;
let unverifiedAuth: string;

const api = (path: string) => `/api/v1${path}`;
const get = async (path: string, authorization = auth) => t.app.inject({ method: 'GET', url: api(path), headers: { authorization } });
const uids = (items: Array<{ uid: string }>) => items.map((i) => i.uid);

beforeAll(async () => {
  // Monday 2 February 2026, 10:00 in New York.
  t = await createTestApp({ label: 'trade_views', now: '2026-02-02T15:00:00Z' });
  const me = await signInAs(t);
  const other = await signInAs(t);
  const unverified = await signInAs(t, { verified: false });
  auth = me.authorization;
  otherAuth = other.authorization;
  unverifiedAuth = unverified.authorization;
  const tables = physicalTables(tradesProjection, tradesProjection.version);
  const db = t.db.db;
  await tradesProjection.createTables(db, tables);
  await db
    .insertInto('projection_registry')
    .values({ name: tradesProjection.name, version: tradesProjection.version, code_version: tradesProjection.version, status: 'live', lanes: 1, tables: JSON.stringify(tables) })
    .execute();
  const log = smallJournal(me.userId, other.userId);
  await db.transaction().execute((trx) => tradesProjection.apply({ trx, tables, mode: 'live' }, log.events));
});
afterAll(async () => {
  await t?.close();
});

describe('status lists and expiring', () => {
  it('open list: newest open date first, days open counted to today', async () => {
    const r = await get('/trades/status/open');
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(uids(body.items)).toEqual(['F', 'E']);
    expect(body).toMatchObject({ page: 1, pages: 1, size: 10, total: 2 });
    expect(body.items[1]).toMatchObject({ uid: 'E', pao: 120, notes: 'earnings', do: 21, c: 5000, npc: null, status: 1, rh: false });
  });

  it('closed list: every finished status but rolled, newest close date first, with figures', async () => {
    const body = (await get('/trades/status/closed')).json();
    expect(uids(body.items)).toEqual(['A4', 'C', 'B2', 'D', 'B1', 'A']);
    expect(body.total).toBe(6);
    const c = body.items.find((i: { uid: string }) => i.uid === 'C');
    expect(c).toMatchObject({ status: 5, npc: 500, c: 30000, ror: 1.66, aroc: 67.46, cg: 2000, do: 9, nftc: 0 });
  });

  it('rolled list, pagination and filters', async () => {
    expect(uids((await get('/trades/status/rolled')).json().items)).toEqual(['A3', 'A2']);
    const p2 = (await get('/trades/status/closed?page=2&size=2')).json();
    expect(p2).toMatchObject({ page: 2, pages: 3, size: 2, total: 6 });
    expect(uids(p2.items)).toEqual(['B2', 'D']);
    expect(uids((await get('/trades/status/closed?ticker=aapl')).json().items)).toEqual(['A4', 'A']);
    expect(uids((await get('/trades/status/closed?su=long-put')).json().items)).toEqual(['B1']);
    expect(uids((await get('/trades/status/closed?au=acct-1&sd=2026-01-08&ed=2026-01-16')).json().items)).toEqual(['C', 'B2', 'D', 'B1']);
    expect((await get('/trades/status/closed?au=nope')).json()).toMatchObject({ items: [], total: 0, pages: 0 });
  });

  it('expiring: open trades within 7 days or already expired, soonest first', async () => {
    const body = (await get('/trades/expiring')).json();
    expect(uids(body.items)).toEqual(['E']);
    expect(body.total).toBe(1);
  });

  it('answers the date filter rules with the spec messages', async () => {
    const cases: Array<[string, string]> = [
      ['sd=2026-01-10&ed=2026-01-09', 'End Date must be on or after Start Date'],
      ['sd=2025-01-01&ed=2026-01-09', 'Date range cannot exceed one year'],
      ['sd=2026-02-03', 'Start Date cannot be in the future'],
      ['ed=2026-02-03', 'End Date cannot be in the future'],
    ];
    for (const [q, message] of cases) {
      const r = await get(`/trades/status/closed?${q}`);
      expect(r.statusCode).toBe(422);
      expect(r.json().message).toBe(message);
    }
    expect((await get('/trades/status/pending')).statusCode).toBe(422);
  });
});

describe('histories and trades by date', () => {
  it('roll history: the lineage tree, from the first trade', async () => {
    const r = await get('/trades/A3/roll-history');
    expect(r.statusCode).toBe(200);
    expect(r.json().roll_history).toEqual([
      { uid: 'A', rolled_from_uid: null, strike_prices: [100], premium_at_open: 200, premium_at_close: 50, expiration_date: '2026-01-16', trade_open_date: '2026-01-05', trade_close_date: '2026-01-07', status: 2, contract_size: 1 },
      { uid: 'A2', rolled_from_uid: 'A', strike_prices: [100], premium_at_open: 400, premium_at_close: 100, expiration_date: '2026-01-16', trade_open_date: '2026-01-05', trade_close_date: '2026-01-09', status: 3, contract_size: 2 },
      { uid: 'A3', rolled_from_uid: 'A2', strike_prices: [95], premium_at_open: 300, premium_at_close: 40, expiration_date: '2026-01-23', trade_open_date: '2026-01-09', trade_close_date: '2026-01-14', status: 3, contract_size: 2 },
      { uid: 'A4', rolled_from_uid: 'A3', strike_prices: [90], premium_at_open: 250, premium_at_close: 0, expiration_date: '2026-01-30', trade_open_date: '2026-01-14', trade_close_date: '2026-01-30', status: 6, contract_size: 2 },
    ]);
  });

  it('split history: the ancestor genes and its legs', async () => {
    const r = await get('/trades/B/ancestor');
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body).toMatchObject({ auid: 'B', su: 'bull-put-spread', gene: { tod: '2026-01-06', ed: '2026-01-16', cs: 1, pao: 150, cause: 'Leg 2 closed, Leg 1 remains open.' } });
    expect(uids(body.trades)).toEqual(['B1', 'B2']);
    expect(body.trades[0]).toMatchObject({ su: 'long-put', npc: 20, ror: 35, aroc: 6387.5, auid: 'B' });
  });

  it('trades by date: open, scalp and closed sections; a scalp counts twice; credits add, debits subtract', async () => {
    const r = await get('/trades/trade-by-date/2026-01-08');
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(uids(body.open_trades)).toEqual([]);
    expect(uids(body.scalp_trades)).toEqual(['D']);
    expect(uids(body.closed_trades)).toEqual(['B1']);
    expect(body.summary).toEqual({ trades: 3, open_count: 0, scalp_count: 1, closed_count: 1, premium: 130, fees: 3, net: 127 });
    const jan5 = (await get('/trades/trade-by-date/2026-01-05')).json();
    expect(uids(jan5.open_trades)).toEqual(['A', 'A2']);
    expect(jan5.summary).toMatchObject({ premium: 600, fees: 3 });
    expect((await get('/trades/trade-by-date/2026-02-30')).statusCode).toBe(422);
  });
});

describe('premium data and pulse', () => {
  it('premium data: daily records with the running total, and yearly income', async () => {
    const body = (await get('/metrics/premium-data')).json();
    expect(body.daily_income.map((d: { id: string }) => d.id)).toEqual([
      '2026-01-05', '2026-01-06', '2026-01-07', '2026-01-08', '2026-01-09', '2026-01-12', '2026-01-14', '2026-01-16', '2026-01-20', '2026-01-30',
    ]);
    expect(body.daily_income[3]).toMatchObject({ income_date: '2026-01-08', np: 130, nf: 3, ctc: 2, iw: 2, net_premium_so_far: 600 + 150 + 450 + 130 });
    expect(body.daily_income.at(-1).net_premium_so_far).toBe(2260);
    expect(body.yearly_income).toEqual([{ year: 2026, income: 2260, realized: 1740, fees: 21, change: null }]);
  });

  it('pulse: one ticker over a timeframe, computed like the daily records', async () => {
    const r = await get('/trades/tt/aapl?timeframe=5');
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body).toMatchObject({
      ticker: 'AAPL',
      timeframe: 5,
      from: '2026-01-01',
      to: '2026-02-02',
      premium: 1360,
      gauges: { win_rate: 100, ror: 1.41, arr: 71.64, capture_rate: 84.17, delta: 0.25, avg_days_to_expiry: 25, avg_days_held: 6.75 },
      quadrant: { net_premium: 1360, net_profit_loss: 948, capital_gain: 0, opened: 4, closed: 4, wins: 4 },
      income_by_strategy: [{ su: 'cash-secured-put', name: 'Cash-Secured Put', npc: 960, count: 4 }],
      disposition: [
        { disposition: 'Early Exit', count: 1 },
        { disposition: 'Expired', count: 1 },
        { disposition: 'Rolled', count: 2 },
      ],
    });
    expect(uids(body.open_trades)).toEqual(['F']);
    expect(uids(body.closed_trades)).toEqual(['A4', 'A3', 'A2', 'A']);
    // The week (from Monday 2 February) has nothing.
    expect((await get('/trades/tt/AAPL?timeframe=2')).json()).toMatchObject({ from: '2026-02-02', premium: 0, open_trades: [], closed_trades: [] });
  });

  it.each(['/trades/tt/AAPL?timeframe=6', '/trades/tt/AAPL', '/trades/tt/AAPL?timeframe=x', '/trades/tt/AA$L?timeframe=1', '/trades/tt/'])('pulse rejects %s', async (path) => {
    const r = await get(path);
    expect(r.statusCode).toBe(422);
    expect(r.json().message).toBe('Invalid ticker or timeframe');
  });
});

describe('scoping', () => {
  it("another user sees only their own trades, and a foreign uid is 404", async () => {
    expect(uids((await get('/trades/status/open', otherAuth)).json().items)).toEqual(['X']);
    expect((await get('/trades/status/closed', otherAuth)).json().total).toBe(0);
    // X expired on 30 January and is still open.
    expect(uids((await get('/trades/expiring', otherAuth)).json().items)).toEqual(['X']);
    expect((await get('/trades/A3/roll-history', otherAuth)).statusCode).toBe(404);
    expect((await get('/trades/X/roll-history')).statusCode).toBe(404);
    expect((await get('/trades/B/ancestor', otherAuth)).statusCode).toBe(404);
    const day = (await get('/trades/trade-by-date/2026-01-08', otherAuth)).json();
    expect(uids(day.open_trades)).toEqual(['X']);
    expect(day.summary).toMatchObject({ trades: 1, premium: 999 });
    expect((await get('/metrics/premium-data', otherAuth)).json().daily_income).toHaveLength(1);
    expect((await get('/trades/tt/AAPL?timeframe=5', otherAuth)).json()).toMatchObject({ premium: 999, closed_trades: [] });
  });

  it.each(['/trades/status/open', '/trades/expiring', '/trades/A/roll-history', '/trades/B/ancestor', '/trades/trade-by-date/2026-01-08', '/metrics/premium-data', '/trades/tt/AAPL?timeframe=1'])(
    '%s needs a verified user',
    async (path) => {
      expect((await t.app.inject({ method: 'GET', url: api(path) })).statusCode).toBe(401);
      expect((await get(path, unverifiedAuth)).statusCode).toBe(403);
    },
  );
});
