import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page, Route } from 'playwright-core';
import { addDays, isWeekend } from '@oj/contracts/business-date';
import { businessToday } from './support/business-day.ts';
import { SCREENSHOT_DIR, launchBrowser, newContext, screenshots } from './support/browser.ts';
import { startServer, type E2eServer } from './support/server.ts';
import { signIn } from './support/trader.ts';

/**
 * Issue 14, "Part 1 faults found by a new user": each fault replayed in Chromium against the real
 * product, the way the user met it (list counts after adding a trade, Refresh after a cleared search,
 * the notes tooltip, the Roll dialog's messages and Next, the custom date range, roll history after a
 * partial close, trades by date after a split, the closed list's header and abbreviated figures).
 */
interface Trader {
  email: string;
  password: string;
  account: string;
  accessToken: string;
}

async function json<T>(res: Response): Promise<T> {
  const body = (await res.json()) as T;
  if (!res.ok) throw new Error(`${res.status}: ${JSON.stringify(body)}`);
  return body;
}

let server: E2eServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let trader: Trader;
const pageErrors: string[] = [];

const api = (path: string, init: RequestInit = {}, token?: string) =>
  fetch(`${server.baseUrl}/api/v1${path}`, {
    ...init,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.headers ?? {}) },
  });
const post = <T>(path: string, body: unknown) => api(path, { method: 'POST', body: JSON.stringify(body) }, trader.accessToken).then((r) => json<T>(r));

