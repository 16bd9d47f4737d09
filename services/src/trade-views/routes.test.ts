import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tradeDaySummary, tradesByDateResponse, type TradeDaySection, type TradeOfDay } from '@oj/contracts/trade-views';
import { signInAs, type TestApp } from '../identity/testing.ts';
import { TRADE_EXPORT_COLUMNS } from '@oj/contracts/trade-views';
import { csvTable } from '@oj/infra/testing/csv';
import { smallJournalApp } from './testing.ts';

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
/** The uids a trades-by-date answer lists under one section. */
const inSection = (day: TradeOfDay[], section: TradeDaySection) => uids(day.filter((t) => t.section === section));

beforeAll(async () => {
  // Monday 2 February 2026, 10:00 in New York.
  const { t: app, me, other } = await smallJournalApp('trade_views', '2026-02-02T15:00:00Z');
  t = app;
  const unverified = await signInAs(t, { verified: false });
  auth = me.authorization;
  otherAuth = other.authorization;
  unverifiedAuth = unverified.authorization;
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
    const by = Object.fromEntries(body.items.map((i: { uid: string }) => [i.uid, i]));
    // A: 1 of 3 contracts, its third of the 600 credit (200) and of the fee (1), bought back for 50 on
    // 7 January, before the 16 January expiry: npc 150, c 10,000, ROR 148 / 10,000 = 1.48, held 2,
    // ARR 1.48 x 365 / 2 = 270.10; an early exit.
    expect(by.A).toMatchObject({ cs: 1, pao: 200, pac: 50, npc: 150, nfto: 1, nftc: 1, c: 10000, ror: 1.48, aroc: 270.1, cg: null, do: 2, dis: 'Early Exit', rh: true });
    // A4: 2 contracts of the 90 put for 250, expired 30 January: npc 250, fees 2, c 18,000,
    // ROR 248 / 18,000 = 1.3778 -> 1.38, held 16, ARR 1.37778 x 365 / 16 = 31.43.
    expect(by.A4).toMatchObject({ status: 6, npc: 250, nfto: 2, nftc: 0, c: 18000, ror: 1.38, aroc: 31.43, cg: null, do: 16, dis: 'Expired' });
    // B1 (split leg, long 395 put): debit 50, sold 70: npc 20, fees 1.5 (half the spread's 3) + 1,
    // c = the debit 50, ROR 17.5 / 50 = 35, held 2, ARR 35 x 365 / 2 = 6,387.50.
    expect(by.B1).toMatchObject({ auid: 'B', ot: 2, ct: 1, npc: 20, nfto: 1.5, nftc: 1, c: 50, ror: 35, aroc: 6387.5, cg: null, do: 2, dis: 'Early Exit' });
    // B2 (naked 400 put) assigned: npc 200, c 40,000, ROR 198.5 / 40,000 = 0.49625 -> 0.5, held 10,
    // ARR 0.49625 x 365 / 10 = 18.11; assignment of a single short put realises no capital gain: 0.
    expect(by.B2).toMatchObject({ status: 4, npc: 200, nfto: 1.5, nftc: 0, c: 40000, ror: 0.5, aroc: 18.11, cg: 0, do: 10, dis: 'Assigned' });
    expect(by.C).toMatchObject({ dis: 'Called Away' });
    // D: long call scalp, -300 + 360 = 60, fees 2, c 300, ROR 19.33, one day for ARR: 7,056.67.
    expect(by.D).toMatchObject({ npc: 60, nfto: 1, nftc: 1, c: 300, ror: 19.33, aroc: 7056.67, do: 0, dis: 'Early Exit' });
  });

  it('rolled list, pagination and filters', async () => {
    const rolled = (await get('/trades/status/rolled')).json();
    expect(uids(rolled.items)).toEqual(['A3', 'A2']);
    expect(rolled).toMatchObject({ page: 1, pages: 1, size: 10, total: 2 });
    // A3: 2 contracts of the 95 put sold for 300 on 9 January, bought back for 40 on 14 January (rolled).
    // npc = 300 - 40 = 260; fees 2 + 2 = 4; c = 95 x 100 x 2 = 19,000; ROR = 256 / 19,000 x 100 = 1.3474 -> 1.35;
    // held 5 days; ARR = 1.347368 x 365 / 5 = 98.36.
    expect(rolled.items[0]).toMatchObject({ uid: 'A3', status: 3, rf: 'A2', cs: 2, pao: 300, pac: 40, ct: 2, npc: 260, nfto: 2, nftc: 2, c: 19000, ror: 1.35, aroc: 98.36, cg: null, do: 5, rh: true, dis: 'Rolled' });
    expect(uids((await get('/trades/status/open?ticker=AAPL&su=cash-secured-put&au=acct-1&sd=2026-01-20&ed=2026-01-20')).json().items)).toEqual(['F']);
    expect(uids((await get('/trades/status/rolled?sd=2026-01-10&ed=2026-02-02')).json().items)).toEqual(['A3']);
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
      ['sd=2026-01-01&ed=2026-02-03', 'End Date cannot be in the future'],
      // Both dates or neither.
      ['ed=2026-01-09', 'Start Date is required'],
      ['sd=2026-01-09', 'End Date is required'],
      // In the spec's order: a date in the future before the range's length or direction.
      ['sd=2025-01-01&ed=2030-01-01', 'End Date cannot be in the future'],
      ['sd=2026-02-03&ed=2026-01-01', 'Start Date cannot be in the future'],
    ];
    for (const [q, message] of cases) {
      const r = await get(`/trades/status/closed?${q}`);
      expect([q, r.statusCode, r.json().message]).toEqual([q, 422, message]);
    }
    // Every field's first failing rule is listed.
    expect((await get('/trades/status/open?sd=2026-02-03')).json().detail).toEqual([
      { field: 'querystring.sd', message: 'Start Date cannot be in the future' },
      { field: 'querystring.ed', message: 'End Date is required' },
    ]);
    // The expiring list has no start date: an end date alone is its filter.
    expect((await get('/trades/expiring?ed=2026-01-30')).statusCode).toBe(200);
    expect((await get('/trades/expiring?ed=2026-02-03')).json().message).toBe('End Date cannot be in the future');
    expect((await get('/trades/status/pending')).statusCode).toBe(422);
  });

  it.each([
    '/trades/status/open?page=0',
    '/trades/status/open?page=-1',
    '/trades/status/open?page=abc',
    '/trades/status/open?page=1.5',
    '/trades/status/open?page=1e300',
    '/trades/status/closed?size=0',
    '/trades/status/closed?size=abc',
    '/trades/status/closed?size=101',
    '/trades/status/rolled?ticker=TOOLONGX',
    '/trades/status/closed?sd=2025-02-30',
    '/trades/status/closed?ed=2026-01-32',
    '/trades/status/closed?sd=20260101',
    '/trades/status/open?au=' + 'x'.repeat(65),
    '/trades/expiring?page=0',
    '/trades/expiring?size=-5',
    '/trades/expiring?ed=2025-02-29',
    '/trades/expiring?page=99999999999999999999',
  ])('bad query %s is a 422, never a 500', async (path) => {
    const r = await get(path);
    expect(r.statusCode, r.body).toBe(422);
    expect(typeof r.json().message).toBe('string');
  });

  it('a page past the end is empty, with the true totals', async () => {
    expect((await get('/trades/status/closed?page=9&size=2')).json()).toEqual({ items: [], page: 9, pages: 3, size: 2, total: 6 });
    expect((await get('/trades/expiring?page=2')).json()).toEqual({ items: [], page: 2, pages: 1, size: 10, total: 1 });
  });

  it('expiring filters: ticker, account, strategy, and ed bounding the open date', async () => {
    // E: NVDA cash-secured put on acct-1, opened 12 January, expired 16 January, still open.
    expect(uids((await get('/trades/expiring?ticker=nvda&au=acct-1&su=cash-secured-put')).json().items)).toEqual(['E']);
    expect((await get('/trades/expiring?ticker=AAPL')).json().total).toBe(0);
    expect((await get('/trades/expiring?su=naked-put')).json().total).toBe(0);
    expect(uids((await get('/trades/expiring?ed=2026-01-12')).json().items)).toEqual(['E']);
    expect((await get('/trades/expiring?ed=2026-01-11')).json().total).toBe(0);
  });
});

