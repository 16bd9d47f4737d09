import type { Page } from 'playwright-core';
import type { E2eServer } from './server.ts';

/** A signed-up, verified trader with one account, and an access token for seeding through the API. */
export interface Trader {
  email: string;
  password: string;
  account: string;
  token: string;
}

/** The body of an API answer; a non-2xx answer throws with its body. */
export async function json<T>(res: Response): Promise<T> {
  const body = (await res.json()) as T;
  if (!res.ok) throw new Error(`${res.status}: ${JSON.stringify(body)}`);
  return body;
}

/** Signs a trader up through the API (the verification link from the server's mail), signs in, adds an account. */
export async function createTrader(server: E2eServer, name: string, displayName: string): Promise<Trader> {
  const email = `${name}.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = 'Wheel#2024a';
  const api = (path: string, init: RequestInit = {}) => fetch(`${server.baseUrl}/api/v1${path}`, { ...init, headers: { 'content-type': 'application/json', ...(init.headers ?? {}) } });
  await json(await api('/users/signup', { method: 'POST', body: JSON.stringify({ name: displayName, email, password, agreed_to_terms: true }) }));
  const link = await server.waitForLink('/users/account-verify', { to: email });
  await json(await api(`/users/verify/${new URL(link).searchParams.get('token')}`));
  const { access_token } = await json<{ access_token: string }>(await api('/users/login', { method: 'POST', body: JSON.stringify({ email, password }) }));
  const a = await json<{ uid: string }>(
    await api('/accounts/add-account', { method: 'POST', headers: { authorization: `Bearer ${access_token}` }, body: JSON.stringify({ name: 'Income', broker: 'schwab', ac_type: 2 }) }),
  );
  return { email, password, account: a.uid, token: access_token };
}

/** Signs the trader in through the console's form; lands on the dashboard. */
export async function signIn(page: Page, t: Pick<Trader, 'email' | 'password'>): Promise<void> {
  await page.goto('/signin');
  await page.getByLabel('Email').fill(t.email);
  await page.getByLabel('Password', { exact: true }).fill(t.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/dashboard');
}
