// SCRATCH (not committed): visual check of the trade screens with fixture trade answers.
import { afterAll, beforeAll, it } from 'vitest';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { launchBrowser, newContext, screenshots } from './support/browser.ts';
import { startServer, type E2eServer } from './support/server.ts';
import { createTrader, signIn, type Trader } from './trades-support.ts';

let server: E2eServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let trader: Trader;
const errors: string[] = [];

const base = {
  lid: 'l', c: 15000, tcd: null, pac: null, npc: null, nd: 0.3, cs: 2, notes: '', tags: [], ot: 1, ct: null, su: 'cash-secured-put', au: '', auid: null, spo: 155, cb: null, lv: null, rf: null, pf: null,
  up: '2026-11-20T15:00:00Z', nfto: 1.3, nftc: null, ror: null, aroc: null, cg: null, do: 10, rh: false, created_at: '2026-11-20T15:00:00Z',
};
const mk = (i: number, over: Record<string, unknown>) => ({ ...base, uid: `t${i}`, ticker: ['AAPL', 'SPY', 'TSLA', 'NVDA', 'QQQ', 'AMD'][i % 6], sp: [150 + i], tod: `2026-11-${String(20 - i).padStart(2, '0')}`, ed: `2026-11-${String(21 + i).padStart(2, '0')}`, status: 1, pao: 120 + i * 10, ...over });

beforeAll(async () => {
  server = await startServer({ database: 'pglite' });
  trader = await createTrader(server, ['Schwab Income', 'IRA Wheel']);
  browser = await launchBrowser();
  context = await newContext(browser, server.baseUrl);
  page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  const au = trader.accounts[0]!.uid;
  const open = Array.from({ length: 10 }, (_, i) =>
    mk(i, { au, notes: i === 0 ? 'earnings next week, watch the 150 level' : '', su: i === 1 ? 'bull-put-spread' : 'cash-secured-put', sp: i === 1 ? [450, 440] : [150 + i], rh: i === 2, ed: i === 3 ? '2026-11-19' : i === 4 ? '2026-11-22' : `2026-12-${String(10 + i).padStart(2, '0')}` }),
  );
  const closed = Array.from({ length: 6 }, (_, i) => mk(20 + i, { au, tod: '2026-11-1' + i, ed: '2026-11-20', status: [2, 4, 5, 6, 7, 2][i], tcd: '2026-11-18', pac: 30, npc: 90 - i * 40, ct: 2, nftc: 1.3, ror: 1.2, aroc: 22.5, do: i, auid: i === 0 ? 'anc' : null, rh: i === 1 }));
  const pageOf = (items: unknown[], url: URL) => {
    const p = Number(url.searchParams.get('page') ?? 1);
    const size = Number(url.searchParams.get('size') ?? 10);
    return { items: items.slice((p - 1) * size, p * size), page: p, pages: Math.ceil(items.length / size) || 0, size, total: items.length };
  };
  await context.route('**/api/v1/trades/**', async (route: Route) => {
    const url = new URL(route.request().url());
    const p = url.pathname.replace('/api/v1', '');
    if (p.startsWith('/trades/status/open')) return route.fulfill({ json: pageOf([...open, ...open.map((t) => ({ ...t, uid: t.uid + 'b' }))], url) });
    if (p.startsWith('/trades/status/closed')) return route.fulfill({ json: pageOf(closed, url) });
    if (p.startsWith('/trades/status/rolled')) return route.fulfill({ json: pageOf([], url) });
    if (p.startsWith('/trades/expiring')) return route.fulfill({ json: pageOf(open.filter((t) => t.ed <= '2026-11-29'), url) });
    if (p.endsWith('/roll-history'))
      return route.fulfill({
        json: {
          roll_history: [
            { uid: 'r1', rolled_from_uid: null, strike_prices: [150], premium_at_open: 120, premium_at_close: 30, expiration_date: '2026-10-17', trade_open_date: '2026-10-01', trade_close_date: '2026-10-15', status: 3, contract_size: 2 },
            { uid: 'r2', rolled_from_uid: 'r1', strike_prices: [148], premium_at_open: 140, premium_at_close: 50, expiration_date: '2026-11-14', trade_open_date: '2026-10-15', trade_close_date: '2026-11-10', status: 3, contract_size: 1 },
            { uid: 't2', rolled_from_uid: 'r2', strike_prices: [152], premium_at_open: 150, premium_at_close: null, expiration_date: '2026-12-12', trade_open_date: '2026-11-10', trade_close_date: null, status: 1, contract_size: 1 },
          ],
        },
      });
    if (p.endsWith('/ancestor')) return route.fulfill({ json: { auid: 'anc', trades: [closed[0], open[1]], su: 'bull-put-spread', gene: { tod: '2026-11-01', ed: '2026-12-18', cs: 2, pao: 150, cause: 'split' }, created_at: '2026-11-18T15:00:00Z' } });
    if (p.includes('/trade-by-date/')) return route.fulfill({ json: { date: '2026-11-20', summary: { trades: 3, open_count: 1, scalp_count: 0, closed_count: 1, premium: 90, fees: 2.6, net: 87.4 }, open_trades: [open[0]], scalp_trades: [], closed_trades: [closed[0]] } });
    return route.fulfill({ status: 404, json: { message: 'nope' } });
  });
  await signIn(page, trader);
});