describe('histories and trades by date', () => {
  it('roll history: the lineage tree, from the first trade', async () => {
    const r = await get('/trades/A3/roll-history');
    expect(r.statusCode).toBe(200);
    expect(r.json().roll_history).toEqual([
      { uid: 'A', rolled_from_uid: null, strike_prices: [100], premium_at_open: 200, premium_at_close: 50, expiration_date: '2026-01-16', trade_open_date: '2026-01-05', trade_close_date: '2026-01-07', status: 2, contract_size: 1, partial_of_uid: null, split_of_uid: null },
      { uid: 'A2', rolled_from_uid: 'A', strike_prices: [100], premium_at_open: 400, premium_at_close: 100, expiration_date: '2026-01-16', trade_open_date: '2026-01-05', trade_close_date: '2026-01-09', status: 3, contract_size: 2, partial_of_uid: 'A', split_of_uid: null },
      { uid: 'A3', rolled_from_uid: 'A2', strike_prices: [95], premium_at_open: 300, premium_at_close: 40, expiration_date: '2026-01-23', trade_open_date: '2026-01-09', trade_close_date: '2026-01-14', status: 3, contract_size: 2, partial_of_uid: null, split_of_uid: null },
      { uid: 'A4', rolled_from_uid: 'A3', strike_prices: [90], premium_at_open: 250, premium_at_close: 0, expiration_date: '2026-01-30', trade_open_date: '2026-01-14', trade_close_date: '2026-01-30', status: 6, contract_size: 2, partial_of_uid: null, split_of_uid: null },
    ]);
    expect(r.json().splits).toEqual([]);
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
    // Part 1 §7: a list of trades; each names the dialog section it belongs to.
    const body = tradesByDateResponse.parse(r.json());
    expect(Array.isArray(r.json())).toBe(true);
    expect(body.map((t) => [t.uid, t.section])).toEqual([['D', 'scalp'], ['B1', 'closed']]);
    // By hand: D's debit open -300 and credit close +360, B1's credit close +70; fees 1 + 1 + 1.
    expect(tradeDaySummary(body)).toEqual({ trades: 3, open_count: 0, scalp_count: 1, closed_count: 1, premium: 130, fees: 3, net: 127 });
    const jan5 = tradesByDateResponse.parse((await get('/trades/trade-by-date/2026-01-05')).json());
    // A was entered as one position of 3 contracts (issue 14): its closed part and remainder show as that trade.
    expect(inSection(jan5, 'open')).toEqual(['A']);
    expect(tradeDaySummary(jan5)).toMatchObject({ premium: 600, fees: 3 });
    // The spec's client shows this call's error from `detail`, as text.
    for (const bad of ['abc', '2026-1-8']) {
      const r = await get(`/trades/trade-by-date/${bad}`);
      expect([bad, r.statusCode, r.json()]).toEqual([bad, 422, { message: 'Date must be in YYYY-MM-DD format.', detail: 'Date must be in YYYY-MM-DD format.' }]);
    }
    // Well formed, but not on the calendar: said so, not that the format is wrong (QA).
    const noSuchDay = await get('/trades/trade-by-date/2026-02-30');
    expect([noSuchDay.statusCode, noSuchDay.json()]).toEqual([422, { message: 'Date 2026-02-30 does not exist on the calendar.', detail: 'Date 2026-02-30 does not exist on the calendar.' }]);
  });
});

