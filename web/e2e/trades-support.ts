import type { Page } from 'playwright-core';
import { addDays, isWeekend, newYorkDate } from '@oj/contracts/business-date';
import type { E2eServer } from './support/server.ts';

/**
 * A signed-in trader for the trade tests: signs up and verifies through the real API and mail file,
 * adds trade accounts through the API, then signs in through the sign-in page like a person would.
 */
export interface Trader {
  email: string;
  password: string;
  accounts: { uid: string; name: string }[];
  /** For setting up data through the API (the browser signs in on its own). */
  accessToken: string;
}

async function json<T>(res: Response): Promise<T> {
  const body = (await res.json()) as T;
  if (!res.ok) throw new Error(`${res.status}: ${JSON.stringify(body)}`);
  return body;
}

export async function createTrader(server: E2eServer, accountNames: string[]): Promise<Trader> {
  const email = `sam.trader.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = 'Wheel#2024a';
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.baseUrl}/api/v1${path}`, { ...init, headers: { 'content-type': 'application/json', ...(init.headers ?? {}) } });
  await json(await api('/users/signup', { method: 'POST', body: JSON.stringify({ name: 'Sam Trader', email, password, agreed_to_terms: true }) }));
  const link = await server.waitForLink('/users/account-verify', { to: email });
  const token = new URL(link).searchParams.get('token');
  await json(await api(`/users/verify/${token}`));
  const { access_token } = await json<{ access_token: string }>(await api('/users/login', { method: 'POST', body: JSON.stringify({ email, password }) }));
  const accounts: Trader['accounts'] = [];
  for (const name of accountNames) {
    const a = await json<{ uid: string; name: string }>(
      await api('/accounts/add-account', {
        method: 'POST',
        headers: { authorization: `Bearer ${access_token}` },
        body: JSON.stringify({ name, broker: 'schwab', ac_type: 2 }),
      }),
    );
    accounts.push({ uid: a.uid, name: a.name });
  }
  return { email, password, accounts, accessToken: access_token };
}

export async function signIn(page: Page, trader: Trader): Promise<void> {
  await page.goto('/signin');
  await page.getByLabel('Email').fill(trader.email);
  await page.getByLabel('Password', { exact: true }).fill(trader.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/dashboard');
}

/** New York business dates for the journey: the last weekday up to today, and weekdays after it. */
export function businessDates(): { lastWeekday: string; weekdayWithin: (minDays: number, maxDays: number) => string; weekdayOnOrBefore: (date: string) => string; today: string } {
  const today = newYorkDate(new Date());
  let lastWeekday = today;
  while (isWeekend(lastWeekday)) lastWeekday = addDays(lastWeekday, -1);
  const weekdayWithin = (minDays: number, maxDays: number) => {
    for (let d = minDays; d <= maxDays; d++) {
      const day = addDays(today, d);
      if (!isWeekend(day)) return day;
    }
    throw new Error('no weekday in range');
  };
  const weekdayOnOrBefore = (date: string) => {
    let d = date;
    while (isWeekend(d)) d = addDays(d, -1);
    return d;
  };
  return { lastWeekday, weekdayWithin, weekdayOnOrBefore, today };
}
