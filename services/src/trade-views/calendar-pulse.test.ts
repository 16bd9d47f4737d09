import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smallJournal, terms } from '@oj/projections/trades/testing';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';
import { liveTradeViews } from './testing.ts';

/**
 * The events calendar's upcoming expirations and the pulse ticker rule (issue 12), over the small
 * journal plus a few open trades around the 60-day window. Today is Monday 2 February 2026 (New York).
 */
let t: TestApp;
let auth: string;
let otherAuth: string;
let unverifiedAuth: string;

const get = async (path: string, authorization = auth) => t.app.inject({ method: 'GET', url: `/api/v1${path}`, headers: { authorization } });

beforeAll(async () => {
  t = await createTestApp({ label: 'calendar_pulse', now: '2026-02-02T15:00:00Z' });
  const me = await signInAs(t);
  const other = await signInAs(t);
  auth = me.authorization;
  otherAuth = other.authorization;
  unverifiedAuth = (await signInAs(t, { verified: false })).authorization;
  const log = smallJournal(me.userId, other.userId);
  const open = (user: string, id: string, o: Parameters<typeof terms>[0]) =>
    log.append(user, id, { type: 'TradeOpened', data: { tradeId: id, lineageId: id, terms: terms({ openDate: '2026-01-26', ...o }) } });
  open(me.userId, 'H', { ticker: 'SPY', contractSize: 2, premiumAtOpen: 150, expirationDate: '2026-02-02' });
  open(me.userId, 'I', { ticker: 'TSLA', strategyUid: 'long-call', openTransaction: 2, premiumAtOpen: 300, expirationDate: '2026-02-06' });
  open(me.userId, 'J', { ticker: 'QQQ', premiumAtOpen: 120, expirationDate: '2026-02-06' });
  open(me.userId, 'K', { ticker: 'IWM', premiumAtOpen: 90, expirationDate: '2026-04-03' });
  open(me.userId, 'L', { ticker: 'DIA', premiumAtOpen: 70, expirationDate: '2026-04-04' });
  open(other.userId, 'Y', { ticker: 'QQQ', premiumAtOpen: 555, expirationDate: '2026-02-06' });
  // ZZZ: seven credit strategies, each expired worthless on 30 January (npc = the premium kept).
  const kept: [string, number[], number][] = [
    ['cash-secured-put', [100], 700],
    ['covered-call', [110], 600],
    ['naked-call', [120], 500],
    ['naked-put', [90], 400],
    ['short-straddle', [100, 100], 300],
    ['bull-put-spread', [100, 95], 200],
    ['bear-call-spread', [100, 105], 100],
  ];
  for (const [su, sp, pao] of kept) {
    const id = `Z-${su}`;
    open(me.userId, id, { ticker: 'ZZZ', strategyUid: su, strikePrices: sp, premiumAtOpen: pao, openDate: '2026-01-20', expirationDate: '2026-01-30' });
    log.append(me.userId, id, {
      type: 'TradeClosed',
      data: { tradeId: id, close: { closeAction: 'expireWorthless', closeDate: '2026-01-30', contractsClosed: 1, premiumAtClose: 0, netFeeToClose: 0, closeTransaction: 3 }, closedPart: { premiumAtOpen: pao, netFeeToOpen: 1 }, remainder: null },
    });
  }
  await liveTradeViews(t.db.db, log.events);
});
afterAll(async () => {
  await t?.close();
});

describe('upcoming expirations (/calendar/events)', () => {
  it("groups the user's open trades by expiration date, today to 60 days ahead, soonest first", async () => {
    const r = await get('/trades/upcoming-expirations');
    expect(r.statusCode).toBe(200);
    const body = r.json();
    // 2 February + 60 days = 3 April (February 2026 has 28 days). E expired on 16 January: not upcoming;
    // L (4 April) is one day past the window; closed trades (A4, B2, C...) are never listed.
    expect({ from: body.from, to: body.to }).toEqual({ from: '2026-02-02', to: '2026-04-03' });
    expect(body.days.map((d: { date: string; trades: { uid: string }[] }) => [d.date, d.trades.map((x) => x.uid)])).toEqual([
      ['2026-02-02', ['H']],
      ['2026-02-06', ['I', 'J']],
      ['2026-03-20', ['F']],
      ['2026-04-03', ['K']],
    ]);
    // Credits add, debits subtract: 6 February is -300 (I, long call) + 120 (J) = -180.
    expect(body.days.map((d: { count: number; contracts: number; premium: number }) => [d.count, d.contracts, d.premium])).toEqual([
      [1, 2, 150],
      [2, 2, -180],
      [1, 1, 400],
      [1, 1, 90],
    ]);
  });

  it("shows another user only their own trades", async () => {
    const body = (await get('/trades/upcoming-expirations', otherAuth)).json();
    // X expired on 30 January; Y is theirs.
    expect(body.days).toEqual([expect.objectContaining({ date: '2026-02-06', count: 1, premium: 555, trades: [expect.objectContaining({ uid: 'Y', ticker: 'QQQ' })] })]);
  });

  it('needs a verified user', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/trades/upcoming-expirations' })).statusCode).toBe(401);
    expect((await get('/trades/upcoming-expirations', unverifiedAuth)).statusCode).toBe(403);
  });
});

