import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, newContext, PHONE, screenshotAt, screenshots } from './support/browser.ts';
import { startServer, type E2eServer } from './support/server.ts';

/**
 * Session behaviour in Chromium: the not-verified page and its Send New Link, verification while signed
 * in, the 401 -> one refresh -> retry path, sign-out when the refresh fails, and the screens of an
 * expired subscription.
 */
const email = `sam.unverified.${Date.now()}@example.com`;
const password = 'Covered#Call1';

let server: E2eServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
  context = await newContext(browser, server.baseUrl);
  page = await context.newPage();
  const res = await fetch(`${server.baseUrl}/api/v1/users/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Sam Seller', email, password, agreed_to_terms: true }),
  });
  expect(res.status).toBe(201);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

const storedToken = () => page.evaluate(() => localStorage.getItem('oj.session.token'));

describe('session', () => {
  it('sends an unverified user to the not-verified page, which sends a new link', async () => {
    await server.waitForMail({ to: email });
    const before = server.mails().length;
    await page.goto('/signin');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/users/account-not-verified');
    await page.getByText(email).first().waitFor();
    // Private pages send an unverified user back here.
    await page.goto('/accounts');
    await page.waitForURL('**/users/account-not-verified');
    await screenshots(page, 'not-verified');

    await page.getByRole('button', { name: 'Send New Link' }).click();
    const confirm = page.getByRole('dialog', { name: `Send New Account verification Email To ${email}` });
    await confirm.waitFor();
    // It says what Send does (QA: an empty band between the title and the buttons).
    await confirm.getByText('A new verification link is mailed to this address. It works for 24 hours, and so do the links already sent.').waitFor();
    await confirm.getByRole('button', { name: 'Send' }).click();
    const sent = page.getByRole('dialog', { name: 'Email Sent!' });
    await sent.getByText(/spam folder/).waitFor();
    await sent.getByRole('button', { name: 'OK' }).click();

    const link = await server.waitForLink('/users/account-verify', { to: email, after: before });
    const url = new URL(link);
    await page.goto(`${url.pathname}${url.search}`);
    await page.getByRole('heading', { name: 'Account Verified' }).waitFor();
    // Signed in on this browser: the verified flag arrives with a refreshed token, no second sign-in.
    await page.getByRole('button', { name: 'Go to Login' }).click();
    await page.waitForURL('**/dashboard');
  });

  it('refreshes the access token once on a 401 and retries the request', async () => {
    await page.goto('/accounts');
    await page.getByRole('heading', { name: 'Trade Accounts' }).waitFor();
    const bogus = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJub2JvZHkifQ.bad-signature';
    await page.evaluate((t) => localStorage.setItem('oj.session.token', t), bogus);
    const refreshed = page.waitForResponse((r) => r.url().endsWith('/api/v1/users/refresh_token'));
    await page.reload();
    expect((await refreshed).status()).toBe(200);
    await page.getByRole('button', { name: /Add Trade Account/ }).waitFor();
    const token = await storedToken();
    expect(token).not.toBe(bogus);
    expect(token?.split('.')).toHaveLength(3);
  });

  it('refreshes a token past its expiry before sending anything: no request is refused on a load after a break', async () => {
    await page.goto('/accounts');
    await page.getByRole('button', { name: /Add Trade Account/ }).waitFor();
    // The stored token as it is after a break: its `exp` a minute ago (the signature no longer matches,
    // which does not matter: a token sent at all is the fault).
    const [head, body, signature] = (await storedToken())!.split('.');
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString()) as { exp: number };
    const expired = [head, Buffer.from(JSON.stringify({ ...claims, exp: Math.floor(Date.now() / 1000) - 60 })).toString('base64url'), signature].join('.');
    await page.evaluate((t) => localStorage.setItem('oj.session.token', t), expired);
    const refused: string[] = [];
    const sentWith: string[] = [];
    page.on('response', (r) => {
      if (r.status() === 401) refused.push(r.url());
    });
    page.on('request', (r) => {
      if (r.headers().authorization === `Bearer ${expired}`) sentWith.push(r.url());
    });
    const refreshed = page.waitForResponse((r) => r.url().endsWith('/api/v1/users/refresh_token'));
    await page.reload();
    expect((await refreshed).status()).toBe(200);
    await page.getByRole('button', { name: /Add Trade Account/ }).waitFor();
    await page.getByRole('heading', { name: 'Trade Accounts' }).waitFor();
    expect(refused).toEqual([]);
    expect(sentWith).toEqual([]);
    expect(await storedToken()).not.toBe(expired);
  });

  it('shows the renewal screen and locks account changes when the subscription has expired', async () => {
    await sql`update subscriptions set current_period_end = now() - interval '1 day' where user_uid = (select uid from users where email = ${email})`.execute(
      server.runtime.deps.database.db,
    );
    await server.app.principals.settled();
    // The next token carries the expired status.
    await page.evaluate(() => localStorage.setItem('oj.session.token', 'x.y.z'));
    await page.goto('/calendar/income');
    await page.getByRole('heading', { name: 'Your subscription has expired, please renew' }).waitFor();
    // The locked screen's link (the sidebar has its own Renew Now too).
    await page.locator('main').getByRole('link', { name: 'Renew Now' }).waitFor();
    await screenshots(page, 'subscription-expired');

    await page.goto('/accounts');
    expect(await page.getByRole('button', { name: /Add Trade Account/ }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'New Record' }).click();
    expect(await page.getByRole('menuitem', { name: 'Open Trade' }).getAttribute('aria-disabled')).toBe('true');
    expect(await page.getByRole('menuitem', { name: 'Trade Account' }).getAttribute('aria-disabled')).toBe('true');
    await page.keyboard.press('Escape');
  });

  it('keeps the settings panel and the sidebar state across reloads', async () => {
    await page.goto('/dashboard');
    await page.getByRole('button', { name: 'Display settings' }).click();
    const panel = page.getByRole('region', { name: 'Display settings' });
    await panel.getByRole('button', { name: 'Dark' }).click();
    await panel.getByRole('button', { name: '25' }).click();
    await panel.getByRole('button', { name: 'Collapsed' }).click();
    await page.reload();
    await page.getByRole('region', { name: 'Display settings' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(await page.evaluate(() => localStorage.getItem('ItemsPerPage'))).toBe('25');
    await page.getByRole('button', { name: 'Expand sidebar' }).waitFor();
    await screenshots(page, 'dark-settings', { fullPage: false });
    await page.getByRole('button', { name: 'Close settings' }).click();
    await page.getByRole('button', { name: 'Expand sidebar' }).click();
    await page.evaluate(() => localStorage.setItem('oj.theme', 'light'));
  });

  it('opens the navigation drawer on a phone; closed, its links are out of the Tab order', async () => {
    await page.setViewportSize(PHONE);
    await page.goto('/dashboard');
    // Closed: Tab from the top never lands in the drawer (QA: 14 links off screen took focus unseen).
    await page.getByRole('button', { name: 'Open navigation' }).waitFor();
    await page.locator('body').focus();
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => Boolean(document.activeElement?.closest('.sidebar')))).toBe(false);
    }
    await page.getByRole('button', { name: 'Open navigation' }).click();
    await page.getByRole('link', { name: 'Sign Out' }).waitFor();
    await screenshotAt(page, 'sidebar-drawer', PHONE, { fullPage: false });
    await page.keyboard.press('Escape');
  });

  it('makes the open drawer a modal navigation on a phone: focus in it, Tab stays in it, closed it gives focus back', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/trades/open');
    const hamburger = page.getByRole('button', { name: 'Open navigation' });
    await hamburger.waitFor();
    const focused = () => page.evaluate(() => ({ inDrawer: Boolean(document.activeElement?.closest('.sidebar')), name: document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent?.trim() ?? '' }));
    expect(await hamburger.getAttribute('aria-expanded')).toBe('false');
    const controls = await hamburger.getAttribute('aria-controls');
    expect(await page.evaluate((id) => document.getElementById(id ?? '')?.getAttribute('aria-label'), controls)).toBe('Main navigation');
    await hamburger.click();
    expect(await hamburger.getAttribute('aria-expanded')).toBe('true');
    // Focus moves to the drawer's first link.
    await expect.poll(focused).toEqual({ inDrawer: true, name: 'Options Journal home' });
    // QA: Tab twice reached "New Record" under the drawer. Every Tab (and Shift+Tab) stays in it, round and round.
    const links = await page.locator('.sidebar').evaluate((el) => Array.from(el.querySelectorAll('a[href], button')).filter((e) => e.getClientRects().length > 0).length);
    for (let i = 0; i < links + 3; i++) {
      await page.keyboard.press('Tab');
      expect((await focused()).inDrawer, `Tab ${i + 1}: ${(await focused()).name}`).toBe(true);
    }
    await page.locator('.sidebar a').first().focus();
    await page.keyboard.press('Shift+Tab');
    const last = await page.locator('.sidebar').evaluate((el) => {
      const items = Array.from(el.querySelectorAll('a[href], button')).filter((e) => e.getClientRects().length > 0);
      const l = items[items.length - 1];
      return l?.getAttribute('aria-label') ?? l?.textContent?.trim() ?? '';
    });
    expect(await focused()).toEqual({ inDrawer: true, name: last });
    // The page behind is inert: out of the Tab order, of the accessibility tree and of pointer events.
    expect(await page.locator('.app-main').getAttribute('inert')).not.toBe(null);
    expect(await page.getByRole('button', { name: 'New Record' }).evaluate((b: HTMLElement) => (b.focus(), document.activeElement === b))).toBe(false);
    await screenshotAt(page, 'sidebar-drawer-modal', { width: 390, height: 844 }, { fullPage: false });
    // Escape closes it and focus goes back to the hamburger.
    await page.keyboard.press('Escape');
    await expect.poll(focused).toEqual({ inDrawer: false, name: 'Open navigation' });
    expect(await hamburger.getAttribute('aria-expanded')).toBe('false');
    expect(await page.locator('.app-main').getAttribute('inert')).toBe(null);
    // A link closes it too, on its new page, with focus on the hamburger.
    await page.keyboard.press('Enter');
    await expect.poll(focused).toEqual({ inDrawer: true, name: 'Options Journal home' });
    await page.locator('.sidebar').getByRole('link', { name: 'Closed' }).click();
    await page.waitForURL('**/trades/closed');
    await expect.poll(focused).toEqual({ inDrawer: false, name: 'Open navigation' });
    expect(await hamburger.getAttribute('aria-expanded')).toBe('false');
    // On a desktop the sidebar is no drawer: nothing moves focus into it and the page is not inert.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto('/trades/open');
    await page.getByRole('complementary', { name: 'Main navigation' }).waitFor();
    expect(await page.locator('.app-main').getAttribute('inert')).toBe(null);
    expect((await focused()).inDrawer).toBe(false);
    await screenshotAt(page, 'sidebar-desktop', { width: 1280, height: 800 }, { fullPage: false });
  });

  it('shows the admin user lookup to Admins only', async () => {
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto('/admin/users/user');
    await page.getByRole('heading', { name: 'Administrators only' }).waitFor();
    expect(await page.getByRole('link', { name: 'Users', exact: true }).count()).toBe(0);

    await sql`update users set role = 'Admin' where email = ${email}`.execute(server.runtime.deps.database.db);
    await server.app.principals.settled();
    await page.evaluate(() => localStorage.setItem('oj.session.token', 'x.y.z'));
    await page.reload();
    await page.getByRole('heading', { name: 'User Profile' }).waitFor();
    await page.getByRole('link', { name: 'Users', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('Email is required.').waitFor();
    await page.getByLabel('User e-mail').fill('nobody@example.com');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('User not found.').waitFor();
    await page.getByLabel('User e-mail').fill(email.toUpperCase());
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('User found successfully!').waitFor();
    const details = page.getByRole('region', { name: 'User details' });
    await details.getByRole('heading', { name: 'Sam Seller' }).waitFor();
    await details.getByText('Admin', { exact: true }).waitFor();
    await screenshots(page, 'admin-user');
  });

  it('changes the password on the profile page', async () => {
    await page.goto('/profile');
    await page.getByRole('heading', { name: 'Account Status' }).waitFor();
    await page.getByText('s•••', { exact: false }).first().waitFor();
    await page.getByRole('button', { name: 'Show e-mail' }).click();
    await page.getByText(email).first().waitFor();
    const card = page.getByRole('region', { name: 'Change Password' });
    await card.getByLabel('Old Password').fill('Wrong#Pass1');
    await card.getByLabel('New Password').fill('short');
    await card.getByText(/At least 8 characters/).waitFor();
    expect(await card.getByRole('button', { name: 'Change Password' }).isDisabled()).toBe(true);
    await card.getByLabel('New Password').fill('Wrong#Pass1');
    await card.getByText('Cannot use the same password').waitFor();
    await card.getByLabel('New Password').fill('Straddle#2026');
    await card.getByLabel('Confirm Password').fill('Straddle#2025');
    await card.getByText('Passwords do not match').waitFor();
    await card.getByLabel('Confirm Password').fill('Straddle#2026');
    await card.getByRole('button', { name: 'Change Password' }).click();
    await card.getByText('Incorrect old password').waitFor();
    await card.getByLabel('Old Password').fill(password);
    await card.getByRole('button', { name: 'Change Password' }).click();
    await card.getByText('Password updated successfully!').waitFor();
    expect(await card.getByLabel('Old Password').inputValue()).toBe('');
    await screenshots(page, 'profile');
    // Part 2: the message disappears after 3 s.
    await card.getByText('Password updated successfully!').waitFor({ state: 'detached', timeout: 6000 });
  });

  it("gives focus to the new page's content after signing in and after signing out (QA: it fell to the body, and Tab started again from the top)", async () => {
    const ctx = await newContext(browser, server.baseUrl);
    try {
      const p = await ctx.newPage();
      const focus = () => p.evaluate(() => ({ id: document.activeElement?.id ?? '', main: document.activeElement?.closest('main')?.className ?? null, tag: document.activeElement?.tagName }));
      await p.goto('/signin');
      await p.getByLabel('Email').fill(email);
      await p.getByLabel('Password', { exact: true }).fill('Straddle#2026');
      await p.getByLabel('Password', { exact: true }).press('Enter');
      await p.waitForURL('**/dashboard');
      await expect.poll(focus).toMatchObject({ id: 'main', tag: 'MAIN' });
      // The next Tab goes on into the dashboard, not back to the sidebar at the top.
      await p.keyboard.press('Tab');
      expect((await focus()).main).toContain('app-content');

      // From the keyboard, as a keyboard user would: the user menu's Logout.
      await p.getByRole('button', { name: 'User menu' }).press('Enter');
      await p.getByRole('menuitem', { name: 'Logout' }).press('Enter');
      await p.waitForURL('**/signin');
      await p.getByRole('button', { name: 'Sign in' }).waitFor();
      await expect.poll(focus).toMatchObject({ main: 'auth-main', tag: 'MAIN' });
      await p.keyboard.press('Tab');
      expect((await focus()).main).toBe('auth-main');
    } finally {
      await ctx.close();
    }
  });

  it('signs out a page restored from the back-forward cache', async () => {
    const bfBrowser = await launchBrowser({ backForwardCache: true });
    try {
      const ctx = await newContext(bfBrowser, server.baseUrl);
      const p = await ctx.newPage();
      await p.goto('/signin');
      await p.getByLabel('Email').fill(email);
      await p.getByLabel('Password', { exact: true }).fill('Straddle#2026');
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.waitForURL('**/dashboard');
      await p.goto('/');
      await p.getByRole('heading', { name: /Know exactly what your option trades earn/ }).waitFor();
      await p.goBack();
      await p.waitForURL('**/signin');
      await p.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(await p.evaluate(() => localStorage.getItem('oj.session.user'))).toBeNull();
    } finally {
      await bfBrowser.close();
    }
  });

  it('signs out and goes to /signin when the refresh fails', async () => {
    await context.clearCookies();
    await page.evaluate(() => localStorage.setItem('oj.session.token', 'x.y.z'));
    await page.goto('/accounts?from=expiry');
    await page.waitForURL(/\/signin\?next=/);
    expect(new URL(page.url()).searchParams.get('next')).toBe('/accounts?from=expiry');
    expect(await storedToken()).toBeNull();
    await page.getByRole('alert').filter({ hasText: 'Failed to refresh token.' }).waitFor();
    // Said once: a later visit to the sign-in page shows no notice.
    await page.reload();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.getByText('Failed to refresh token.').count()).toBe(0);
    // Signed in again, the trader is back on the page the session ran out on (QA: it was the dashboard).
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill('Straddle#2026');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/accounts' && url.search === '?from=expiry');
    // Signed out again for the tests below.
    await context.clearCookies();
    await page.evaluate(() => localStorage.clear());
  });

  it('offers Send New Link when verification fails', async () => {
    await page.goto('/users/account-verify?token=not-a-real-token');
    await page.getByRole('heading', { name: 'Verification Failed' }).waitFor();
    await page.getByText('The token may be invalid or expired. Please request a new verification link.').waitFor();
    await page.goto('/users/account-verify');
    await page.getByRole('heading', { name: 'Verification Failed' }).waitFor();
    await page.getByRole('button', { name: 'Send New Link' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send New Link' });
    await dialog.getByLabel('Your Email').fill('Someone@Example.com');
    expect(await dialog.getByLabel('Your Email').inputValue()).toBe('someone@example.com');
    await dialog.getByRole('button', { name: 'Send New Link' }).click();
    await dialog.getByText(/a new verification link was sent/).waitFor();
    await screenshots(page, 'verify-failed', { fullPage: false });
  });

  it('answers a sign-up with a taken address as a new one, and tells the owner by mail (QA: "already exists" told a stranger)', async () => {
    const verified = (await sql<{ v: boolean }>`select account_confirmed as v from users where email = ${email}`.execute(server.runtime.deps.database.db)).rows[0]!.v;
    const after = server.mails().length;
    await page.goto('/signup');
    await page.getByLabel('Full Name').fill('Sam Seller');
    await page.getByLabel('Your Email').fill(email);
    await page.getByLabel('Your Password', { exact: true }).fill(password);
    await page.getByLabel('Confirm Password').fill(password);
    await page.getByRole('checkbox', { name: /I agree/ }).check();
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByText('Account created successfully! Please check your email to verify your account.').waitFor();
    const mail = await server.waitForMail({ to: email, after });
    expect(mail.subject).toBe(verified ? 'You already have an Options Journal account' : 'Verify your Options Journal account');
    expect(Number((await sql<{ n: string }>`select count(*) as n from users where email = ${email}`.execute(server.runtime.deps.database.db)).rows[0]!.n)).toBe(1);
  });
});
