import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DESKTOP, PHONE, launchBrowser, newContext, screenshotAt } from './support/browser.ts';
import { startServer, type E2eServer } from './support/server.ts';
import { createTrader, signIn, type Trader } from './support/trader.ts';
import type { StartupProgress } from '@oj/contracts/common';

/**
 * A self-hosted installation (no STRIPE_SECRET_KEY, as `npm start` runs by default) in Chromium: every
 * user has Premium without end and nothing is charged, so no screen offers a trial, a price or an invoice
 * (QA: the Subscription page showed a "PAID" $4.99 invoice to a user who never paid, and the sign-up page
 * a 30-day trial that does not exist here).
 */
let server: E2eServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let trader: Trader;

beforeAll(async () => {
  server = await startServer({ env: { STRIPE_SECRET_KEY: '' } });
  trader = await createTrader(server, 'sol.selfhosted', 'Sol Selfhosted');
  browser = await launchBrowser();
  context = await newContext(browser, server.baseUrl);
  page = await context.newPage();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

describe('a self-hosted installation', () => {
  it('offers no trial and no price before sign-in', async () => {
    await page.goto('/');
    await page.getByRole('link', { name: 'Create your journal' }).first().waitFor();
    await page.getByText('One all-inclusive plan, free on this installation.').waitFor();
    expect(await page.getByText(/30-day|4\.99/).count()).toBe(0);
    // QA: the landing page read "$Free", offered "Start free trial" twice, and spoke of billing periods,
    // refunds and trial ends in its small print and FAQ.
    const landing = (await page.locator('.landing').innerText()).toLowerCase();
    for (const word of ['trial', 'billing period', 'refund', '$']) expect(landing).not.toContain(word);
    const free = page.locator('#pricing .price-amount');
    expect(await free.innerText()).toBe('Free');
    expect(await free.evaluate((e) => getComputedStyle(e, '::before').content)).toBe('none');
    await page.getByText('Does this installation charge anything?').waitFor();
    // The phone menu closes on Escape.
    await page.setViewportSize(PHONE);
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await page.setViewportSize(DESKTOP);
    await page.goto('/signup');
    await page.getByText('Every feature, free on this installation. No card needed.').waitFor();
    expect(await page.getByText(/trial/i).count()).toBe(0);
  });

  it('shows Premium without end, no invoice and a free plan on the Subscription page', async () => {
    await signIn(page, trader);
    await page.goto('/subscription');
    await page.getByText('Premium without end', { exact: true }).first().waitFor();
    const history = page.getByRole('region', { name: 'Subscription History' });
    await history.getByText('No invoices: this installation has no billing').waitFor();
    expect(await history.getByText(/PAID|AUTO|\$4\.99/).count()).toBe(0);
    const plan = page.getByRole('region', { name: 'Premium Plan' });
    await plan.getByText('Free', { exact: true }).waitFor();
    expect(await plan.getByText(/\$4\.99|30-day/).count()).toBe(0);
    await screenshotAt(page, 'subscription-self-hosted', DESKTOP);
    await screenshotAt(page, 'subscription-self-hosted', PHONE);
  });

  /**
   * After an upgrade whose formulas changed (or a journal restored while stopped) the journal listens at
   * once and rebuilds or catches up its read models before its API answers (services/src/platform/
   * startup-gate.ts). Before, the port stayed closed meanwhile (QA 73). The tab neither fails nor signs
   * out: it says how far the start got and carries on by itself.
   */
  it('waits for the journal to start with its progress on screen, then carries on where it was', async () => {
    const gate = server.runtime.deps.startup!;
    let progress: StartupProgress = { phase: 'rebuilding', projection: 'trades', done: 4000, total: 10000, retrying: false };
    let finish: () => void = () => undefined;
    gate.follow(() => progress, new Promise<void>((resolve) => (finish = resolve)));
    try {
      await page.goto('/trades/open');
      const screen = page.getByRole('dialog', { name: 'Getting your journal ready' });
      await screen.waitFor();
      await screen.getByText('Options Journal is recomputing its figures for this release: 40% (4,000 of 10,000 events).').waitFor();
      expect(await screen.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('40');
      await screenshotAt(page, 'startup-progress', DESKTOP);
      await screenshotAt(page, 'startup-progress', PHONE);
      progress = { phase: 'catching-up', done: 45, total: 50, retrying: false };
      await screen.getByText('Options Journal is bringing its figures up to date with your records: 90% (45 of 50 events).').waitFor();
    } finally {
      finish();
    }
    await page.getByRole('dialog', { name: 'Getting your journal ready' }).waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Open Trades' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/trades/open');
  });
});