describe('pulse ticker rule (part 2 §5: 1 to 5 letters or digits, like the form)', () => {
  it.each(['ABCDEF', 'AAPL12', 'BRK.B', 'A-B'])('refuses %s with the spec message', async (ticker) => {
    const r = await get(`/trades/tt/${encodeURIComponent(ticker)}?timeframe=5`);
    expect(r.statusCode).toBe(422);
    expect(r.json().message).toBe('Invalid ticker or timeframe');
  });

  it.each(['A', 'SPY', 'QQQ1', 'ABCDE', 'aapl'])('accepts %s (upper-cased)', async (ticker) => {
    const r = await get(`/trades/tt/${ticker}?timeframe=5`);
    expect(r.statusCode).toBe(200);
    expect(r.json().ticker).toBe(ticker.toUpperCase());
  });
});

describe('pulse income by strategy (part 2 §2: top 5 plus Other)', () => {
  it('keeps the five best strategies by premium captured and groups the rest as Other', async () => {
    const body = (await get('/trades/tt/ZZZ?timeframe=5')).json();
    expect(body.income_by_strategy.map((s: { name: string; npc: number; count: number }) => [s.name, s.npc, s.count])).toEqual([
      ['Cash-Secured Put', 700, 1],
      ['Covered Call', 600, 1],
      ['Naked Call', 500, 1],
      ['Naked Put', 400, 1],
      ['Short Straddle', 300, 1],
      ['Other', 200 + 100, 2],
    ]);
    expect(body.disposition).toEqual([{ disposition: 'Expired', count: 7 }]);
  });
});

describe('pulse re-filter data (part 2 §4)', () => {
  it('carries the figures of every timeframe inside the requested window, equal to fetching each', async () => {
    // On Monday 2 February 2026: DAY and WEEK start today, MONTH on 4 January, YTD on 1 January and
    // QUARTER on 5 November: YTD covers DAY, WEEK and MONTH but not QUARTER; QUARTER covers all five.
    const ytd = (await get('/trades/tt/AAPL?timeframe=5')).json();
    expect(ytd.covered.map((c: { timeframe: number }) => c.timeframe)).toEqual([1, 2, 3, 5]);
    const quarter = (await get('/trades/tt/AAPL?timeframe=4')).json();
    expect(quarter.covered.map((c: { timeframe: number }) => c.timeframe)).toEqual([1, 2, 3, 4, 5]);
    const day = (await get('/trades/tt/AAPL?timeframe=1')).json();
    // On a Monday the week is the day: equal windows cover each other.
    expect(day.covered.map((c: { timeframe: number }) => c.timeframe)).toEqual([1, 2]);
    for (const tf of [1, 2, 3, 5]) {
      const direct = (await get(`/trades/tt/AAPL?timeframe=${tf}`)).json();
      const { ticker: _t, open_trades: _o, closed_trades: _c, covered: _v, ...figures } = direct;
      expect(ytd.covered.find((c: { timeframe: number }) => c.timeframe === tf)).toEqual(figures);
      expect(quarter.covered.find((c: { timeframe: number }) => c.timeframe === tf)).toEqual(figures);
    }
    // The YTD headline, by hand (docs/formulas.md): A 600 + A3 300 + A4 250 + F 400 opened, A closed
    // for -50, A2 -100, A3 -40: 1,360; the month (from 4 January) loses nothing of it.
    expect(ytd.covered.find((c: { timeframe: number }) => c.timeframe === 3).premium).toBe(1360);
  });
});
