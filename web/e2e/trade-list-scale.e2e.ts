import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { addDays, isWeekend } from '@oj/contracts/business-date';
import { DESKTOP, launchBrowser, newContext, PHONE, screenshots } from './support/browser.ts';
import { businessToday } from './support/business-day.ts';
import { seedTrade } from './support/seed-trades.ts';
import { startServer, type E2eServer } from './support/server.ts';
import { createTrader, signIn, type Trader } from './support/trader.ts';
import { WINDOWED_FROM } from '../src/features/trades/utils/list-window.ts';

/**
 * A trader with years of records loads a long list: past WINDOWED_FROM rows the table draws only the rows
 * near the viewport (web/src/features/trades/components/trade-table-body.tsx). What must hold: the page
 * scrolls as if every row were there, wherever it is scrolled a row stands under the eye (never a gap),
 * Load More still hands focus to the first row it loaded, Tab walks on through rows not yet drawn, and a
 * screen reader hears each row's place in the whole list.
 */
const TRADES = 560;
let server: E2eServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let trader: Trader;
const pageErrors: string[] = [];

/** The weekdays before today, newest first: trades opened on them, a few a day, all within the Year preset. */
function weekdaysBack(today: string, n: number): string[] {
  const out: string[] = [];
  for (let d = 1; out.length < n; d++) {
    const day = addDays(today, -d);
    if (!isWeekend(day)) out.push(day);
  }
  return out;
}

