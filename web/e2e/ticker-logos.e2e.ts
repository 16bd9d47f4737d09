import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import { addDays, isWeekend } from '@oj/contracts/business-date';
import { businessToday } from './support/business-day.ts';
import { createUser } from '@oj/services/identity/commands';
import { identityContext } from '@oj/services/identity/routes';
import { launchBrowser, newContext } from './support/browser.ts';
import { startServer, type E2eServer } from './support/server.ts';

/**
 * Ticker logos (part 1 §2): with TICKER_LOGO_URL set, trade rows load the logo from that template; a
 * leveraged ETF always shows its initials, and a logo that fails to load falls back to the coloured
 * initials. (Without the setting no third-party request is made: profile.e2e.ts checks that.) The logo
 * service is played by Playwright's request interception, so nothing leaves the machine.
 */
const TEMPLATE = 'https://logos.example.test/{ticker}.png';
let server: E2eServer;
let browser: Browser;
let page: Page;
const logoRequests: string[] = [];

async function api(path: string, token: string, body: unknown): Promise<void> {
  const res = await fetch(`${server.baseUrl}/api/v1${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
}

beforeAll(async () => {
  server = await startServer({ database: 'pglite', env: { TICKER_LOGO_URL: TEMPLATE } });
  const email = `logo.trader.${Date.now()}@example.com`;
  const password = 'Logos#2024a';
  await createUser(identityContext(server.runtime.deps), { name: 'Logo Trader', email, password, verified: true, agreedToTerms: true });
  const login = await fetch(`${server.baseUrl}/api/v1/users/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  const { access_token: token } = (await login.json()) as { access_token: string };
  const accountRes = await fetch(`${server.baseUrl}/api/v1/accounts/add-account`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: 'Main', broker: 'schwab', ac_type: 2 }),
  });
  const account = (await accountRes.json()) as { uid: string };
  let open = businessToday();
  while (isWeekend(open)) open = addDays(open, -1);
  let expiry = addDays(open, 30);
  while (isWeekend(expiry)) expiry = addDays(expiry, 1);
  for (const ticker of ['AAPL', 'TQQQ', 'NOLOGO']) {
    await api('/trades/add-trade', token, {
      trade_data: {
        ticker,
        strategy_uid: 'cash-secured-put',
        account_uid: account.uid,
        strike_prices: [50],
        trade_open_date: open,
        expiration_date: expiry,
        contract_size: 1,
        premium_at_open: 120,
        net_fee_to_open: 0.65,
        net_delta: 0.3,
        stock_price_at_open: 55,
        notes: '',
      },
      tag_data: [],
    });
  }
  browser = await launchBrowser();
  const context = await newContext(browser, server.baseUrl);
  const logo = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#111111' } }).png().toBuffer();
  await context.route('https://logos.example.test/**', (route) => {
    logoRequests.push(route.request().url());
    if (route.request().url().endsWith('/NOLOGO.png')) return route.fulfill({ status: 404, body: 'no logo' });
    return route.fulfill({ status: 200, contentType: 'image/png', body: logo });
  });
  page = await context.newPage();
  await page.goto('/signin');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/dashboard');
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('ticker logos', () => {
  it('rows show the configured logo, initials for a leveraged ETF and for a logo that fails', async () => {
    await page.goto('/trades/open');
    const row = (t: string) => page.locator(`tr[data-ticker="${t}"]`);
    for (let i = 0; i < 30 && !(await row('NOLOGO').count()); i++) {
      await page.waitForTimeout(500);
      await page.reload();
    }
    await row('AAPL').locator('img.ticker-logo').waitFor();
    expect(await row('AAPL').locator('img.ticker-logo').getAttribute('src')).toBe('https://logos.example.test/AAPL.png');
    await row('TQQQ').locator('.ticker-initials').waitFor();
    expect(await row('TQQQ').locator('.ticker-initials').textContent()).toBe('TQ');
    await row('NOLOGO').locator('.ticker-initials').waitFor();
    expect(await row('NOLOGO').locator('.ticker-initials').textContent()).toBe('NO');
    expect(logoRequests.some((u) => u.includes('TQQQ'))).toBe(false);
    expect(logoRequests).toContain('https://logos.example.test/AAPL.png');
  });
});
