import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { premiumDataResponse, premiumDataSumsResponse } from '@oj/contracts/trade-views';
import { physicalTables } from '@oj/projections/runtime/projection';
import { premiumDataJson } from '@oj/projections/daily-premium/queries';
import { tradesProjection } from '@oj/projections/trades/projection';
import { asTables } from '@oj/projections/trades/tables';
import { smallJournal } from '@oj/projections/trades/testing';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';
import { liveTradeViews, smallJournalApp } from './testing.ts';

/**
 * GET /metrics/premium-data as the dashboard reads it: every weekday with the running total, the period
 * figures, the M / YTD / Y breakdowns, months, top tickers and the open trades snapshot, over the small
 * journal of projections/src/trades/testing.ts. Every expected figure is worked out by hand from that
 * journal's trades in the comments (docs/formulas.md has the per-trade arithmetic).
 */
let t: TestApp;
let auth: string;
let otherAuth: string;
let emptyAuth: string;
let emptyUser: string;

const get = (path: string, authorization = auth) => t.app.inject({ method: 'GET', url: `/api/v1${path}`, headers: { authorization } });

beforeAll(async () => {
  // Monday 2 February 2026, 10:00 in New York.
  const { t: app, me, other } = await smallJournalApp('premium_data', '2026-02-02T15:00:00Z');
  t = app;
  const empty = await signInAs(t);
  auth = me.authorization;
  otherAuth = other.authorization;
  emptyAuth = empty.authorization;
  emptyUser = empty.userId;
});
afterAll(async () => {
  await t?.close();
});

/**
 * Weekdays from `from` to `to`, counted one by one: by default the window's, 1 January 2024 (two years
 * before 2026) to 2 February 2026.
 */
function weekdaysOfWindow(from = '2024-01-01', to = '2026-02-02'): string[] {
  const out: string[] = [];
  for (let d = new Date(`${from}T00:00:00Z`); d <= new Date(`${to}T00:00:00Z`); d = new Date(d.getTime() + 86_400_000)) {
    if (d.getUTCDay() !== 0 && d.getUTCDay() !== 6) out.push(d.toISOString().slice(0, 10));
  }
  return out;
}