describe('premium data and pulse', () => {
  it('premium data: daily records with the running total, and yearly income', async () => {
    const body = (await get('/metrics/premium-data')).json();
    // Every weekday of the window is answered (the running total needs them); these are the days with trades.
    const active = body.daily_income.filter((d: { otc: number; ctc: number }) => d.otc + d.ctc > 0);
    expect(active.map((d: { id: string }) => d.id)).toEqual([
      '2026-01-05', '2026-01-06', '2026-01-07', '2026-01-08', '2026-01-09', '2026-01-12', '2026-01-14', '2026-01-16', '2026-01-20', '2026-01-30',
    ]);
    expect(active[3]).toMatchObject({ income_date: '2026-01-08', np: 130, nf: 3, ctc: 2, iw: 2, net_premium_so_far: 600 + 150 + 450 + 130 });
    expect(body.daily_income.at(-1).net_premium_so_far).toBe(2260);
    expect(body.yearly_income).toEqual([{ year: 2026, income: 2260, realized: 1740, fees: 21, change: null }]);
  });

  it('premium data: every field of the records, hand-computed', async () => {
    const days = Object.fromEntries((await get('/metrics/premium-data')).json().daily_income.map((d: { id: string }) => [d.id, d]));
    const zero = { np: 0, nf: 0, nd: 0, nep: 0, otc: 0, ctc: 0, iw: 0, npc: 0, cpt: 0, cg: 0, hp: 0, pr: 0, ttf: 0, incap: 0, wdc: 0, tickers: {}, ct: {}, sg: {}, dg: {}, snpc: {}, tnpc: {} };
    const day = (date: string, over: Record<string, unknown>) => ({ id: date, income_date: date, ...zero, ...over });
    // 6 January: the spread B (150 credit, fee 3, delta 0.15, expiring in 10 days), split later into a long
    // 395 put (debit 50, fee 1.5) and a naked 400 put (credit 200, fee 1.5): one trade opened, the spread as
    // entered (its strategy, delta and days), while both legs are there; the premium is the legs' own.
    // np = -50 + 200 = 150; running total 600 (5 Jan) + 150.
    expect(days['2026-01-06']).toEqual(
      day('2026-01-06', { np: 150, nf: 3, nd: 0.15, nep: 10, otc: 1, tickers: { SPY: 150 }, sg: { 'bull-put-spread': 1 }, net_premium_so_far: 750 }),
    );
    // 9 January: A2 (2 contracts, 400 credit, fee 2, opened 5 Jan) bought back for 100 (fee 2) and rolled into
    // A3 (95 put, 300 credit, fee 2, delta 0.25, expiring 23 Jan: 14 days).
    // np = 300 - 100 = 200, nf = 2 + 2 = 4; A2: npc 300, win (300 - 4 > 0), capture 300 / 400 = 75, held 4,
    // fees 4, collateral 100 x 200 = 20,000, x 4 days = 80,000. Running total 600 + 150 + 450 + 130 + 200 = 1,530.
    expect(days['2026-01-09']).toEqual(
      day('2026-01-09', {
        np: 200, nf: 4, nd: 0.25, nep: 14, otc: 1, ctc: 1, iw: 1, npc: 300, cpt: -100, hp: 4, pr: 75, ttf: 4, incap: 20000, wdc: 80000,
        tickers: { AAPL: 200 }, ct: { AAPL: 1 }, sg: { 'cash-secured-put': 1 }, dg: { Rolled: 1 },
        snpc: { 'cash-secured-put': { npc: 300, count: 1, iw: 1, dis: { Rolled: 1 } } },
        tnpc: { AAPL: { npc: 300, count: 1, iw: 1, pr: 75, cg: 0, hp: 4, cs: 2 } },
        net_premium_so_far: 1530,
      }),
    );
    // 14 January: A3 bought back for 40 (fee 2) and rolled into A4 (90 put, 250 credit, fee 2, delta 0.2, 16 days).
    // np = 250 - 40 = 210; A3: npc 260, capture 260 / 300 = 86.67, held 5, fees 4, collateral 19,000 (x 5 = 95,000).
    // Running total 1,530 + 120 (E on 12 Jan) + 210 = 1,860.
    expect(days['2026-01-14']).toEqual(
      day('2026-01-14', {
        np: 210, nf: 4, nd: 0.2, nep: 16, otc: 1, ctc: 1, iw: 1, npc: 260, cpt: -40, hp: 5, pr: 86.67, ttf: 4, incap: 19000, wdc: 95000,
        tickers: { AAPL: 210 }, ct: { AAPL: 1 }, sg: { 'cash-secured-put': 1 }, dg: { Rolled: 1 },
        snpc: { 'cash-secured-put': { npc: 260, count: 1, iw: 1, dis: { Rolled: 1 } } },
        tnpc: { AAPL: { npc: 260, count: 1, iw: 1, pr: 86.67, cg: 0, hp: 5, cs: 2 } },
        net_premium_so_far: 1860,
      }),
    );
    // 16 January: B2 assigned (npc 200, fees 1.5, held 10, collateral 40,000, capital gain 0) and C called away
    // (npc 500, fees 1, held 9, collateral 30,000, capital gain (320 - 300) x 100 = 2,000); both neutral closes
    // at 0 with no fee: np 0. Capture 200 / 200 = 100 and 500 / 500 = 100. wdc 400,000 + 270,000.
    expect(days['2026-01-16']).toEqual(
      day('2026-01-16', {
        ctc: 2, iw: 2, npc: 700, cg: 2000, hp: 19, pr: 200, ttf: 2.5, incap: 70000, wdc: 670000,
        tickers: { MSFT: 0, SPY: 0 }, ct: { MSFT: 1, SPY: 1 }, dg: { Assigned: 1, 'Called Away': 1 },
        snpc: { 'covered-call': { npc: 500, count: 1, iw: 1, dis: { 'Called Away': 1 } }, 'naked-put': { npc: 200, count: 1, iw: 1, dis: { Assigned: 1 } } },
        tnpc: { MSFT: { npc: 500, count: 1, iw: 1, pr: 100, cg: 2000, hp: 9, cs: 1 }, SPY: { npc: 200, count: 1, iw: 1, pr: 100, cg: 0, hp: 10, cs: 1 } },
        net_premium_so_far: 1860,
      }),
    );
    // 20 January: F opened (400 credit, fee 1, delta 0.25, expiring 20 March: 59 days). Running total 2,260.
    expect(days['2026-01-20']).toEqual(day('2026-01-20', { np: 400, nf: 1, nd: 0.25, nep: 59, otc: 1, tickers: { AAPL: 400 }, sg: { 'cash-secured-put': 1 }, net_premium_so_far: 2260 }));
    // 30 January: A4 expired worthless: npc 250, open fee 2 only, held 16, collateral 18,000 (x 16 = 288,000), capture 100.
    expect(days['2026-01-30']).toEqual(
      day('2026-01-30', {
        ctc: 1, iw: 1, npc: 250, hp: 16, pr: 100, ttf: 2, incap: 18000, wdc: 288000,
        tickers: { AAPL: 0 }, ct: { AAPL: 1 }, dg: { Expired: 1 },
        snpc: { 'cash-secured-put': { npc: 250, count: 1, iw: 1, dis: { Expired: 1 } } },
        tnpc: { AAPL: { npc: 250, count: 1, iw: 1, pr: 100, cg: 0, hp: 16, cs: 2 } },
        net_premium_so_far: 2260,
      }),
    );
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
    // Fees paid in the timeframe: open fees 1 (A) + 2 (A2) + 2 (A3) + 2 (A4) + 1 (F), close fees 1 + 2 + 2 + 0.
    expect(body.quadrant.fees).toBe(13);
    expect(uids(body.open_trades)).toEqual(['F']);
    expect(uids(body.closed_trades)).toEqual(['A4', 'A3', 'A2', 'A']);
    // MONTH (last 30 days: from 4 January) and QUARTER (90 days: from 5 November) hold the same AAPL trades.
    const { from: _f, timeframe: _t, covered: _c, ...figures } = body;
    expect((await get('/trades/tt/AAPL?timeframe=3')).json()).toEqual({ ...figures, timeframe: 3, from: '2026-01-04', covered: expect.any(Array) });
    expect((await get('/trades/tt/AAPL?timeframe=4')).json()).toEqual({ ...figures, timeframe: 4, from: '2025-11-05', covered: expect.any(Array) });
    // DAY: nothing today.
    expect((await get('/trades/tt/AAPL?timeframe=1')).json()).toEqual({
      ticker: 'AAPL', timeframe: 1, from: '2026-02-02', to: '2026-02-02', premium: 0,
      gauges: { win_rate: null, ror: null, arr: null, capture_rate: null, delta: null, avg_days_to_expiry: null, avg_days_held: null },
      quadrant: { net_premium: 0, net_profit_loss: 0, fees: 0, capital_gain: 0, opened: 0, closed: 0, wins: 0 },
      income_by_strategy: [], disposition: [], open_trades: [], closed_trades: [], covered: [expect.objectContaining({ timeframe: 1 }), expect.objectContaining({ timeframe: 2 })],
    });
    // MSFT: C covered call, called away with a 2,000 capital gain; SPY: the split legs, one open trade none.
    expect((await get('/trades/tt/MSFT?timeframe=5')).json()).toMatchObject({
      premium: 500,
      gauges: { win_rate: 100, ror: 1.66, arr: 67.46, capture_rate: 100, delta: 0.4, avg_days_to_expiry: 9, avg_days_held: 9 },
      quadrant: { net_premium: 500, net_profit_loss: 499, fees: 1, capital_gain: 2000, opened: 1, closed: 1, wins: 1 },
      income_by_strategy: [{ su: 'covered-call', npc: 500, count: 1 }],
      disposition: [{ disposition: 'Called Away', count: 1 }],
    });
    // The week (from Monday 2 February) has nothing.
    expect((await get('/trades/tt/AAPL?timeframe=2')).json()).toMatchObject({ from: '2026-02-02', premium: 0, open_trades: [], closed_trades: [] });
  });

  it.each(['/trades/tt/AAPL?timeframe=6', '/trades/tt/AAPL', '/trades/tt/AAPL?timeframe=x', '/trades/tt/AA$L?timeframe=1', '/trades/tt/', '/trades/tt', '/trades/tt/?timeframe=1', '/trades/tt/%20?timeframe=1', '/trades/tt/TOOLONG?timeframe=1', '/trades/tt/AAPL?timeframe=0', '/trades/tt/AAPL?timeframe=2.5'])('pulse rejects %s', async (path) => {
    const r = await get(path);
    expect(r.statusCode).toBe(422);
    expect(r.json().message).toBe('Invalid ticker or timeframe');
  });
});