async function createTrader(options: { account?: boolean } = {}): Promise<Trader> {
  const email = `part1.faults.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = 'Wheel#2024a';
  await json(await api('/users/signup', { method: 'POST', body: JSON.stringify({ name: 'Nia Newuser', email, password, agreed_to_terms: true }) }));
  const link = await server.waitForLink('/users/account-verify', { to: email });
  await json(await api(`/users/verify/${new URL(link).searchParams.get('token')}`));
  const { access_token } = await json<{ access_token: string }>(await api('/users/login', { method: 'POST', body: JSON.stringify({ email, password }) }));
  if (options.account === false) return { email, password, account: '', accessToken: access_token };
  const account = await json<{ uid: string }>(
    await api('/accounts/add-account', { method: 'POST', body: JSON.stringify({ name: 'Schwab Income', broker: 'schwab', ac_type: 2 }) }, access_token),
  );
  return { email, password, account: account.uid, accessToken: access_token };
}

/** Weekdays, New York time: `back(n)` is the n-th weekday before the last weekday up to today. */
const today = businessToday();
let lastWeekday = today;
while (isWeekend(lastWeekday)) lastWeekday = addDays(lastWeekday, -1);
const back = (n: number) => {
  let d = lastWeekday;
  for (let i = 0; i < n; ) {
    d = addDays(d, -1);
    if (!isWeekend(d)) i++;
  }
  return d;
};
let expiry = addDays(today, 30);
while (isWeekend(expiry)) expiry = addDays(expiry, 1);
let laterExpiry = addDays(today, 58);
while (isWeekend(laterExpiry)) laterExpiry = addDays(laterExpiry, 1);

const csp = (ticker: string, tod: string, over: Record<string, unknown> = {}) => ({
  trade_data: {
    ticker,
    account_uid: trader.account,
    strategy_uid: 'cash-secured-put',
    strike_prices: [50],
    trade_open_date: tod,
    expiration_date: expiry,
    contract_size: 1,
    premium_at_open: 120,
    net_fee_to_open: 0.65,
    open_transaction: 1,
    net_delta: 0.2,
    stock_price_at_open: 55,
    cost_basis: null,
    notes: '',
    ...over,
  },
  tag_data: [],
});

/** A trade list's answer, as much of it as the waits read. */
type ListAnswer = { total: number; items: { uid: string; rf: string | null }[] };
/** Waits until the read models answer `path` as `ok` wants. */
async function until(path: string, ok: (body: ListAnswer) => boolean) {
  for (let tries = 0; ; tries++) {
    const body = await json<ListAnswer>(await api(path, {}, trader.accessToken));
    if (ok(body)) return;
    if (tries > 150) throw new Error(`${path}: ${JSON.stringify(body).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until the read models answer the open list with `total` trades. */
async function untilOpenTotal(total: number) {
  for (let tries = 0; ; tries++) {
    const body = await json<{ total: number }>(await api('/trades/status/open?page=1&size=1', {}, trader.accessToken));
    if (body.total === total) return;
    if (tries > 150) throw new Error(`open list total ${body.total}, expected ${total}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const dialog = (name: string | RegExp) => page.getByRole('dialog', { name });

/** Fills the add-trade form's first step with a one-leg Cash-Secured Put expiring on `expiry`. */
async function fillCashSecuredPut(form: Locator, t: { ticker: string; price: string; open: string; strike: string; delta: string; contracts: string; premium: string; fee: string }) {
  await form.getByLabel('Strategy Type').selectOption('One-leg');
  await form.getByLabel(/^Strategy(?! Type)/).selectOption({ label: 'Cash-Secured Put' });
  await form.getByLabel('Ticker').fill(t.ticker);
  await form.getByLabel(/Stock Price|Cost Basis/).fill(t.price);
  await form.getByLabel('Open Date').fill(t.open);
  await form.getByLabel('Expiration Date').fill(expiry);
  await form.getByLabel(/^Strike 1/).fill(t.strike);
  await form.getByLabel('Delta (net)').fill(t.delta);
  await form.getByLabel('Contracts').fill(t.contracts);
  await form.getByLabel(/Net Premium/).fill(t.premium);
  await form.getByLabel('Net Fee').fill(t.fee);
}
const row = (ticker: string) => page.locator(`tr[data-ticker="${ticker}"]`);
const showing = (n: number, m: number) => page.getByText(`Showing ${n} out of ${m} Trades`);
const count = () => page.locator('.trade-list-count').innerText();
const LONG_NOTE = 'Sold into the earnings run-up; roll down and out if it closes under the 50 strike by Friday.';

beforeAll(async () => {
  server = await startServer();
  trader = await createTrader();
  // Eleven open trades, N0 the oldest; the newest (N10) carries a long note.
  for (let i = 0; i <= 10; i++) await post(`/trades/add-trade`, csp(`N${i}`, back(12 - i), i === 10 ? { notes: LONG_NOTE } : {}));
  await untilOpenTotal(11);
  browser = await launchBrowser();
  context = await newContext(browser, server.baseUrl);
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto('/signin');
  await page.getByLabel('Email').fill(trader.email);
  await page.getByLabel('Password', { exact: true }).fill(trader.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/dashboard');
});

afterEach(async ({ task }) => {
  if (task.result?.state === 'fail') await page.screenshot({ path: `${SCREENSHOT_DIR}failed-part1-${task.name.replace(/\W+/g, '-')}.png` }).catch(() => undefined);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

/**
 * A browser of `who`'s own, signed in. `signInAgain` fills the sign-in form as `who`; `lapse` ends the
 * session on the server (its refresh cookie is gone) while the page still holds a token.
 */
async function ownSignedInBrowser(who: Trader) {
  const ctx = await newContext(browser, server.baseUrl);
  const p = await ctx.newPage();
  p.on('pageerror', (e) => pageErrors.push(String(e)));
  const signInAgain = async () => {
    await p.getByLabel('Email').fill(who.email);
    await p.getByLabel('Password', { exact: true }).fill(who.password);
    await p.getByRole('button', { name: 'Sign in' }).click();
  };
  const lapse = async () => {
    await ctx.clearCookies();
    await p.evaluate(() => localStorage.setItem('oj.session.token', 'x.y.z'));
  };
  await p.goto('/signin');
  await signInAgain();
  await p.waitForURL('**/dashboard');
  return { ctx, p, signInAgain, lapse };
}

async function openList(path: string) {
  await page.goto(path);
  await page.getByText(/Showing \d+ out of \d+ Trades/).waitFor();
}

describe('part 1 faults found by a new user (issue 14)', () => {
  it('the open list counts 11 trades as 11, and a trade older than every loaded row as one more, as a reload does', async () => {
    await openList('/trades/open');
    await showing(10, 11).waitFor();

    await page.getByRole('button', { name: /New Record/ }).click();
    await page.getByRole('menuitem', { name: 'Open Trade' }).click();
    const d = dialog('Add Open Trade');
    await fillCashSecuredPut(d, { ticker: 'OLD', price: '55', open: back(20), strike: '50', delta: '0.2', contracts: '1', premium: '110', fee: '0.65' });
    await d.getByRole('button', { name: 'Next' }).click();
    await d.getByRole('button', { name: 'Submit' }).click();
    await d.getByText('Trade Uploaded successfully').waitFor();
    await page.keyboard.press('Escape');
    await d.waitFor({ state: 'detached' });

    await showing(10, 12).waitFor();
    // The patch, then the refresh 500 ms later (and the read models catching up) must not count it twice.
    await untilOpenTotal(12);
    await page.waitForTimeout(1500);
    expect(await count()).toBe('Showing 10 out of 12 Trades');
    await page.reload();
    await showing(10, 12).waitFor();
    await screenshots(page, 'part1-open-count');
  });

  it('Refresh reads the cleared search box', async () => {
    await openList('/trades/open');
    const box = page.getByLabel('Search by ticker');
    await box.fill('ZZZ');
    await page.getByRole('button', { name: 'Search' }).click();
    await showing(0, 0).waitFor();
    await box.fill('');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await showing(10, 12).waitFor();
  });

  it('the notes tooltip stays inside the window and below the column header', async () => {
    await openList('/trades/open');
    const icon = row('N10').getByRole('button', { name: /^Notes:/ });
    await icon.hover();
    const tip = page.getByRole('tooltip');
    await tip.waitFor();
    await page.waitForTimeout(100);
    const box = await tip.boundingBox();
    const header = await page.locator('.trade-table thead').boundingBox();
    const table = await page.locator('.trade-table-wrap').boundingBox();
    expect(box && header && table).toBeTruthy();
    if (!box || !header || !table) return;
    // Whole tooltip visible: not cut at the table's (or the window's) left edge...
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(page.viewportSize()!.width);
    expect(await tip.innerText()).toBe(LONG_NOTE);
    // ...and clear of the column header.
    expect(box.y).toBeGreaterThanOrEqual(header.y + header.height);
    // Drawn at the page's top level, so no scrolling container of the table clips it.
    expect(await tip.evaluate((el) => el.parentElement === document.body)).toBe(true);
    await screenshots(page, 'part1-notes-tooltip', { fullPage: false });
    await page.mouse.move(0, 0);
  });

  it('the custom date range: Apply once both dates are filled, the rules checked on Apply', async () => {
    await openList('/trades/open');
    await page.getByRole('button', { name: 'Filters' }).click();
    await page.getByLabel('Date range').selectOption('Custom');
    const apply = page.getByRole('button', { name: 'Apply' });
    expect(await apply.isDisabled()).toBe(true);
    await page.getByLabel('Start Date').fill(lastWeekday);
    expect(await apply.isDisabled()).toBe(true);
    await page.getByLabel('End Date').fill(back(3));
    expect(await apply.isDisabled()).toBe(false);
    // No message before Apply is pressed.
    expect(await page.getByText('End Date must be on or after Start Date').count()).toBe(0);
    await apply.click();
    await page.getByText('End Date must be on or after Start Date').waitFor();
    await screenshots(page, 'part1-date-range-apply', { fullPage: false });
    await page.getByLabel('Start Date').fill(back(3));
    await page.getByLabel('End Date').fill(lastWeekday);
    await apply.click();
    // N7..N10 were opened on back(5)..back(2) with back(n) counted from the last weekday: those from back(3) on.
    await showing(2, 2).waitFor();
    await page.getByRole('button', { name: 'Reset' }).click();
    await showing(10, 12).waitFor();
  });

  it('the Roll dialog marks blank fields on Next, drops its form message once the fields are right, and confirms the roll in its success dialog', async () => {
    const opened = await post<{ uid: string }>('/trades/add-trade', csp('ROLL', back(8), { contract_size: 3, premium_at_open: 300, net_fee_to_open: 1.95 }));
    // 1 of the 3 contracts bought back: the rest (2) is a remainder trade that replaces it in Open.
    await post(`/trades/close/${opened.uid}`, { contract_size: 1, trade_close_date: back(4), premium_at_close: 40, net_fee_to_close: 0.65, close_transaction: 2 });
    // The close projected, not only the add (both leave 13 open): the remainder listed in its place.
    await until('/trades/status/open?ticker=ROLL', (b) => b.items.length === 1 && b.items[0]?.uid !== opened.uid);
    await untilOpenTotal(13);
    await openList('/trades/open');
    await row('ROLL').getByRole('button', { name: 'Roll ROLL' }).click();
    const d = dialog('Roll Trade');
    await d.getByLabel('Close Date').fill(lastWeekday);

    const next = d.getByRole('button', { name: 'Next' });
    expect(await next.getAttribute('aria-disabled')).toBe('true');
    await next.hover();
    await d.getByText('Fill in the marked fields to continue.').waitFor();
    expect(await d.getByLabel(/Premium to Close/).getAttribute('aria-invalid')).toBe('true');
    expect(await d.getByLabel('New Expiration Date').getAttribute('aria-invalid')).toBe('true');
    await screenshots(page, 'part1-roll-missing', { fullPage: false });

    await d.getByLabel(/^Transaction/).selectOption({ label: 'Debit' });
    await d.getByLabel(/Premium to Close/).fill('60');
    await d.getByLabel('Close Fee').fill('1.3');
    await d.getByLabel('New Expiration Date').fill('2020-01-03');
    await d.getByLabel('New Premium (total)').fill('250');
    await d.getByLabel('New Fee').fill('1.3');
    expect(await next.getAttribute('aria-disabled')).toBe('false');
    await next.click();
    await d.getByText('Please correct the errors in the form.').waitFor();
    await d.getByText('New Expiration date must be on or after close Date.').waitFor();
    // Fixing the field is enough: the form's message goes with the field's.
    await d.getByLabel('New Expiration Date').fill(laterExpiry);
    await d.getByText('New Expiration date must be on or after close Date.').waitFor({ state: 'detached' });
    expect(await d.getByText('Please correct the errors in the form.').count()).toBe(0);
    await next.click();
    await d.getByText('Full Roll').waitFor();
    await d.getByRole('button', { name: 'Submit' }).click();
    // Part 1 §8: the wizard gives way to the success dialog "Trade Rolled Successfully", closed with OK.
    const done = dialog('Trade Rolled Successfully');
    await done.getByText(/The trade for ROLL has been rolled to/).waitFor();
    await done.getByRole('button', { name: 'OK' }).click();
    await done.waitFor({ state: 'detached' });
  });

  it('roll history after a partial close shows the position as entered, the partial close beside the roll', async () => {
    // The page is loaded afresh: wait until the read models show the roll's new trade.
    await until('/trades/status/open?ticker=ROLL', (b) => b.items.length === 1 && b.items[0]?.rf !== null);
    await openList('/trades/open');
    await row('ROLL').getByRole('button', { name: 'Actions for ROLL' }).click();
    await page.getByRole('menuitem', { name: 'Roll History' }).click();
    const d = dialog('Roll History · ROLL');
    const entered = d.getByTestId('roll-position');
    await entered.waitFor();
    // The position as entered: 3 contracts for $300.
    await entered.locator(':scope > .roll-node').getByText('3 contracts').waitFor();
    await entered.locator(':scope > .roll-node').getByText('Open $300.00').waitFor();
    // Beneath it, side by side: the closed contract and the two that were rolled; the new trade under the roll.
    const parts = entered.locator(':scope > ul > li');
    expect(await parts.count()).toBe(2);
    await parts.nth(0).locator(':scope > .roll-node').getByText('Closed', { exact: true }).waitFor();
    await parts.nth(0).locator(':scope > .roll-node').getByText('1 contract').waitFor();
    expect(await parts.nth(0).locator('ul').count()).toBe(0);
    await parts.nth(1).locator(':scope > .roll-node').getByText('Rolled', { exact: true }).waitFor();
    await parts.nth(1).locator(':scope > .roll-node').getByText('2 contracts').waitFor();
    expect(await parts.nth(1).locator(':scope > ul > li').count()).toBe(1);
    await screenshots(page, 'part1-roll-history', { fullPage: false });
    await d.getByRole('button', { name: 'Close' }).click();
  });

  it('trades by date: the day a Bull Put Spread was opened shows the spread, not its split legs', async () => {
    // Opened on a day no other trade was (the N trades fill back(2)..back(12)).
    const spread = await post<{ uid: string }>('/trades/add-trade', {
      ...csp('SPY', back(14)),
      trade_data: { ...csp('SPY', back(14)).trade_data, strategy_uid: 'bull-put-spread', strike_prices: [400, 395], premium_at_open: 120, net_fee_to_open: 1.3, stock_price_at_open: 410, net_delta: 0.15 },
    });
    await post(`/trades/split-trade/${spread.uid}`, {
      trade_data: { closing_trade: { leg_index: 1, premium_at_open: 30, status: 2, trade_close_date: back(2), premium_at_close: 20, net_fee_to_close: 0.65, close_transaction: 1 }, opening_trade: { premium_at_open: 150 } },
      tag_data: [],
    });
    // The split projected, not only the add (both leave 14 open): the open leg listed in the spread's place.
    await until('/trades/status/open?ticker=SPY', (b) => b.items.length === 1 && b.items[0]?.uid !== spread.uid);
    await untilOpenTotal(14);
    await openList('/trades/open');
    // The spread is older than the first page's rows.
    await page.getByRole('button', { name: 'Load More' }).click();
    await showing(14, 14).waitFor();
    // The leg still open is derived from a split: its menu offers Split History; a plain trade's does not.
    await row('SPY').getByRole('button', { name: 'Actions for SPY' }).click();
    await page.getByRole('menuitem', { name: 'Split History' }).waitFor();
    await page.keyboard.press('Escape');
    await row('N10').getByRole('button', { name: 'Actions for N10' }).click();
    await page.getByRole('menuitem', { name: 'View Detail' }).waitFor();
    expect(await page.getByRole('menuitem', { name: 'Split History' }).count()).toBe(0);
    await page.keyboard.press('Escape');

    await row('SPY').locator('.tc-link').click();
    const d = dialog(/^Trades on /);
    const open = d.getByRole('region', { name: 'Open Trades' });
    await open.waitFor();
    const items = open.locator('li');
    expect(await items.count()).toBe(1);
    const text = await items.first().innerText();
    expect(text).toContain('Bull Put Spread');
    expect(text).toContain('$400 / $395');
    expect(text).toContain('$120.00 STO');
    // The day's premium is the spread's credit: 150 (short leg) - 30 (long leg).
    await d.getByRole('region', { name: 'Summary' }).getByText('$120.00').waitFor();
    await screenshots(page, 'part1-trades-by-date', { fullPage: false });
    await d.getByRole('button', { name: 'Close' }).click();
  });

  it('the closed list: its Open / Close Premium header and collateral in K', async () => {
    await openList('/trades/closed');
    await page.getByRole('columnheader', { name: 'Open / Close Premium' }).waitFor();
    // The closed contract of ROLL: strike 50 x 100 x 1 = $5,000, shown as $5K (the exact figure as its title).
    const collateral = row('ROLL').first().locator('td.td-collateral .tc-num').first();
    expect(await collateral.innerText()).toBe('$5K');
    expect(await collateral.getAttribute('title')).toBe('$5,000.00');
    // "Closed Date with disposition": the contract was bought back 4 weekdays ago, before its expiration:
    // an Early Exit (it read "Closed (BTC)", the status).
    expect(await row('ROLL').first().locator('td.td-closed .tc-sub').innerText()).toBe('Early Exit');
    await screenshots(page, 'part1-closed-list', { fullPage: false });
    // On a 1280 px laptop every column is in view: nothing scrolls sideways under the row menu (QA).
    const size = page.viewportSize()!;
    await page.setViewportSize({ width: 1280, height: 800 });
    try {
      const wrap = page.locator('.trade-table-wrap');
      await expect.poll(() => wrap.evaluate((w) => w.scrollWidth - w.clientWidth)).toBeLessThanOrEqual(0);
    } finally {
      await page.setViewportSize(size);
    }
    expect(pageErrors).toEqual([]);
  });

  it('a list or the profile that failed to load says so and offers Try again; it never poses as an empty journal', async () => {
    // A proxy's error page (QA: its HTML was printed in the alert, under "No trade data available").
    const down = (route: Route) => route.fulfill({ status: 502, contentType: 'text/html', body: '<html><body><h1>502 Bad Gateway</h1>nginx</body></html>' });
    await page.route('**/api/v1/trades/status/closed**', down);
    await page.goto('/trades/closed');
    const failed = page.getByText('Failed to fetch trades.', { exact: true });
    await failed.waitFor();
    expect(await page.getByText('502 Bad Gateway').count()).toBe(0);
    expect(await page.getByText('No trade data available').count()).toBe(0);
    expect(await page.getByText(/Showing 0 out of 0 Trades/).isVisible()).toBe(false);
    await page.unroute('**/api/v1/trades/status/closed**');
    await page.getByRole('button', { name: 'Try again' }).click();
    await row('ROLL').first().waitFor();
    await failed.waitFor({ state: 'detached' });

    await page.route('**/api/v1/users/current_user', down);
    await page.goto('/profile');
    await page.getByText('Failed to fetch profile.', { exact: true }).waitFor();
    await page.unroute('**/api/v1/users/current_user');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('form', { name: 'Profile form' }).waitFor();
  });

  it('offline, the screens say why they are waiting, and load on their own when the connection returns', async () => {
    await page.goto('/trades/closed');
    await row('ROLL').first().waitFor();
    const banner = page.getByRole('status').filter({ hasText: 'You are offline.' });
    expect(await banner.count()).toBe(0);
    const asked: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/v1/trades/status/closed')) asked.push(r.url());
    });
    await context.setOffline(true);
    try {
      await banner.waitFor();
      // A refresh offline waits for the connection: no request, no error, no empty journal.
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.waitForTimeout(500);
      expect(asked).toEqual([]);
      expect(await page.getByText('Failed to fetch trades.').count()).toBe(0);
      expect(await page.getByText('No trade data available').count()).toBe(0);
      await screenshots(page, 'offline-banner');
      // Over a dialog on a phone the banner leaves the dialog's buttons free (QA: it lay over Yes).
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByRole('button', { name: 'New Record' }).click();
      await page.getByRole('menuitem', { name: 'Open Trade' }).click();
      const next = page.getByRole('dialog').getByRole('button', { name: 'Next' });
      await next.waitFor();
      const [b, s] = [(await banner.boundingBox())!, (await next.boundingBox())!];
      expect(b.y + b.height <= s.y || s.y + s.height <= b.y, JSON.stringify({ b, s })).toBe(true);
      await page.keyboard.press('Escape');
      await page.setViewportSize({ width: 1366, height: 900 });
    } finally {
      await context.setOffline(false);
    }
    await banner.waitFor({ state: 'detached' });
    // Back online, the waiting refresh goes out by itself.
    await expect.poll(() => asked.length).toBeGreaterThan(0);
    await row('ROLL').first().waitFor();
  });

  it('offline, a screen not loaded yet says so, and opens by itself once the connection returns (QA 72: "A new version is available", for good)', async () => {
    await page.goto('/trades/open');
    await page.getByText(/Showing \d+ out of \d+ Trades/).waitFor();
    await context.setOffline(true);
    try {
      // The FAQ's code is not loaded in this page yet: a link to it, followed offline.
      await page.locator('nav').getByRole('link', { name: 'FAQ', exact: true }).first().click();
      await page.getByRole('heading', { name: 'You are offline' }).waitFor();
      expect(await page.getByText('A new version is available').count()).toBe(0);
    } finally {
      await context.setOffline(false);
    }
    await page.getByRole('heading', { name: 'Frequently Asked Questions' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/faq');
  });

  it('a tab left open across an upgrade is told a new version runs, and reloads into it (QA 73: old figures until Refresh, "500" for a new version)', async () => {
    await page.goto('/trades/open');
    await page.getByText(/Showing \d+ out of \d+ Trades/).waitFor();
    // The gateway names the build it serves: this page's own entry script, so nothing is said.
    const own = await page.evaluate(() => /\/(index-[^/]+\.js)$/.exec(document.querySelector<HTMLScriptElement>('script[type="module"][src*="/assets/index-"]')!.getAttribute('src')!)![1]);
    const served = (await fetch(`${server.baseUrl}/api/v1/health`)).headers.get('x-oj-console');
    expect(served).toBe(own);
    const banner = page.getByRole('status').filter({ hasText: 'A new version of Options Journal is running.' });
    expect(await banner.count()).toBe(0);
    // The journal is upgraded while the tab stays open: its next answers name another build.
    const api = (u: URL) => u.pathname.startsWith('/api/v1/');
    await page.route(api, async (route) => {
      const res = await route.fetch();
      await route.fulfill({ response: res, headers: { ...res.headers(), 'x-oj-console': 'index-Upgraded1.js' } });
    });
    try {
      await page.getByRole('button', { name: 'Refresh' }).first().click();
      await banner.waitFor();
    } finally {
      await page.unroute(api);
    }
    // Offline as well: both banners are read, neither lies over the other (QA 71: one hid the other).
    const offline = page.getByRole('status').filter({ hasText: 'You are offline.' });
    await context.setOffline(true);
    try {
      await offline.waitFor();
      const [a, b] = [(await banner.boundingBox())!, (await offline.boundingBox())!];
      expect(a.y + a.height <= b.y || b.y + b.height <= a.y, JSON.stringify({ a, b })).toBe(true);
      await screenshots(page, 'banners-offline-and-new-version', { fullPage: false });
    } finally {
      await context.setOffline(false);
    }
    await offline.waitFor({ state: 'detached' });
    await banner.getByRole('button', { name: 'Reload to use it' }).click();
    await page.getByText(/Showing \d+ out of \d+ Trades/).waitFor();
    expect(await banner.count()).toBe(0);
  });

  it('a journal that could not load tries again by itself once the connection returns', async () => {
    const accounts = (u: URL) => u.pathname.startsWith('/api/v1/accounts');
    await page.route(accounts, (route) => route.abort('internetdisconnected'));
    await page.goto('/trades/closed');
    await page.getByRole('heading', { name: 'Could not load your journal' }).waitFor({ timeout: 20_000 });
    await page.unroute(accounts);
    // The connection drops and returns (QA: a page loaded offline stayed on this screen once back online).
    await context.setOffline(true);
    await page.getByRole('status').filter({ hasText: 'You are offline.' }).waitFor();
    await context.setOffline(false);
    await row('ROLL').first().waitFor();
    expect(await page.getByRole('heading', { name: 'Could not load your journal' }).count()).toBe(0);
  });

  it('the add-trade page, before any trade account exists, says to add one first and leads there', async () => {
    const newcomer = await createTrader({ account: false });
    const ctx = await newContext(browser, server.baseUrl);
    try {
      const p = await ctx.newPage();
      await signIn(p, newcomer);
      await p.goto('/trades/add');
      await p.getByRole('heading', { name: 'Add a trade account first' }).waitFor();
      expect(await p.getByLabel('Account').count()).toBe(0);
      await screenshots(p, 'trades-add-no-account');
      await p.getByRole('link', { name: 'Go to Accounts' }).click();
      await p.waitForURL('**/accounts');
    } finally {
      await ctx.close();
    }
  });
  it('roll history through a split: a spread rolled, then split, shows the roll, the split spread and both legs (QA)', async () => {
    const spreadTerms = { strategy_uid: 'bull-put-spread', strike_prices: [400, 395], contract_size: 2, premium_at_open: 150, net_fee_to_open: 1.3, stock_price_at_open: 410, net_delta: 0.15 };
    const spread = await post<{ uid: string }>('/trades/add-trade', csp('SPLT', back(10), spreadTerms));
    const roll = await post<{ new_trade_after_roll: { uid: string } }>(`/trades/roll/${spread.uid}`, {
      trade_roll_data: {
        old_trade: { trade_close_date: back(6), premium_at_close: 60, net_fee_to_close: 1.3, close_transaction: 2 },
        new_trade: { expiration_date: laterExpiry, contract_size: 2, strike_prices: [390, 385], premium_at_open: 100, net_fee_to_open: 1.3, net_delta: 0.15, stock_price_at_open: 405 },
      },
      tag_data: [],
    });
    const splitAnswer = await post<{ open_trade: { uid: string } }>(`/trades/split-trade/${roll.new_trade_after_roll.uid}`, {
      trade_data: { closing_trade: { leg_index: 1, premium_at_open: 20, status: 2, trade_close_date: back(3), premium_at_close: 5, net_fee_to_close: 0.65, close_transaction: 1 }, opening_trade: { premium_at_open: 120 } },
      tag_data: [],
    });
    // The split projected: its open leg listed, not the spread it was split from (CI: the list read before
    // the split showed the spread, whose tree marks no trade as the one it was opened for).
    await until('/trades/status/open?ticker=SPLT', (b) => b.items.length === 1 && b.items[0]?.uid === splitAnswer.open_trade.uid);
    await page.goto('/trades/open?ticker=SPLT');
    await row('SPLT').getByRole('button', { name: 'Actions for SPLT' }).click();
    await page.getByRole('menuitem', { name: 'Roll History' }).click();
    const d = dialog('Roll History · SPLT');
    // One tree: the spread, rolled; under it the spread it was rolled to, split; under that both legs.
    const roots = d.locator('ul[role="tree"] > li');
    await roots.first().waitFor();
    expect(await roots.count()).toBe(1);
    await roots.first().locator(':scope > .roll-node').getByText('Rolled', { exact: true }).waitFor();
    const split = roots.first().locator(':scope > ul > li');
    expect(await split.count()).toBe(1);
    expect(await split.getAttribute('data-testid')).toBe('roll-split');
    await split.locator(':scope > .roll-node').getByText('$390 / $385').waitFor();
    await split.locator(':scope > .roll-node').getByText('Split', { exact: true }).waitFor();
    const legs = split.locator(':scope > ul > li');
    expect(await legs.count()).toBe(2);
    const legStatuses = await legs.locator(':scope > .roll-node .roll-status').allInnerTexts();
    expect(legStatuses.sort()).toEqual(['Closed', 'Open']);
    await expect.poll(() => d.locator('[aria-current="true"]').count()).toBe(1);
    await screenshots(page, 'part1-roll-history-split', { fullPage: false });
    await d.getByRole('button', { name: 'Close' }).click();
  });

  it('an edit from a second tab, made on the values before the first tab\'s edit, is refused and says why; the first edit stays (QA: a lost update)', async () => {
    const added = await post<{ uid: string }>('/trades/add-trade', csp('STALE', back(2), { premium_at_open: 240 }));
    const tabB = await context.newPage();
    tabB.on('pageerror', (e) => pageErrors.push(String(e)));
    try {
      // Both tabs show the trade at $240.00 and open its Edit form.
      const opened: Page[] = [page, tabB];
      for (const p of opened) {
        await p.goto('/trades/open?ticker=STALE');
        await p.locator('tr[data-ticker="STALE"]').getByText('$240.00').waitFor();
        await p.locator('tr[data-ticker="STALE"]').getByRole('button', { name: 'Actions for STALE' }).click();
        await p.getByRole('menuitem', { name: 'Edit' }).click();
        await p.getByRole('dialog', { name: 'Edit Trade' }).getByLabel('Premium (total)').waitFor();
      }
      const save = async (p: Page, premium: string) => {
        const e = p.getByRole('dialog', { name: 'Edit Trade' });
        await e.getByLabel('Premium (total)').fill(premium);
        await e.getByRole('button', { name: 'Next' }).click();
        await e.getByRole('button', { name: 'Update Trade' }).click();
        return e;
      };
      // Tab A saves 300.
      await save(page, '300');
      await page.getByRole('dialog', { name: 'Trade Updated Successfully' }).getByRole('button', { name: 'OK' }).click();
      await row('STALE').getByText('$300.00').waitFor();
      // Tab B, still showing 240, saves 250: refused, nothing saved, and the form says what to do.
      const e = await save(tabB, '250');
      await e.getByText('This trade was changed elsewhere since you opened it (Premium). Nothing was saved: close this form and edit the trade again.').waitFor();
      // The same edit would be refused again: it is not offered.
      expect(await e.getByRole('button', { name: 'Update Trade' }).isDisabled()).toBe(true);
      await screenshots(tabB, 'trade-edit-stale', { fullPage: false });
      const list = await json<{ items: { uid: string; pao: number }[] }>(await api('/trades/status/open?page=1&size=5&ticker=STALE', {}, trader.accessToken));
      expect(list.items.find((t) => t.uid === added.uid)?.pao).toBe(300);
      // Opened again, the form starts from what the trade holds now, and the edit goes through.
      await tabB.keyboard.press('Escape');
      await e.waitFor({ state: 'hidden' });
      await tabB.locator('tr[data-ticker="STALE"]').getByText('$300.00').waitFor();
      await tabB.locator('tr[data-ticker="STALE"]').getByRole('button', { name: 'Actions for STALE' }).click();
      await tabB.getByRole('menuitem', { name: 'Edit' }).click();
      await save(tabB, '250');
      await tabB.getByRole('dialog', { name: 'Trade Updated Successfully' }).getByRole('button', { name: 'OK' }).click();
      await tabB.locator('tr[data-ticker="STALE"]').getByText('$250.00').waitFor();
    } finally {
      await tabB.close();
    }
    expect(pageErrors).toEqual([]);
  });

  it('a close confirmed on a form opened before an edit elsewhere is refused and says why; nothing is closed, and the list shows the trade as it is (QA: a confirmed $200.00 profit was recorded as a -$70.00 loss)', async () => {
    const added = await post<{ uid: string }>('/trades/add-trade', csp('CSTALE', back(2), { premium_at_open: 300, contract_size: 1 }));
    // In the read model before the page asks (CI: a page that loaded first showed no such row for good).
    await until('/trades/status/open?page=1&size=5&ticker=CSTALE', (b) => b.total === 1);
    await page.goto('/trades/open?ticker=CSTALE');
    const r = row('CSTALE');
    await r.getByText('$300.00').waitFor();
    await r.getByRole('button', { name: 'Close CSTALE' }).click();
    const d = page.getByRole('dialog', { name: 'Close Trade' });
    await d.getByLabel('Transaction').selectOption({ label: 'Debit' });
    await d.getByLabel(/Premium to Close/).fill('100');
    await d.getByLabel('Close Fee').fill('1');
    await d.getByRole('button', { name: 'Next' }).click();
    await d.getByRole('button', { name: 'Close Trade' }).waitFor();
    // Another device edits the premium while this form shows its confirmation.
    const edited = await api(`/trades/update/${added.uid}`, { method: 'PATCH', body: JSON.stringify({ premium_at_open: 30 }) }, trader.accessToken);
    expect(edited.status).toBe(200);
    await d.getByRole('button', { name: 'Close Trade' }).click();
    await d.getByText('This trade was changed elsewhere since you opened it (Premium). Nothing was closed: close this form, look at the trade as it is now and try again.').waitFor();
    // The row behind the dialog is read again: it shows the premium the trade holds now.
    await r.getByText('$30.00').waitFor();
    const open = await json<{ items: { uid: string }[] }>(await api('/trades/status/open?page=1&size=5&ticker=CSTALE', {}, trader.accessToken));
    expect(open.items.map((t) => t.uid)).toEqual([added.uid]);
    await page.keyboard.press('Escape');
    await d.waitFor({ state: 'hidden' });
    expect(pageErrors).toEqual([]);
  });
  it('a session that runs out while a trade is entered gives the trade back after signing in again, says why, and saves it once (QA: the input was lost)', async () => {
    const lapsing = await createTrader();
    const { ctx, p, signInAgain, lapse } = await ownSignedInBrowser(lapsing);
    try {
      await p.goto('/trades/add');
      const form = p.locator('.trade-wizard');
      await form.getByLabel('Account').selectOption({ label: 'Schwab Income' });
      await fillCashSecuredPut(form, { ticker: 'LAPSE', price: '61.5', open: back(1), strike: '58', delta: '0.22', contracts: '2', premium: '145', fee: '1.3' });
      await form.getByLabel('Notes').fill('typed before the session ran out');
      await form.getByRole('button', { name: 'Next' }).click();
      await form.getByText('Summary').first().waitFor();
      // The session runs out while the summary shows.
      await lapse();
      await form.getByRole('button', { name: 'Submit' }).click();
      await p.waitForURL('**/signin?next=**');
      await signInAgain();
      await p.waitForURL('**/trades/add');
      const restored = p.getByRole('status').filter({ hasText: 'Your session ended while you were entering this trade' });
      await restored.waitFor();
      expect(await form.getByLabel('Ticker').inputValue()).toBe('LAPSE');
      expect(await form.getByLabel(/^Strike 1/).inputValue()).toBe('58');
      expect(await form.getByLabel('Contracts').inputValue()).toBe('2');
      expect(await form.getByLabel(/Net Premium/).inputValue()).toBe('145');
      expect(await form.getByLabel('Notes').inputValue()).toBe('typed before the session ran out');
      await screenshots(p, 'add-trade-restored-after-session-end');
      await form.getByRole('button', { name: 'Next' }).click();
      await form.getByRole('button', { name: 'Submit' }).click();
      await form.getByText('Trade Uploaded successfully').waitFor();
      for (let tries = 0; ; tries++) {
        const open = await json<{ items: { ticker: string; cs: number; pao: number }[] }>(await api('/trades/status/open?page=1&size=10', {}, lapsing.accessToken));
        if (open.items.length > 0) {
          expect(open.items.map((t) => [t.ticker, t.cs, t.pao])).toEqual([['LAPSE', 2, 145]]);
          break;
        }
        if (tries > 100) throw new Error('the restored trade never reached the open list');
        await new Promise((r) => setTimeout(r, 100));
      }
      // Given back once: opened again, the form is empty.
      await p.reload();
      await form.getByLabel('Ticker').waitFor();
      expect(await form.getByLabel('Ticker').inputValue()).toBe('');
      expect(await restored.count()).toBe(0);
    } finally {
      await ctx.close();
    }
    expect(pageErrors).toEqual([]);
  });

  it('a session that runs out on a close reopens the Close Trade form after signing in, with what was typed, and closes the trade once; an edit reopened on a trade changed meanwhile is refused (QA: the input was lost)', async () => {
    const lapsing = await createTrader();
    const add = async (ticker: string) =>
      json<{ uid: string }>(await api('/trades/add-trade', { method: 'POST', body: JSON.stringify(csp(ticker, back(3), { account_uid: lapsing.account, premium_at_open: 200 })) }, lapsing.accessToken));
    await add('KEEPC');
    const edited = await add('KEEPE');
    const { ctx, p, signInAgain, lapse } = await ownSignedInBrowser(lapsing);
    try {
      await p.goto('/trades/open');
      await p.locator('tr[data-ticker="KEEPC"]').getByRole('button', { name: 'Close KEEPC' }).click();
      let d = p.getByRole('dialog', { name: 'Close Trade' });
      await d.getByLabel('Transaction').selectOption({ label: 'Debit' });
      await d.getByLabel(/Premium to Close/).fill('40');
      await d.getByLabel('Close Fee').fill('0.7');
      await d.getByRole('button', { name: 'Next' }).click();
      await lapse();
      await d.getByRole('button', { name: 'Close Trade' }).click();
      await p.waitForURL('**/signin?next=**');
      await signInAgain();
      await p.waitForURL('**/trades/open');
      // The form opens again by itself, on the same trade, on its first step, saying why.
      d = p.getByRole('dialog', { name: 'Close Trade' });
      const restored = d.getByRole('status').filter({ hasText: 'Your session ended before this was recorded, so nothing was saved.' });
      await restored.waitFor();
      await d.getByText('KEEPC').first().waitFor();
      expect(await d.getByLabel('Transaction').evaluate((el) => (el as HTMLSelectElement).selectedOptions[0]?.textContent)).toBe('Debit');
      expect(await d.getByLabel(/Premium to Close/).inputValue()).toBe('40');
      expect(await d.getByLabel('Close Fee').inputValue()).toBe('0.7');
      // 200 opened, 40 paid to close.
      await d.locator('.pl-preview').getByText('$160.00').waitFor();
      await screenshots(p, 'close-trade-restored-after-session-end', { fullPage: false });
      await d.getByRole('button', { name: 'Next' }).click();
      await d.getByRole('button', { name: 'Close Trade' }).click();
      await p.getByRole('dialog', { name: 'Closed' }).getByText('Trade successfully closed').waitFor();
      await p.getByRole('dialog', { name: 'Closed' }).getByRole('button', { name: 'OK' }).click();
      for (let tries = 0; ; tries++) {
        const closed = await json<{ items: { ticker: string }[] }>(await api('/trades/status/closed?page=1&size=10', {}, lapsing.accessToken));
        if (closed.items.length > 0) {
          expect(closed.items.map((t) => t.ticker)).toEqual(['KEEPC']);
          break;
        }
        if (tries > 100) throw new Error('the restored close never reached the closed list');
        await new Promise((r) => setTimeout(r, 100));
      }
      // Given back once: a reload opens no form.
      await p.reload();
      await p.getByText(/Showing \d+ out of \d+ Trades/).waitFor();
      expect(await p.getByRole('dialog').count()).toBe(0);

      // An edit typed, the session runs out, and the trade is edited elsewhere before the sign-in.
      await p.locator('tr[data-ticker="KEEPE"]').getByRole('button', { name: 'Actions for KEEPE' }).click();
      await p.getByRole('menuitem', { name: 'Edit' }).click();
      d = p.getByRole('dialog', { name: 'Edit Trade' });
      await d.getByLabel(/^Fee/).fill('0.9');
      await d.getByRole('button', { name: 'Next' }).click();
      await lapse();
      const elsewhere = await api(`/trades/update/${edited.uid}`, { method: 'PATCH', body: JSON.stringify({ net_fee_to_open: 0.8 }) }, lapsing.accessToken);
      expect(elsewhere.status).toBe(200);
      await d.getByRole('button', { name: 'Update Trade' }).click();
      await p.waitForURL('**/signin?next=**');
      await signInAgain();
      await p.waitForURL('**/trades/open');
      d = p.getByRole('dialog', { name: 'Edit Trade' });
      await d.getByRole('status').filter({ hasText: 'Your session ended before this was recorded' }).waitFor();
      expect(await d.getByLabel(/^Fee/).inputValue()).toBe('0.9');
      await d.getByRole('button', { name: 'Next' }).click();
      await d.getByRole('button', { name: 'Update Trade' }).click();
      // Reopened on the trade as the trader saw it: the change made meanwhile is not overwritten unseen.
      await d.getByText('This trade was changed elsewhere since you opened it (Fee). Nothing was saved: close this form and edit the trade again.').waitFor();
      const open = await json<{ items: { ticker: string; nfto: number }[] }>(await api('/trades/status/open?page=1&size=10&ticker=KEEPE', {}, lapsing.accessToken));
      expect(open.items.map((t) => [t.ticker, t.nfto])).toEqual([['KEEPE', 0.8]]);
    } finally {
      await ctx.close();
    }
    expect(pageErrors).toEqual([]);
  });
});
