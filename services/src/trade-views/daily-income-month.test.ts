import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dailyIncomeMonthResponse } from '@oj/contracts/trade-views';
import type { TestApp } from '../identity/testing.ts';
import { smallJournalApp } from './testing.ts';

/**
 * GET /metrics/daily-income?month=: a month of a journal kept for years, before the premium data's window
 * (1 January two years back), which the income calendar reads for those months (QA 74: December 2022
 * showed "0 active days", $0.00, while the trader had 20 active days). The small journal's trades are in
 * January 2026; today here is Friday 2 February 2029, so the window starts on 1 January 2027.
 */
let t: TestApp;
let auth: string;
let otherAuth: string;

const get = (path: string, authorization = auth) => t.app.inject({ method: 'GET', url: `/api/v1${path}`, headers: { authorization } });

beforeAll(async () => {
  const { t: app, me, other } = await smallJournalApp('daily_income_month', '2029-02-02T15:00:00Z');
  t = app;
  auth = me.authorization;
  otherAuth = other.authorization;
});
afterAll(async () => {
  await t?.close();
});

describe('GET /metrics/daily-income for a month before the premium data window', () => {
  it('the premium data does not reach January 2026 here: the month answers it, every weekday, with the days worked out by hand', async () => {
    const window = (await get('/metrics/premium-data')).json();
    expect(window.daily_income[0].income_date).toBe('2027-01-01');

    const r = await get('/metrics/daily-income?month=2026-01');
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(dailyIncomeMonthResponse.parse(body)).toEqual(body);
    expect(body.month).toBe('2026-01');
    // The 22 weekdays of January 2026 (no trade falls on a weekend).
    const weekdays = Array.from({ length: 31 }, (_, i) => `2026-01-${String(i + 1).padStart(2, '0')}`).filter((d) => ![0, 6].includes(new Date(`${d}T00:00:00Z`).getUTCDay()));
    expect(body.daily_income.map((d: { income_date: string }) => d.income_date)).toEqual(weekdays);
    const np = Object.fromEntries(body.daily_income.filter((d: { np: number }) => d.np !== 0).map((d: { income_date: string; np: number }) => [d.income_date, d.np]));
    // As premium-data.test.ts works them out: 5 Jan 600, 6 Jan 150, 7 Jan 450, 8 Jan 130, 9 Jan 200, 12 Jan 120 (1,650),
    // and the rest of the month 610 more (2,260 in all, every bit of it in January).
    expect(np).toMatchObject({ '2026-01-05': 600, '2026-01-06': 150, '2026-01-07': 450, '2026-01-08': 130, '2026-01-09': 200, '2026-01-12': 120 });
    expect(body.daily_income.reduce((s: number, d: { np: number }) => s + d.np, 0)).toBeCloseTo(2260, 2);
    // The running total runs from the month's first day.
    expect(body.daily_income.find((d: { income_date: string }) => d.income_date === '2026-01-13').net_premium_so_far).toBe(1650);
  });

  it("another user's month is their own, a month with nothing is its weekdays at zero, and a month after today stops at today", async () => {
    const other = (await get('/metrics/daily-income?month=2026-01', otherAuth)).json();
    // The other user's one trade: X, 999 opened on 8 January.
    expect(other.daily_income.filter((d: { np: number }) => d.np !== 0).map((d: { income_date: string; np: number }) => [d.income_date, d.np])).toEqual([['2026-01-08', 999]]);
    const quiet = (await get('/metrics/daily-income?month=2025-12')).json();
    expect(quiet.daily_income).toHaveLength(23);
    expect(quiet.daily_income.every((d: { np: number; otc: number }) => d.np === 0 && d.otc === 0)).toBe(true);
    expect((await get('/metrics/daily-income?month=2029-02')).json().daily_income.map((d: { income_date: string }) => d.income_date)).toEqual(['2029-02-01', '2029-02-02']);
    expect((await get('/metrics/daily-income?month=2029-03')).json()).toEqual({ month: '2029-03', daily_income: [] });
  });

  it('refuses a month that is not one with a 422 naming the format, and a request without a session with 401', async () => {
    for (const bad of ['2026-13', '2026-1', 'december', '2026-01-05', '0999-12', '']) {
      const r = await get(`/metrics/daily-income?month=${encodeURIComponent(bad)}`);
      expect([bad, r.statusCode, r.json().message]).toEqual([bad, 422, 'month must be a month as YYYY-MM (e.g. 2022-12).']);
    }
    expect((await get('/metrics/daily-income')).statusCode).toBe(422);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/metrics/daily-income?month=2026-01' })).statusCode).toBe(401);
  });
});