describe('scoping', () => {
  it("another user sees only their own trades, and a foreign uid is 404", async () => {
    expect(uids((await get('/trades/status/open', otherAuth)).json().items)).toEqual(['X']);
    expect((await get('/trades/status/closed', otherAuth)).json().total).toBe(0);
    expect((await get('/trades/status/rolled', otherAuth)).json()).toEqual({ items: [], page: 1, pages: 0, size: 10, total: 0 });
    expect((await get('/trades/status/closed?ticker=AAPL', otherAuth)).json().total).toBe(0);
    expect((await get('/trades/expiring?ticker=NVDA', otherAuth)).json().total).toBe(0);
    expect((await get('/trades/tt/NVDA?timeframe=5', otherAuth)).json()).toMatchObject({ premium: 0, open_trades: [], closed_trades: [] });
    // And user A does not see B's X (999 credit) anywhere.
    expect(uids((await get('/trades/trade-by-date/2026-01-08')).json())).toEqual(['D', 'B1']);
    // X expired on 30 January and is still open.
    expect(uids((await get('/trades/expiring', otherAuth)).json().items)).toEqual(['X']);
    expect((await get('/trades/A3/roll-history', otherAuth)).statusCode).toBe(404);
    expect((await get('/trades/X/roll-history')).statusCode).toBe(404);
    expect((await get('/trades/B/ancestor', otherAuth)).statusCode).toBe(404);
    const day = (await get('/trades/trade-by-date/2026-01-08', otherAuth)).json();
    expect(day.map((t: TradeOfDay) => [t.uid, t.section, t.pao])).toEqual([['X', 'open', 999]]);
    expect((await get('/metrics/premium-data', otherAuth)).json().daily_income.filter((d: { otc: number }) => d.otc > 0)).toHaveLength(1);
    expect((await get('/metrics/premium-data?days=sums', otherAuth)).json().daily_income.filter((d: { otc: number; np: number }) => d.otc > 0).map((d: { np: number }) => d.np)).toEqual([999]);
    expect((await get('/trades/tt/AAPL?timeframe=5', otherAuth)).json()).toMatchObject({ premium: 999, closed_trades: [] });
  });

  it('an expired subscription locks the lists and pulse (403, the spec text) and keeps the data: the dashboard, days and histories still answer, and renewing opens the lists again', async () => {
    const lapsed = await signInAs(t);
    const setEnd = async (end: string) => {
      await t.db.db.updateTable('subscriptions').set({ current_period_end: new Date(end) }).where('user_uid', '=', lapsed.userId).execute();
      await t.app.principals.settled();
    };
    await setEnd('2026-01-01T00:00:00Z');
    const locked = ['/trades/status/open', '/trades/status/closed', '/trades/status/rolled', '/trades/expiring', '/trades/tt/AAPL?timeframe=5', '/trades/status/closed/export', '/trades/status/open?sd=bad'];
    for (const path of locked) {
      const r = await get(path, lapsed.authorization);
      expect([path, r.statusCode, r.json().message]).toEqual([path, 403, 'Your subscription has expired, please renew']);
    }
    for (const path of ['/metrics/premium-data', '/metrics/premium-data?days=sums', '/trades/trade-by-date/2026-01-08', '/trades/upcoming-expirations']) {
      expect([path, (await get(path, lapsed.authorization)).statusCode]).toEqual([path, 200]);
    }
    await setEnd('2026-03-01T00:00:00Z');
    for (const path of locked.slice(0, 6)) expect([path, (await get(path, lapsed.authorization)).statusCode]).toEqual([path, 200]);
  });

  it.each(['/trades/status/open', '/trades/status/closed/export', '/trades/expiring', '/trades/A/roll-history', '/trades/B/ancestor', '/trades/trade-by-date/2026-01-08', '/metrics/premium-data', '/metrics/premium-data?days=sums', '/trades/tt/AAPL?timeframe=1'])(
    '%s needs a verified user',
    async (path) => {
      expect((await t.app.inject({ method: 'GET', url: api(path) })).statusCode).toBe(401);
      expect((await get(path, unverifiedAuth)).statusCode).toBe(403);
    },
  );
});