afterAll(async () => {
  console.log('ERRORS', errors);
  await context?.close();
  await browser?.close();
  await server?.close();
});

it('screens', async () => {
  await page.goto('/trades/open');
  await page.getByRole('heading', { name: 'Open Trades' }).waitFor();
  await page.getByText('Showing 10 out of 20 Trades').waitFor();
  await page.getByRole('button', { name: 'Filters' }).click();
  await screenshots(page, 'x-open');
  await page.getByRole('button', { name: 'Load More' }).click();
  await page.getByText('Showing 20 out of 20 Trades').waitFor();
  await page.goto('/trades/closed');
  await page.getByText('Showing 6 out of 6 Trades').waitFor();
  await screenshots(page, 'x-closed');
  await page.goto('/trades/rolled');
  await page.getByText('No trade data available').waitFor();
  await screenshots(page, 'x-rolled');
  await page.goto('/trades/expiring-soon');
  await page.getByRole('heading', { name: 'Expiring Trades' }).waitFor();
  await page.getByRole('button', { name: /Expiring trades/ }).click();
  await screenshots(page, 'x-expiring-bell', { fullPage: false });
  await page.keyboard.press('Escape');
  await page.goto('/trades/open');
  await page.getByRole('button', { name: 'Roll AAPL' }).first().click();
  await page.getByRole('dialog', { name: 'Roll Trade' }).waitFor();
  await screenshots(page, 'x-roll', { fullPage: false });
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Close AAPL' }).first().click();
  await page.getByRole('dialog', { name: 'Close Trade' }).waitFor();
  await screenshots(page, 'x-close', { fullPage: false });
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Break SPY' }).first().click();
  await page.getByRole('dialog', { name: 'Split Trade' }).waitFor();
  await screenshots(page, 'x-split', { fullPage: false });
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Actions for TSLA' }).first().click();
  await page.getByRole('menuitem', { name: 'Roll History' }).click();
  await page.getByRole('dialog', { name: /Roll History/ }).waitFor();
  await page.getByText('Expires Dec 12, 2026').waitFor();
  await screenshots(page, 'x-roll-history', { fullPage: false });
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Actions for AAPL' }).first().click();
  await page.getByRole('menuitem', { name: 'Edit' }).click();
  await page.getByRole('dialog', { name: 'Edit Trade' }).waitFor();
  await screenshots(page, 'x-edit', { fullPage: false });
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Actions for AAPL' }).first().click();
  await page.getByRole('menuitem', { name: 'View Detail' }).click();
  await page.getByText('Contract Details').waitFor();
  await screenshots(page, 'x-detail', { fullPage: false });
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Nov 20, 2026' }).first().click();
  await page.getByRole('dialog', { name: /Trades on/ }).waitFor();
  await screenshots(page, 'x-by-date', { fullPage: false });
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'New Record' }).click().catch(() => undefined);
  await page.getByRole('menuitem', { name: 'Open Trade' }).click().catch(() => undefined);
  await page.getByRole('dialog', { name: 'Add Open Trade' }).waitFor();
  await page.waitForTimeout(300);
  await screenshots(page, 'x-add-open', { fullPage: false });
});