describe('GET /metrics/premium-data for the dashboard', () => {
  it('answers every weekday of the window with the running total, not only days with trades', async () => {
    const r = await get('/metrics/premium-data');
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = r.json();
    // The body is built as text: it must still be exactly the contract's shape.
    expect(premiumDataResponse.parse(body)).toEqual(body);
    expect(body.as_of).toBe('2026-02-02');
    // No trade falls on a weekend, so the days are exactly the window's weekdays.
    expect(body.daily_income.map((d: { id: string }) => d.id)).toEqual(weekdaysOfWindow());
    const by = Object.fromEntries(body.daily_income.map((d: { id: string }) => [d.id, d]));
    // Before the first trade the total is 0; on a quiet Tuesday it carries the Monday's: 5 Jan 600, 6 Jan +150,
    // 7 Jan +450, 8 Jan +130, 9 Jan +200, 12 Jan +120 (E) = 1,650, and 13 January adds nothing.
    expect(by['2025-12-31']).toMatchObject({ np: 0, net_premium_so_far: 0, tickers: {} });
    expect(by['2026-01-13']).toMatchObject({ np: 0, otc: 0, ctc: 0, net_premium_so_far: 1650 });
    expect(by['2026-02-02']).toMatchObject({ np: 0, net_premium_so_far: 2260 });
  });

  it('computes the quadrant periods and their changes', async () => {
    const { periods } = (await get('/metrics/premium-data')).json();
    // Today (Monday 2 Feb) nothing; the previous weekday is Friday 30 January: A4 expired, np 0.
    expect(periods.today).toMatchObject({ from: '2026-02-02', to: '2026-02-02', totals: { np: 0 } });
    expect(periods.prev_day).toMatchObject({ from: '2026-01-30', to: '2026-01-30', totals: { np: 0, ctc: 1, npc: 250 } });
    expect(periods.week).toMatchObject({ from: '2026-02-02', to: '2026-02-02' });
    expect(periods.prev_week).toMatchObject({ from: '2026-01-26', to: '2026-02-01', totals: { np: 0, ctc: 1 } });
    // This month (from 1 Feb) nothing; all of January's premium is the previous month: 2,260.
    expect(periods.month.totals.np).toBe(0);
    expect(periods.prev_month).toMatchObject({ from: '2026-01-01', to: '2026-01-31', totals: { np: 2260 } });
    expect(periods.year).toMatchObject({ from: '2026-01-01', totals: { np: 2260 } });
    expect(periods.prev_year).toMatchObject({ from: '2025-01-01', to: '2025-12-31', totals: { np: 0 } });
    // Rolling periods: M from 4 January (30 days), Y from 3 February 2025, previous YTD to 2 February 2025.
    expect(periods.m).toMatchObject({ from: '2026-01-04', to: '2026-02-02' });
    expect(periods.prev_m).toMatchObject({ from: '2025-12-05', to: '2026-01-03', totals: { np: 0 } });
    expect(periods.y.from).toBe('2025-02-03');
    expect(periods.prev_ytd).toMatchObject({ from: '2025-01-01', to: '2025-02-02' });
    // Changes (part 2 §9): today 0 against 0 is 0; this month 0 against 2,260 is -100%; this year against
    // an empty year has none; a ratio without a denominator on either side has none.
    expect(periods.today.changes).toMatchObject({ premium: 0, realized: (0 - 250) / 250 * 100, win_rate: null });
    expect(periods.month.changes).toMatchObject({ premium: -100 });
    expect(periods.year.changes).toMatchObject({ premium: null, win_rate: null });
    expect(periods.prev_month.changes).toBeNull();
  });

  it('computes the performance metrics and gauges of a period by hand', async () => {
    const { periods, lifetime } = (await get('/metrics/premium-data')).json();
    // Closed in January: A, B1, D, A2, A3, B2, C, A4 = 8, all kept money after fees: win rate 100.
    // Fees of the closed trades 2 + 2.5 + 2 + 4 + 4 + 1.5 + 1 + 2 = 19; npc 150 + 20 + 60 + 300 + 260 + 200 + 500 + 250 = 1,740;
    // collateral 10,000 + 50 + 300 + 20,000 + 19,000 + 40,000 + 30,000 + 18,000 = 137,350: ROR 1,721 / 137,350 = 1.253 -> 1.25.
    // Days held x collateral: 20,000 + 100 + 0 + 80,000 + 95,000 + 400,000 + 270,000 + 288,000 = 1,153,100, average 8.3953 days:
    // ARR 1.2530 x 365 / 8.3953 = 54.48. Hold days (2 + 2 + 0 + 4 + 5 + 10 + 9 + 16) / 8 = 6.
    // Opened: A, B, C, D, A3, E, A4, F = 8 (A2 is A's remainder; B is one bull put spread as entered, though split
    // into two legs), deltas 0.3 + 0.15 + 0.4 + 0.5 + 0.25 + 0.2 + 0.2 + 0.25 = 2.25: 2.25 / 8 = 0.28125 -> 0.28.
    // Retention (winners' capture rates) 75 + 28.57 + 16.67 + 75 + 86.67 + 100 + 100 + 100 = 581.91 / 8 = 72.74.
    // Days to expiry at open 11 + 10 + 9 + 43 + 14 + 4 + 16 + 59 = 166 / 8 = 20.75.
    const expected = {
      premium: 2260, realized: 1740, fees: 21, net_profit_loss: 1721, capital_gain: 2000, opened: 8, closed: 8, wins: 8,
      win_rate: 100, ror: 1.25, arr: 54.48, delta: 0.28, retention: 72.74, hold_days: 6, avg_days_to_expiry: 20.75,
    };
    expect(periods.m.metrics).toEqual(expected);
    expect(periods.ytd.metrics).toEqual(expected);
    expect(periods.y.metrics).toEqual(expected);
    expect(periods.m.totals).toMatchObject({ iw: 8, ctc: 8, otc: 8, nd: 2.25, nep: 166, npc: 1740, ttf: 19, incap: 137350, wdc: 1153100, hp: 48 });
    // Nothing a year ago: every ratio has no denominator.
    expect(periods.prev_ytd.metrics).toMatchObject({ premium: 0, win_rate: null, ror: null, arr: null, delta: null, retention: null, hold_days: null });
    // Lifetime premium: every day's np (realized 1,740 + the open E 120 and F 400), no capital gains or fees;
    // delta: the eight opened trades' deltas, 2.25 (above).
    expect(lifetime).toEqual({ premium: 2260, realized: 1740, fees: 21, delta: 2.25, opened: 8, closed: 8, wins: 8, unique_tickers: 5 });
  });

  it('breaks the M / YTD / Y periods down by ticker, strategy, disposition and flow', async () => {
    const { breakdowns } = (await get('/metrics/premium-data')).json();
    const m = breakdowns.m;
    // Closed per ticker: AAPL A, A2, A3, A4 (npc 960); SPY B1, B2 (220); MSFT C (500); TSLA D (60).
    expect(m.tickers).toEqual([
      { ticker: 'AAPL', count: 4, npc: 960, iw: 4 },
      { ticker: 'SPY', count: 2, npc: 220, iw: 2 },
      { ticker: 'MSFT', count: 1, npc: 500, iw: 1 },
      { ticker: 'TSLA', count: 1, npc: 60, iw: 1 },
    ]);
    // Opened per strategy: cash-secured puts A, A3, A4, E, F; one each of the rest (G was deleted): B is the bull
    // put spread it was entered as, not the long put and naked put it was split into.
    expect(m.strategies).toEqual([
      { key: 'cash-secured-put', count: 5 },
      { key: 'bull-put-spread', count: 1 },
      { key: 'covered-call', count: 1 },
      { key: 'long-call', count: 1 },
    ]);
    // A, B1 and D closed before expiry: early exits; A2, A3 rolled; B2 assigned; C called away; A4 expired.
    expect(m.dispositions).toEqual([
      { key: 'Early Exit', count: 3 },
      { key: 'Rolled', count: 2 },
      { key: 'Assigned', count: 1 },
      { key: 'Called Away', count: 1 },
      { key: 'Expired', count: 1 },
    ]);
    expect(m.flows).toEqual([
      { su: 'cash-secured-put', disposition: 'Rolled', count: 2 },
      { su: 'cash-secured-put', disposition: 'Early Exit', count: 1 },
      { su: 'cash-secured-put', disposition: 'Expired', count: 1 },
      { su: 'covered-call', disposition: 'Called Away', count: 1 },
      { su: 'long-call', disposition: 'Early Exit', count: 1 },
      { su: 'long-put', disposition: 'Early Exit', count: 1 },
      { su: 'naked-put', disposition: 'Assigned', count: 1 },
    ]);
    expect(breakdowns.ytd).toEqual(m);
    expect(breakdowns.y).toEqual(m);
  });

  it('answers 12 months, the top tickers of three years and the open trades snapshot', async () => {
    const body = (await get('/metrics/premium-data')).json();
    expect(body.monthly_income.map((m: { month: string }) => m.month)).toEqual([
      '2025-03', '2025-04', '2025-05', '2025-06', '2025-07', '2025-08', '2025-09', '2025-10', '2025-11', '2025-12', '2026-01', '2026-02',
    ]);
    // Twelve months whatever the month's length (counting 335 days back gave 13 in December, March, ...).
    const tables = asTables(physicalTables(tradesProjection, tradesProjection.version));
    for (const [today, first] of [['2026-12-04', '2026-01'], ['2026-03-31', '2025-04'], ['2026-01-01', '2025-02'], ['2024-02-29', '2023-03'], ['2026-11-30', '2025-12']] as const) {
      const months = premiumDataResponse.parse(JSON.parse(await premiumDataJson(t.db.db, tables, emptyUser, today))).monthly_income.map((m) => m.month);
      expect(months, today).toHaveLength(12);
      expect([months[0], months[11]], today).toEqual([first, today.slice(0, 7)]);
    }
    expect(body.monthly_income[10]).toEqual({ month: '2026-01', np: 2260, npc: 1740, nf: 21, otc: 8, ctc: 8, iw: 8 });
    expect(body.monthly_income[0]).toEqual({ month: '2025-03', np: 0, npc: 0, nf: 0, otc: 0, ctc: 0, iw: 0 });
    expect(body.top_tickers).toEqual([
      {
        year: 2026,
        tickers: [
          { ticker: 'AAPL', npc: 960, count: 4, iw: 4, cg: 0 },
          { ticker: 'MSFT', npc: 500, count: 1, iw: 1, cg: 2000 },
          { ticker: 'SPY', npc: 220, count: 2, iw: 2, cg: 0 },
          { ticker: 'TSLA', npc: 60, count: 1, iw: 1, cg: 0 },
        ],
      },
      { year: 2025, tickers: [] },
      { year: 2024, tickers: [] },
    ]);
    // Open: E (NVDA 50 put, 120 credit, expired 16 Jan, still open) and F (AAPL 180 put, 400 credit, 20 March):
    // E is within 7 days (past); F is the next to expire from today.
    expect(body.open_trades).toEqual({
      count: 2, premium: 520, expiring_in_7_days: 1, tickers: 2,
      next: [{ uid: 'F', ticker: 'AAPL', su: 'cash-secured-put', ed: '2026-03-20', tod: '2026-01-20', premium: 400, cs: 1 }],
    });
  });

  it('shows a user only their own figures, and an empty journal as zeros', async () => {
    const other = (await get('/metrics/premium-data', otherAuth)).json();
    // X: one AAPL put opened 8 January for 999, still open.
    expect(other.lifetime).toEqual({ premium: 999, realized: 0, fees: 1, delta: 0.3, opened: 1, closed: 0, wins: 0, unique_tickers: 1 });
    expect(other.periods.prev_month.totals.np).toBe(999);
    expect(other.open_trades).toMatchObject({ count: 1, premium: 999, next: [] });
    expect(other.top_tickers.flatMap((y: { tickers: unknown[] }) => y.tickers)).toEqual([]);
    expect(other.breakdowns.m).toEqual({ tickers: [], strategies: [{ key: 'cash-secured-put', count: 1 }], dispositions: [], flows: [] });

    const empty = (await get('/metrics/premium-data', emptyAuth)).json();
    expect(empty.daily_income).toHaveLength(weekdaysOfWindow().length);
    expect(empty.daily_income.every((d: { np: number; net_premium_so_far: number }) => d.np === 0 && d.net_premium_so_far === 0)).toBe(true);
    expect(empty.yearly_income).toEqual([]);
    expect(empty.lifetime).toEqual({ premium: 0, realized: 0, fees: 0, delta: 0, opened: 0, closed: 0, wins: 0, unique_tickers: 0 });
    expect(empty.periods.y.metrics).toMatchObject({ premium: 0, win_rate: null, arr: null });
    expect(empty.open_trades).toEqual({ count: 0, premium: 0, expiring_in_7_days: 0, tickers: 0, next: [] });
    expect(premiumDataResponse.parse(empty)).toEqual(empty);
  });

  it('answers a changed day at once (parsed maps kept between requests are only reused for the same stored text)', async () => {
    const before = (await get('/metrics/premium-data', otherAuth)).json();
    expect(before.breakdowns.y.strategies).toEqual([{ key: 'cash-secured-put', count: 1 }]);
    // The other user's 8 January record recomputed as if X had been a naked put (what a projection batch writes).
    const tables = physicalTables(tradesProjection, tradesProjection.version);
    const D = sql.table((tables as Record<string, string>).daily_premium!);
    await sql`update ${D} set sg = '{"naked-put": 1}'::json where income_date = '2026-01-08' and np = 999`.execute(t.db.db);
    const after = (await get('/metrics/premium-data', otherAuth)).json();
    expect(after.breakdowns.y.strategies).toEqual([{ key: 'naked-put', count: 1 }]);
    await sql`update ${D} set sg = '{"cash-secured-put": 1}'::json where income_date = '2026-01-08' and np = 999`.execute(t.db.db);
  });

  it('computes the changes from the exact figures, not the rounded ones (QA)', async () => {
    // A user of their own: two day records, one in the 30 days before M, one in M (today 2030-06-14).
    const { userId } = await signInAs(t);
    const tables = asTables(physicalTables(tradesProjection, tradesProjection.version));
    const day = (date: string, f: { npc: number; ttf: number; incap: number; ctc: number; iw: number; otc: number; nd: number }) =>
      sql`insert into ${sql.table(tables.daily_premium)} (user_id, income_date, np, nf, nd, nep, otc, ctc, iw, npc, cpt, cg, hp, pr, ttf, incap, wdc, tickers, ct, sg, dg, snpc, tnpc)
        values (${userId}, ${date}, ${f.npc}, ${f.ttf}, ${f.nd}, 0, ${f.otc}, ${f.ctc}, ${f.iw}, ${f.npc}, 0, 0, ${f.ctc}, 0, ${f.ttf}, ${f.incap}, ${f.incap}, '{}', '{}', '{}', '{}', '{}', '{}')`.execute(t.db.db);
    // Before: net -3.30 on 40,500 of collateral (ROR -0.0081%, shown -0.01); delta 0.4 over 2 opened (0.20).
    await day('2030-05-06', { npc: 0, ttf: 3.3, incap: 40_500, ctc: 2, iw: 1, otc: 2, nd: 0.4 });
    // M: net 1,885.60 on 280,250 (ROR 0.6728%, shown 0.67); delta 1.38 over 5 opened (0.276, shown 0.28).
    await day('2030-06-10', { npc: 1_900, ttf: 14.4, incap: 280_250, ctc: 4, iw: 4, otc: 5, nd: 1.38 });
    const body = premiumDataResponse.parse(JSON.parse(await premiumDataJson(t.db.db, tables, userId, '2030-06-14')));
    expect(body.periods.m.metrics).toMatchObject({ ror: 0.67, delta: 0.28 });
    expect(body.periods.prev_m.metrics).toMatchObject({ ror: -0.01, delta: 0.2 });
    const rorNow = (1_885.6 / 280_250) * 100;
    const rorBefore = (-3.3 / 40_500) * 100;
    // By hand: (0.672827 + 0.008148) / 0.008148 x 100 = 8,357.4, and delta (0.276 - 0.2) / 0.2 x 100 = 38;
    // from the rounded figures they would read 6,800 and 40.
    expect(body.periods.m.changes).toMatchObject({ ror: Math.round(((rorNow - rorBefore) / Math.abs(rorBefore)) * 10_000) / 100, delta: 38 });
  });

  it('starts the days at the first weekday when the window opens on a weekend (1 January 2028 is a Saturday)', async () => {
    const tables = asTables(physicalTables(tradesProjection, tradesProjection.version));
    const body = premiumDataResponse.parse(JSON.parse(await premiumDataJson(t.db.db, tables, emptyUser, '2030-01-07')));
    const days = body.daily_income.map((d) => d.income_date);
    expect(days[0]).toBe('2028-01-03');
    expect(days).toEqual(weekdaysOfWindow('2028-01-01', '2030-01-07'));
  });

  it('answers the same on PGlite, the embedded default, as on PostgreSQL', async () => {
    // The same journal, for users of an embedded app (`npm start`): the answer must not depend on the
    // database (PGlite's own type parsers must give the dates and sums back as pg's do).
    const embedded = await createTestApp({ pglite: true, now: '2026-02-02T15:00:00Z' });
    try {
      const me = await signInAs(embedded);
      const other = await signInAs(embedded);
      await liveTradeViews(embedded.db.db, smallJournal(me.userId, other.userId).events);
      const answer = async (app: TestApp, authorization: string) => {
        const r = await app.app.inject({ method: 'GET', url: '/api/v1/metrics/premium-data', headers: { authorization } });
        expect(r.statusCode).toBe(200);
        return r.body;
      };
      const embeddedBody = await answer(embedded, me.authorization);
      expect(JSON.parse(embeddedBody).lifetime).toMatchObject({ premium: 2260, realized: 1740, opened: 8, closed: 8, delta: 2.25 });
      expect(embeddedBody).toBe(await answer(t, auth));
      // Parsed: the test before rewrote one of this user's stored maps by hand, with other spacing.
      expect(JSON.parse(await answer(embedded, other.authorization))).toEqual(JSON.parse(await answer(t, otherAuth)));
    } finally {
      await embedded.close();
    }
  });

  it('answers each day without its maps when asked for ?days=sums, every other figure as the full answer', async () => {
    const full = (await get('/metrics/premium-data')).json();
    const r = await get('/metrics/premium-data?days=sums');
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    const sums = r.json();
    // Exactly the contract's shape, not a day with a map left over.
    expect(premiumDataSumsResponse.strict().parse(sums)).toEqual(sums);
    // The full answer's days with the six maps taken off by hand, in the same order and with the same sums.
    const mapKeys = new Set(['tickers', 'ct', 'sg', 'dg', 'snpc', 'tnpc']);
    const withoutMaps = full.daily_income.map((d: Record<string, unknown>) => Object.fromEntries(Object.entries(d).filter(([k]) => !mapKeys.has(k))));
    expect(sums.daily_income).toEqual(withoutMaps);
    expect(Object.keys(sums.daily_income[0]).sort()).toEqual(
      ['id', 'income_date', 'net_premium_so_far', 'np', 'nf', 'nd', 'nep', 'otc', 'ctc', 'iw', 'npc', 'cpt', 'cg', 'hp', 'pr', 'ttf', 'incap', 'wdc'].sort(),
    );
    // 12 January's day: E closed for 120 (its maps are in the full answer only).
    expect(full.daily_income.find((d: { id: string }) => d.id === '2026-01-12').tickers).not.toEqual({});
    expect(sums.daily_income.find((d: { id: string }) => d.id === '2026-01-12')).toMatchObject({ np: 120, net_premium_so_far: 1650 });
    // The breakdowns are still summed from the stored maps: everything but the days is the full answer.
    const { daily_income: _d1, ...fullRest } = full;
    const { daily_income: _d2, ...sumsRest } = sums;
    expect(sumsRest).toEqual(fullRest);
    expect(sumsRest.breakdowns.y.tickers.length).toBeGreaterThan(0);
    // ?days=full is the default's answer.
    expect((await get('/metrics/premium-data?days=full')).body).toBe((await get('/metrics/premium-data')).body);
  });

  it.each(['days=', 'days=maps', 'days=SUMS', 'days=sums%00', 'days=sums&days=full'])('refuses ?%s with 422 and what days may be', async (query) => {
    const r = await get(`/metrics/premium-data?${query}`);
    expect([r.statusCode, r.json().message]).toEqual([422, 'days must be full or sums.']);
  });

  it("answers ?days=sums with the user's own days only", async () => {
    const other = premiumDataSumsResponse.parse((await get('/metrics/premium-data?days=sums', otherAuth)).json());
    // X: the other user's one trade, 999 opened on 8 January; none of this user's 2,260.
    expect(other.daily_income.filter((d) => d.np !== 0).map((d) => [d.id, d.np, d.otc])).toEqual([['2026-01-08', 999, 1]]);
    expect(other.daily_income.at(-1)!.net_premium_so_far).toBe(999);
  });

  it('needs a verified user', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/metrics/premium-data' })).statusCode).toBe(401);
  });
});