beforeAll(async () => {
  server = await startServer();
  trader = await createTrader(server, 'long.list', 'Long List');
  const today = businessToday();
  const days = weekdaysBack(today, 140);
  const expiry = addDays(today, 60);
  // Trade i is opened on days[i / 4]: the Open list (newest first) shows T0 to T3 first, T556 to T559 last.
  const add = (i: number) => seedTrade(server, trader, { ticker: `T${i}`, strategy: 'cash-secured-put', ot: 1, tod: days[Math.floor(i / 4)]!, pao: 100 }, { expiry });
  // Four at a time; the order within a day does not matter here.
  for (let i = 0; i < TRADES; i += 4) await Promise.all([0, 1, 2, 3].filter((k) => i + k < TRADES).map((k) => add(i + k)));
  for (let i = 0; ; i++) {
    const res = await fetch(`${server.baseUrl}/api/v1/trades/status/open?page=1&size=1`, { headers: { authorization: `Bearer ${trader.token}` } });
    if (res.ok && ((await res.json()) as { total: number }).total === TRADES) break;
    if (i > 300) throw new Error('the open list never held every seeded trade');
    await new Promise((r) => setTimeout(r, 200));
  }
  browser = await launchBrowser();
  context = await newContext(browser, server.baseUrl);
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await signIn(page, trader);
  // 50 a page (the largest the settings offer), so the window is reached in a few clicks.
  await page.evaluate(() => localStorage.setItem('ItemsPerPage', '50'));
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const showing = (n: number) => page.getByText(`Showing ${n} out of ${TRADES} Trades`);
const drawnRows = () => page.locator('tbody tr[data-uid]').count();
/** Load More from the keyboard until `n` rows are loaded. */
async function loadTo(n: number): Promise<void> {
  for (;;) {
    const text = (await page.locator('.trade-list-count').textContent()) ?? '';
    const loaded = Number(/Showing (\d+)/.exec(text)?.[1] ?? 0);
    if (loaded >= n) return;
    await page.getByRole('button', { name: 'Load More' }).focus();
    await page.keyboard.press('Enter');
    await showing(Math.min(TRADES, loaded + 50)).waitFor();
  }
}

/**
 * At each of `stops` scroll positions from the table's top to the page's end: the element at the middle of
 * the viewport is a cell of a drawn row (never the spacer that stands for rows not drawn), and the rows
 * drawn run on without a gap (each starts where the one before it ended).
 */
async function everyScrollShowsRows(stops: number): Promise<string[]> {
  return page.evaluate(async (n) => {
    const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const problems: string[] = [];
    const top = document.querySelector('tbody')!.getBoundingClientRect().top + window.scrollY;
    const end = document.documentElement.scrollHeight - window.innerHeight;
    for (let k = 0; k <= n; k++) {
      const y = top + ((end - top) * k) / n;
      window.scrollTo(0, y);
      await frames();
      await frames();
      // A drawn row crosses the viewport's middle band (16 px: a phone's cards stand 12 px apart). The
      // page's end may show the footer there: only while the table reaches the middle does it count.
      const mid = window.innerHeight / 2;
      const tableBottom = document.querySelector('tbody')!.getBoundingClientRect().bottom;
      const crossing = Array.from(document.querySelectorAll('tbody tr[data-uid]')).some((r) => {
        const b = r.getBoundingClientRect();
        return b.top <= mid + 8 && b.bottom >= mid - 8;
      });
      if (tableBottom > mid + 8 && !crossing) problems.push(`at ${Math.round(y)}: no drawn row at the middle of the viewport`);
      const drawn = Array.from(document.querySelectorAll('tbody tr[data-uid]')).map((r) => r.getBoundingClientRect());
      for (let i = 1; i < drawn.length; i++) {
        if (drawn[i]!.top - drawn[i - 1]!.bottom > 16) problems.push(`at ${Math.round(y)}: a gap of ${Math.round(drawn[i]!.top - drawn[i - 1]!.bottom)} px between drawn rows`);
      }
    }
    return problems;
  }, stops);
}

describe('a long trade list', () => {
  it(`draws every row below ${WINDOWED_FROM} loaded, as before`, async () => {
    await page.goto('/trades/open');
    await showing(50).waitFor();
    await loadTo(WINDOWED_FROM - 50);
    expect(await drawnRows()).toBe(WINDOWED_FROM - 50);
    expect(await page.locator('table.trade-table').getAttribute('aria-rowcount')).toBeNull();
  });

  it(`from ${WINDOWED_FROM} rows draws only those near the viewport; Load More hands focus to the first row it loaded`, async () => {
    await loadTo(WINDOWED_FROM);
    const drawn = await drawnRows();
    expect(drawn).toBeGreaterThan(0);
    expect(drawn).toBeLessThan(120);
    expect(await page.locator('table.trade-table').getAttribute('aria-rowcount')).toBe(String(WINDOWED_FROM + 1));
    // The next page, from the keyboard: focus goes to the first row it loaded (one of T500 to T503, opened on
    // the same day: the list is newest first).
    await page.getByRole('button', { name: 'Load More' }).focus();
    await page.keyboard.press('Enter');
    await showing(WINDOWED_FROM + 50).waitFor();
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.closest('tr')?.getAttribute('aria-rowindex') ?? document.activeElement?.tagName))
      .toBe(String(WINDOWED_FROM + 2));
    const focused = await page.evaluate(() => document.activeElement?.closest('tr')?.getAttribute('data-ticker'));
    expect([0, 1, 2, 3].map((k) => `T${WINDOWED_FROM + k}`)).toContain(focused);
    expect(await drawnRows()).toBeLessThan(120);
  });

  it('scrolls as if every row were there: the first and the last are reached, and no scroll position shows a gap', async () => {
    await loadTo(TRADES);
    expect(await page.getByRole('button', { name: 'Load More' }).count()).toBe(0);
    expect(await everyScrollShowsRows(24)).toEqual([]);
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.locator(`tbody tr[aria-rowindex="${TRADES + 1}"]`).waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    // The first row again (one of T0 to T3, opened on the latest day), as row 2 of the table.
    const first = page.locator('tbody tr[aria-rowindex="2"]');
    await first.waitFor();
    expect(['T0', 'T1', 'T2', 'T3']).toContain(await first.getAttribute('data-ticker'));
    await screenshots(page, 'trades-open-long-list', { fullPage: false });
  });

  it('Tab walks on through rows that were not drawn when it started', async () => {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.locator('tbody tr[aria-rowindex="2"]').locator('a[href], button').first().focus();
    const startDrawn = await page.evaluate(() => Math.max(...Array.from(document.querySelectorAll('tbody tr[data-uid]')).map((r) => Number(r.getAttribute('aria-rowindex')))));
    let reached = 0;
    for (let i = 0; i < 400 && reached <= startDrawn + 20; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => Number(document.activeElement?.closest('tbody tr')?.getAttribute('aria-rowindex') ?? -1));
      if (reached < 0) break;
    }
    // Still on a trade's row, past the last row drawn when Tab started, and that row is on screen.
    expect(reached).toBeGreaterThan(startDrawn + 20);
    const box = await page.evaluate(() => document.activeElement!.getBoundingClientRect().toJSON() as DOMRect);
    expect(box.top).toBeGreaterThanOrEqual(0);
    expect(box.bottom).toBeLessThanOrEqual(DESKTOP.height);
  });

  it('on a phone, each trade a card, scrolls through without a gap', async () => {
    await page.setViewportSize(PHONE);
    try {
      await page.goto('/trades/open');
      await showing(50).waitFor();
      await loadTo(TRADES);
      expect(await drawnRows()).toBeLessThan(120);
      expect(await everyScrollShowsRows(24)).toEqual([]);
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await page.locator(`tbody tr[aria-rowindex="${TRADES + 1}"]`).waitFor();
    } finally {
      await page.setViewportSize(DESKTOP);
    }
    expect(pageErrors).toEqual([]);
  });
});