describe('a status list as a CSV file', () => {
  /** The export's records keyed by column, the header checked. */
  const exported = async (path: string, authorization = auth) => {
    const r = await get(path, authorization);
    expect(r.statusCode, r.body).toBe(200);
    const { header, rows } = csvTable(r.body.replace(/^\uFEFF/, ''));
    expect(header).toEqual([...TRADE_EXPORT_COLUMNS]);
    return { r, rows };
  };

  it('holds the whole closed list, in its order, with the figures worked out by hand', async () => {
    const { r, rows } = await exported('/trades/status/closed/export');
    expect(r.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(r.headers['content-disposition']).toBe('attachment; filename="closed-trades-2026-02-02.csv"');
    expect(r.headers['cache-control']).toBe('no-store');
    // Every closed trade, as the list orders them, whatever page of the list the console was on.
    expect(rows.map((x) => x['Trade ID'])).toEqual(['A4', 'C', 'B2', 'D', 'B1', 'A']);
    expect((await exported('/trades/status/closed/export?page=2&size=1')).rows.map((x) => x['Trade ID'])).toEqual(['A4', 'C', 'B2', 'D', 'B1', 'A']);
    // A: 1 of 3 contracts sold for a third of 600 (200) and of the fee (1), bought back for 50 (fee 1) on
    // 7 January: net 150, collateral 100 x 100 = 10,000, ROR 148 / 10,000 = 1.48 %, held 2 days.
    expect(rows.find((x) => x['Trade ID'] === 'A')).toMatchObject({
      Ticker: 'AAPL', Strategy: 'Cash-Secured Put', Account: 'acct-1', Status: 'Closed', Disposition: 'Early Exit', 'Open Date': '2026-01-05', 'Expiration Date': '2026-01-16',
      'Close Date': '2026-01-07', Strikes: '100', Contracts: '1', 'Open Transaction': 'Credit', 'Premium at Open': '200', 'Fee to Open': '1', 'Close Transaction': 'Debit',
      'Premium at Close': '50', 'Fee to Close': '1', 'Net Premium': '150', Collateral: '10000', 'ROR %': '1.48', 'ARR %': '270.1', 'Days Held': '2',
    });
    // B1, the split's long leg: bought for 50 (a debit), sold for 70: net 20.
    expect(rows.find((x) => x['Trade ID'] === 'B1')).toMatchObject({ 'Open Transaction': 'Debit', 'Close Transaction': 'Credit', 'Premium at Open': '50', 'Premium at Close': '70', 'Net Premium': '20' });
    // A4, 2 contracts of the 90 put sold for 250, expired worthless on 30 January: its status by name.
    expect(rows.find((x) => x['Trade ID'] === 'A4')).toMatchObject({ Status: 'Expired Worthless', Disposition: 'Expired', 'Net Premium': '250', 'Close Transaction': 'Neutral' });
  });

  it("takes the list's filters and date rules, and names the range in the file", async () => {
    const { rows } = await exported('/trades/status/open/export?ticker=AAPL&su=cash-secured-put&au=acct-1&sd=2026-01-20&ed=2026-01-20');
    expect(rows.map((x) => x['Trade ID'])).toEqual(['F']);
    const named = await get('/trades/status/closed/export?sd=2026-01-01&ed=2026-01-31');
    expect(named.headers['content-disposition']).toBe('attachment; filename="closed-trades-2026-01-01-to-2026-01-31-2026-02-02.csv"');
    // E carries its edited note.
    expect((await exported('/trades/status/open/export')).rows.find((x) => x['Trade ID'] === 'E')).toMatchObject({ Notes: 'earnings', 'Premium at Open': '120' });
    // The list's own answer to a half range, word for word.
    const bad = await get('/trades/status/open/export?sd=2026-02-03');
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail).toEqual((await get('/trades/status/open?sd=2026-02-03')).json().detail);
    expect((await get('/trades/status/nope/export')).statusCode).toBe(422);
  });

  it("holds only the caller's trades", async () => {
    const mine = new Set(['A', 'A2', 'A3', 'A4', 'B1', 'B2', 'C', 'D', 'E', 'F']);
    for (const status of ['open', 'closed', 'rolled']) {
      const { rows } = await exported(`/trades/status/${status}/export`, otherAuth);
      expect(rows.filter((x) => mine.has(x['Trade ID']!)), status).toEqual([]);
      expect(rows.every((x) => x['Trade ID'] === 'X'), status).toBe(true);
    }
    expect((await exported('/trades/status/open/export', otherAuth)).rows.map((x) => x['Trade ID'])).toEqual(['X']);
    expect((await exported('/trades/status/open/export')).rows.map((x) => x['Trade ID'])).toEqual(['F', 'E']);
  });
});
