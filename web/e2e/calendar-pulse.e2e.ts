import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { addDays, isWeekend } from '@oj/contracts/business-date';
import { businessToday } from './support/business-day.ts';
import { DESKTOP, SCREENSHOT_DIR, launchBrowser, layOutForPaper, newContext, screenshotAt, sidewaysOverflow } from './support/browser.ts';
import { decodePng } from './support/png.ts';
import { dataAskedWhileShellWaits, premiumData } from './support/prefetch.ts';
import { startServer, type E2eServer } from './support/server.ts';
import { seedTrade, type Seed } from './support/seed-trades.ts';
import { createTrader, json, signIn, type Trader } from './support/trader.ts';

/**
 * Income calendar, events, pulse and share cards in Chromium against the real product (issue 12). The
 * journal is seeded through the API on last week's weekdays; every figure checked on screen is worked
 * out here from the seeded trades (the day's premium cash flow: + credit / - debit at open on the open
 * date, + credit / - debit at close on the close date), never read back from the API. A share card's
 * PNG is decoded here: signature, size (the card at scale 2) and pixels of the chosen theme.
 */
const PHONE = { width: 390, height: 844 } as const;


// --- The seeded journal -------------------------------------------------------------------------------

const today = businessToday();
/** Last week's Monday to Friday (all in the past, whatever today is). */
const lastMonday = (() => {
  const dow = new Date(`${today}T00:00:00Z`).getUTCDay();
  return addDays(today, -((dow + 6) % 7) - 7);
})();
const [d1, d2, d3, d4, d5] = [0, 1, 2, 3, 4].map((i) => addDays(lastMonday, i)) as [string, string, string, string, string];
const expiry = (() => {
  let d = addDays(today, 25);
  while (isWeekend(d)) d = addDays(d, 1);
  return d;
})();


const SEEDS: Seed[] = [
  { ticker: 'SPY', strategy: 'cash-secured-put', ot: 1, tod: d1, pao: 250 },
  { ticker: 'AAPL', strategy: 'cash-secured-put', ot: 1, tod: d1, pao: 400 },
  { ticker: 'TSLA', strategy: 'long-call', ot: 2, tod: d2, pao: 300 },
  { ticker: 'AAPL', strategy: 'cash-secured-put', ot: 1, tod: d2, pao: 200, close: { tcd: d5, pac: 50, ct: 2 } },
  { ticker: 'QQQ', strategy: 'cash-secured-put', ot: 1, tod: d3, pao: 100, close: { tcd: d3, pac: 100, ct: 2 } },
  { ticker: 'IWM', strategy: 'cash-secured-put', ot: 1, tod: d5, pao: 120 },
];

const sign = (t: 1 | 2) => (t === 1 ? 1 : -1);
/** The premium cash flow of each date, by hand from the seeds. */
function flowsByDate(seeds: Seed[], ticker?: string): Map<string, number> {
  const m = new Map<string, number>();
  const add = (d: string, v: number) => m.set(d, (m.get(d) ?? 0) + v);
  for (const s of seeds) {
    if (ticker && s.ticker !== ticker) continue;
    add(s.tod, sign(s.ot) * s.pao);
    if (s.close) add(s.close.tcd, sign(s.close.ct) * s.close.pac);
  }
  return m;
}
const activeDates = new Set(SEEDS.flatMap((s) => [s.tod, ...(s.close ? [s.close.tcd] : [])]));

const seed = (server: E2eServer, t: Trader, s: Seed) => seedTrade(server, t, s, { expiry });

// --- The run ---------------------------------------------------------------------------------------------

let server: E2eServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let trader: Trader;
const pageErrors: string[] = [];
const pulseRequests: string[] = [];

beforeAll(async () => {
  server = await startServer();
  trader = await createTrader(server, 'pat.calendar', 'Pat Premium');
  for (const s of SEEDS) await seed(server, trader, s);
  // The trades went in behind the console's back: wait until the daily records have all of them.
  const expectedTotal = [...flowsByDate(SEEDS).values()].reduce((a, b) => a + b, 0);
  for (let i = 0; ; i++) {
    const body = await json<{ daily_income: { np: number; otc: number; ctc: number }[] }>(
      await fetch(`${server.baseUrl}/api/v1/metrics/premium-data`, { headers: { authorization: `Bearer ${trader.token}` } }),
    );
    const active = body.daily_income.filter((r) => r.otc + r.ctc > 0);
    if (active.length === activeDates.size && Math.abs(active.reduce((a, r) => a + r.np, 0) - expectedTotal) < 0.005) break;
    if (i > 100) throw new Error('the daily records never caught up with the seeded trades');
    await new Promise((r) => setTimeout(r, 200));
  }
  browser = await launchBrowser();
  context = await newContext(browser, server.baseUrl);
  // Share opens the social network's composer: answer it here (no network in tests) and record it.
  await context.route('https://twitter.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<title>compose</title>' }));
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('request', (r) => {
    if (r.url().includes('/api/v1/trades/tt/')) pulseRequests.push(r.url());
  });
  await signIn(page, trader);
});

afterEach(async ({ task }) => {
  if (task.result?.state === 'fail') await page.screenshot({ path: `${SCREENSHOT_DIR}failed-${task.name.replace(/\W+/g, '-')}.png` }).catch(() => undefined);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

const money = (v: number) => `${v < 0 ? '-' : ''}$${Math.abs(v).toFixed(2)}`;
/** The console's full money format ($1,234.56), for figures not abbreviated. */
const usd = (v: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(v);
const cell = (date: string) => page.locator(`.cal-day[data-date="${date}"]`);
/** A date as the calendar's labels write it ("November 23, 2026"), computed here, not read from the page. */
const longDate = (iso: string) => new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', month: 'long', day: '2-digit', year: 'numeric' }).format(new Date(`${iso}T00:00:00Z`));

describe('income calendar', () => {
  it("colours last week's days by their net premium, computed from the seeded trades", async () => {
    const flows = flowsByDate(SEEDS);
    // By hand: d1 SPY +250 and AAPL +400 = 650; d2 TSLA bought -300, AAPL sold +200 = -100; d3 QQQ sold 100
    // and bought back 100 = 0 (Even); d4 nothing; d5 AAPL bought back -50, IWM sold +120 = 70.
    expect([d1, d2, d3, d4, d5].map((d) => flows.get(d) ?? null)).toEqual([650, -100, 0, null, 70]);
    const expected = { [d1]: ['positive', money(650)], [d2]: ['negative', money(-100)], [d3]: ['even', 'Even'], [d4]: ['none', ''], [d5]: ['positive', money(70)] };
    for (const month of new Set([d1, d5].map((d) => d.slice(0, 7)))) {
      const answered = page.waitForResponse((r) => premiumData(new URL(r.url())));
      await page.goto(`/calendar/income?month=${month}`);
      // Asked without the days' maps, which the calendar never reads.
      const response = await answered;
      expect(new URL(response.url()).searchParams.get('days')).toBe('sums');
      expect(((await response.json()) as { daily_income: Record<string, unknown>[] }).daily_income.filter((d) => 'tickers' in d || 'tnpc' in d)).toEqual([]);
      await page.getByRole('heading', { name: 'Income', exact: true }).waitFor();
      await page.locator('.cal-day[data-tone]:not([data-tone="none"])').first().waitFor();
      for (const [date, [tone, text]] of Object.entries(expected)) {
        if (!date.startsWith(month)) continue;
        expect(await cell(date).getAttribute('data-tone'), date).toBe(tone);
        expect((await cell(date).locator('.cal-day-amount').allTextContents()).join(''), date).toBe(text);
      }
    }
    // Tomorrow (New York) cannot be opened.
    const tomorrow = addDays(today, 1);
    await page.goto(`/calendar/income?month=${tomorrow.slice(0, 7)}`);
    expect(await cell(tomorrow).isDisabled()).toBe(true);
  });

  it('asks for the premium data beside the accounts and strategies the shell waits for, and once', async () => {
    const asked = await dataAskedWhileShellWaits(page, `/calendar/income?month=${d1.slice(0, 7)}`, premiumData, cell(d1).getByText(money(650)));
    expect(asked).toHaveLength(1);
    expect(new URL(asked[0]!).searchParams.get('days')).toBe('sums');
  });

  it("shows a month's figures as unknown until its records load, offers Try again, and Back steps back a month", async () => {
    const month = d1.slice(0, 7);
    // By hand: the seeded cash flows of d1's month, up to today.
    const total = [...flowsByDate(SEEDS)].filter(([d]) => d.startsWith(month) && d <= today).reduce((a, [, v]) => a + v, 0);
    await page.route(premiumData, (route) => route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ message: 'boom' }) }));
    await page.goto(`/calendar/income?month=${month}`);
    // The spec's text (part 2 §8), as the dashboard says it, not the server's.
    const alert = page.getByRole('alert').filter({ hasText: 'Failed to fetch premium data' });
    await alert.waitFor({ timeout: 20_000 });
    // A failed load is not an empty month: no $0.00, no 0 active days.
    expect(await page.getByTestId('month-premium').innerText()).toBe('—');
    expect(await page.locator('.cal-totals dd').allInnerTexts()).toEqual(['—', '—', '—']);
    await page.unroute(premiumData);
    await alert.getByRole('button', { name: 'Try again' }).click();
    await page.getByTestId('month-premium').getByText(usd(total), { exact: true }).waitFor();
    expect(await alert.count()).toBe(0);
    // Previous and next are steps in the history: Back returns to the month before.
    await page.getByRole('button', { name: 'Previous month' }).click();
    await page.waitForURL((u) => u.searchParams.get('month') !== month);
    await page.goBack();
    await page.waitForURL((u) => u.searchParams.get('month') === month);
    await page.getByTestId('month-premium').getByText(usd(total), { exact: true }).waitFor();
    // A month that is not one shows this month, and the address stops naming it.
    await page.goto('/calendar/income?month=2026-13');
    await page.waitForURL((u) => u.pathname === '/calendar/income' && u.search === '');
    await cell(today).waitFor();
  });

  it("reads a month before the premium data's window (1 January two years back) from that month's own records (QA 74: shown empty)", async () => {
    // December three years back: the trader's records of it are set here (the API refuses trades dated more
    // than two years back, so a journal kept that long is seeded as the month's answer): its 1st weekday
    // +120.50 (green), its 6th -40 (red), its 11th even with a trade (yellow); by hand: net premium 80.50,
    // 3 active days.
    const year = Number(today.slice(0, 4)) - 3;
    const month = `${year}-12`;
    const weekdays = Array.from({ length: 31 }, (_, i) => `${month}-${String(i + 1).padStart(2, '0')}`).filter((d) => !isWeekend(d));
    const [green, red, even] = [weekdays[0]!, weekdays[5]!, weekdays[10]!];
    const days: Record<string, { np: number; otc: number; ctc: number }> = { [green]: { np: 120.5, otc: 1, ctc: 0 }, [red]: { np: -40, otc: 0, ctc: 1 }, [even]: { np: 0, otc: 1, ctc: 1 } };
    const url = (u: URL) => u.pathname === '/api/v1/metrics/daily-income' && u.searchParams.get('month') === month;
    await page.route(url, async (route) => {
      const real = await (await route.fetch()).json();
      for (const d of real.daily_income) Object.assign(d, days[d.income_date] ?? {});
      await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(real) });
    });
    try {
      await page.goto(`/calendar/income?month=${month}`);
      await page.getByTestId('month-premium').getByText(usd(80.5), { exact: true }).waitFor();
      expect(await cell(green).getAttribute('data-tone')).toBe('positive');
      expect(await cell(red).getAttribute('data-tone')).toBe('negative');
      expect(await cell(even).getAttribute('data-tone')).toBe('even');
      expect(await cell(weekdays[1]!).getAttribute('data-tone')).toBe('none');
      expect((await page.locator('.cal-totals dd').allInnerTexts())[1]).toBe('3');
    } finally {
      await page.unroute(url);
    }
  });

  it("opens the add-trade form on a day, and the day's trades from its count", async () => {
    await page.goto(`/calendar/income?month=${d1.slice(0, 7)}`);
    // A click on the day: the add-trade form for that date (part 2 §2).
    await cell(d1).click();
    const add = page.getByRole('dialog', { name: 'Add Open Trade' });
    await add.waitFor();
    expect(await add.getByLabel('Open Date').inputValue()).toBe(d1);
    await page.keyboard.press('Escape');
    await add.waitFor({ state: 'detached' });
    expect(await page.getByRole('dialog').count(), 'closing the form closes the day').toBe(0);

    // Its trade count: the day's trades. Two trades opened on d1: 250 + 400.
    const count = page.getByRole('button', { name: `Trades on ${longDate(d1)}` });
    expect(await count.innerText()).toBe('2 trades');
    await count.click();
    const dialog = page.getByRole('dialog', { name: /Trades on/ });
    await dialog.getByText('Summary').first().waitFor();
    await dialog.getByText(usd(650)).first().waitFor();
    await screenshotAt(page, 'calendar-day-dialog', DESKTOP, { fullPage: false });
    await dialog.getByRole('button', { name: 'Add a trade on this day' }).click();
    await add.waitFor();
    expect(await add.getByLabel('Open Date').inputValue()).toBe(d1);
    await page.keyboard.press('Escape');
    await add.waitFor({ state: 'detached' });
    // Back on the day's trades.
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // A day without trades has no count.
    expect(await page.getByRole('button', { name: `Trades on ${longDate(d4)}` }).count()).toBe(0);

    // A Saturday cannot be an open date: its click shows the day, without an add button.
    const saturday = addDays(lastMonday, 5);
    await page.goto(`/calendar/income?month=${saturday.slice(0, 7)}`);
    await cell(saturday).click();
    await dialog.getByText('No trade data available').waitFor();
    expect(await dialog.getByRole('button', { name: 'Add a trade on this day' }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await screenshotAt(page, 'calendar-income', DESKTOP);
    await screenshotAt(page, 'calendar-income', PHONE);
    // On a phone the count is a small badge; a thumb a few pixels off it still reaches it (QA: 18 by 16 px).
    await page.setViewportSize(PHONE);
    try {
      await page.goto(`/calendar/income?month=${d1.slice(0, 7)}`);
      const countButton = page.getByRole('button', { name: `Trades on ${longDate(d1)}` });
      // The button itself is the target, at least 32 x 32 px (QA 77 measured its box: 18 x 16 when the
      // target was a pseudo-element past it); the badge drawn in it stays small.
      const target = (await countButton.boundingBox())!;
      expect(Math.min(target.width, target.height)).toBeGreaterThanOrEqual(32);
      const b = (await countButton.locator('.cal-day-trades-badge').boundingBox())!;
      expect(b.height).toBeLessThan(20);
      const reaches = (x: number, y: number) => page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.closest('.cal-day-trades') !== null, [x, y]);
      expect(await reaches(b.x + b.width / 2, b.y - 3), 'above').toBe(true);
      expect(await reaches(b.x - 2, b.y + b.height / 2), 'left').toBe(true);
      // Its target is at least 32 x 32 px around it (QA: 18 x 16, then 24 px), and the day's amount above
      // it still opens the day.
      const [cx, cy] = [b.x + b.width / 2, b.y + b.height / 2];
      for (const [dx, dy] of [[-15.5, -15.5], [15.5, -15.5], [-15.5, 15.5], [15.5, 15.5]] as const) expect(await reaches(cx + dx, cy + dy), `${dx}, ${dy}`).toBe(true);
      const amount = (await page.locator(`.cal-day[data-date="${d1}"] .cal-day-amount-short`).boundingBox())!;
      expect(await page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.closest('button')?.classList.contains('cal-day'), [amount.x + amount.width / 2, amount.y + amount.height / 2])).toBe(true);
      await page.mouse.click(b.x + b.width / 2, b.y + b.height + 2);
      await page.getByRole('dialog', { name: /Trades on/ }).waitFor();
      await page.keyboard.press('Escape');
    } finally {
      await page.setViewportSize(DESKTOP);
    }
  });

  it('shows the Trade Summary of the month and downloads it as a PNG of the card at scale 2', async () => {
    const month = d5.slice(0, 7);
    await page.goto(`/calendar/income?month=${month}`);
    await page.locator('.cal-day[data-tone="positive"]').first().waitFor();
    await page.getByRole('button', { name: 'Trade Summary' }).click();
    const dialog = page.getByRole('dialog', { name: 'Trade Summary' });
    const card = dialog.getByTestId('share-card');
    await card.waitFor();
    // The month's premium, by hand: the flows of the seeds dated in this month, up to today.
    const monthFlows = [...flowsByDate(SEEDS)].filter(([d]) => d.startsWith(month) && d <= today).reduce((a, [, v]) => a + v, 0);
    expect(await dialog.getByTestId('summary-premium').textContent()).toBe(usd(monthFlows));
    // Closed in the month: AAPL (npc 200 - 50 = 150, a win) and QQQ (npc 0, fees 1.30: a loss): 1 of 2 = 50%,
    // when both closing dates are in this month.
    if (d3.startsWith(month) && d5.startsWith(month)) {
      expect(await dialog.getByTestId('summary-win-rate').textContent()).toBe('50.00%');
      // ROIC = (150 + 0 - fees 1.30 x 2) / collateral (strike 100 x 100 = 10,000 each) = 147.4 / 20,000 = 0.74%.
      expect(await dialog.getByTestId('summary-roic').textContent()).toBe('0.74%');
    }
    await dialog.locator('canvas').first().waitFor();
    await screenshotAt(page, 'share-trade-summary-dark', DESKTOP, { fullPage: false });

    // The card's layout size (the dialog may show it scaled down on a narrow screen).
    const box = await card.evaluate((el: HTMLElement) => ({ width: el.offsetWidth, height: el.offsetHeight }));
    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download' }).click()]);
    const monthName = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', month: 'long' }).format(new Date(`${month}-01T00:00:00Z`)).toLowerCase();
    expect(download.suggestedFilename()).toBe(`trade-summary-${monthName}-${month.slice(0, 4)}.png`);
    const png = decodePng(readFileSync((await download.path())!));
    expect(png.width).toBe(Math.round(box.width * 2));
    // The height may be a fraction of a pixel: the canvas rounds it.
    expect(Math.abs(png.height - box.height * 2)).toBeLessThanOrEqual(1);
    // Dark card: its padding is the dark background #0b1120; the hero figure is drawn in the positive green.
    const bg = png.pixel(Math.round(10 * 2), Math.round(png.height / 2));
    expect(bg.slice(0, 3)).toEqual([11, 17, 32]);
    expect(bg[3]).toBe(255);

    await dialog.getByRole('button', { name: 'Light' }).click();
    expect(await card.getAttribute('data-card-theme')).toBe('light');
    await screenshotAt(page, 'share-trade-summary-light', DESKTOP, { fullPage: false });
    await screenshotAt(page, 'share-trade-summary-light', PHONE, { fullPage: false });
    const [light] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download' }).click()]);
    const lightPng = decodePng(readFileSync((await light.path())!));
    expect(lightPng.pixel(20, Math.round(lightPng.height / 2)).slice(0, 3)).toEqual([255, 255, 255]);
    // Somewhere on the card is the positive green of the light theme (#0f9d6b), in the hero or the chart.
    let green = false;
    for (let y = 0; y < lightPng.height && !green; y += 2) for (let x = 0; x < lightPng.width && !green; x += 2) {
      const [r, g, b] = lightPng.pixel(x, y);
      green = Math.abs(r - 15) < 6 && Math.abs(g - 157) < 6 && Math.abs(b - 107) < 6;
    }
    expect(green).toBe(true);

    // Share opens the composer with the month's text; nothing is sent to our server.
    const [popup] = await Promise.all([context.waitForEvent('page'), dialog.getByRole('button', { name: 'Share' }).click()]);
    expect(decodeURIComponent(popup.url())).toContain('https://twitter.com/intent/tweet?text=');
    await popup.close();
    await page.keyboard.press('Escape');
  });
});

describe('events', () => {
  it('lists the open trades by expiration date', async () => {
    await page.goto('/calendar/events');
    const day = page.locator(`.ev-day[data-date="${expiry}"]`);
    await day.waitFor();
    // Open now: SPY, AAPL (d1), TSLA, IWM, all expiring on the same day; the closed ones are not events.
    const open = SEEDS.filter((s) => !s.close);
    await day.getByText(`${open.length} trades`).waitFor();
    for (const s of open) await day.getByText(s.ticker, { exact: true }).waitFor();
    await screenshotAt(page, 'calendar-events', DESKTOP);
    await screenshotAt(page, 'calendar-events', PHONE);
  });

  it('asks for the expirations beside the accounts and strategies the shell waits for, and once', async () => {
    // Before the change the page's request left only once the accounts were in (a round trip later).
    const upcoming = (url: URL) => url.pathname === '/api/v1/trades/upcoming-expirations';
    const asked = await dataAskedWhileShellWaits(page, '/calendar/events', upcoming, page.locator(`.ev-day[data-date="${expiry}"]`));
    expect(asked).toHaveLength(1);
  });
});

describe('pulse', () => {
  const ytdFrom = `${today.slice(0, 4)}-01-01`;
  const monthFrom = addDays(today, -29);
  const flowOf = (ticker: string, from: string) => [...flowsByDate(SEEDS, ticker)].filter(([d]) => d >= from && d <= today).reduce((a, [, v]) => a + v, 0);
  const aapl = (from: string) => flowOf('AAPL', from);
  // In the first days of a year last week's seeds are last year's, and YTD holds none of them: the lists
  // are then read over QTR (the last 90 days) instead (found by running this file on other dates).
  const listFrom = d1 >= ytdFrom ? ytdFrom : addDays(today, -89);

  it('checks the ticker, then shows the headline premium computed from the seeded trades', async () => {
    await page.goto('/pulse');
    const input = page.getByLabel('Ticker');
    await page.getByRole('button', { name: 'YTD' }).click();
    await page.getByText('Ticker is required').waitFor();
    await input.fill('toolong');
    await page.getByText('Invalid Ticker').waitFor();
    expect(await input.inputValue()).toBe('TOOLONG');
    await input.fill('aapl');
    expect(await input.inputValue()).toBe('AAPL');
    await page.getByRole('button', { name: 'YTD' }).click();
    // By hand: AAPL sold for 400 on d1 and for 200 on d2, bought back for 50 on d5: 550 in the year when all are in it.
    const ytd = aapl(ytdFrom);
    await page.getByTestId('pulse-premium').getByText(usd(ytd), { exact: true }).waitFor();
    if (listFrom !== ytdFrom) {
      await page.getByRole('button', { name: 'QTR' }).click();
      await page.getByTestId('pulse-premium').getByText(usd(aapl(listFrom)), { exact: true }).waitFor();
    }
    const section = (name: string) => page.getByRole('region', { name });
    await section('Closed trades').locator('tbody tr').first().waitFor();
    expect(await section('Closed trades').locator('tbody tr').count()).toBe(SEEDS.filter((s) => s.ticker === 'AAPL' && s.close && s.close.tcd >= listFrom).length);
    expect(await section('Open trades').locator('tbody tr').count()).toBe(SEEDS.filter((s) => s.ticker === 'AAPL' && !s.close && s.tod >= listFrom).length);
    // The donuts' names carry their slices (a canvas says nothing to a screen reader). Income by strategy
    // counts closed trades (docs/formulas.md, snpc): AAPL's one closed Cash-Secured Put, sold for 200 and
    // bought back for 50.
    const closedAapl = SEEDS.filter((s) => s.ticker === 'AAPL' && s.close && s.close.tcd >= listFrom);
    expect(closedAapl).toHaveLength(1);
    const npc = closedAapl.reduce((a, s) => a + sign(s.ot) * s.pao + sign(s.close!.ct) * s.close!.pac, 0);
    expect(npc).toBe(150);
    await page.getByRole('img', { name: `Income by strategy: Cash-Secured Put ${usd(npc)} · 1 trade`, exact: true }).waitFor();
    await page.locator('.pulse-gauges canvas').first().waitFor();
    await page.waitForTimeout(1500);
    await screenshotAt(page, 'pulse', DESKTOP);
    await screenshotAt(page, 'pulse', PHONE);
    // On a phone each trade is a card: every figure and its Share button inside the table's card, nothing
    // to scroll sideways (QA: the tables were 620 px wide in a 316 px card).
    await page.setViewportSize(PHONE);
    for (const name of ['Open trades', 'Closed trades']) {
      const region = section(name);
      if ((await region.locator('tbody tr').count()) === 0) continue;
      const frame = (await region.boundingBox())!;
      for (const cell of await region.locator('tbody td').all()) {
        const box = (await cell.boundingBox())!;
        expect(box.x + box.width, `${name}: ${await cell.innerText()}`).toBeLessThanOrEqual(frame.x + frame.width + 0.5);
      }
      expect(await region.locator('.pulse-table-wrap').evaluate((e) => e.scrollWidth - e.clientWidth)).toBe(0);
    }
    // On paper as wide as a phone (A4 at the default margins, 718 px) a table stays a table, without its
    // Share buttons, and nothing runs off the sheet.
    await layOutForPaper(page);
    try {
      for (const name of ['Open trades', 'Closed trades']) {
        const region = section(name);
        if ((await region.locator('tbody tr').count()) === 0) continue;
        expect(new Set(await region.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => getComputedStyle(tr).display))), name).toEqual(new Set(['table-row']));
        expect(await region.locator('thead th').first().evaluate((th) => th.getBoundingClientRect().width), name).toBeGreaterThan(20);
        expect(await region.getByRole('button', { name: /^Share / }).first().isVisible(), name).toBe(false);
      }
      expect(await sidewaysOverflow(page)).toEqual([]);
    } finally {
      await page.emulateMedia({ media: null });
    }
    await page.setViewportSize(DESKTOP);
  });

  it("shares a closed trade's card: the captured premium by hand, the PNG decoded", async () => {
    const closed = SEEDS.find((s) => s.ticker === 'AAPL' && s.close)!;
    await page.getByRole('button', { name: /Share AAPL Cash-Secured Put trade/ }).last().click();
    const dialog = page.getByRole('dialog', { name: 'Share Trade' });
    const card = dialog.getByTestId('share-card');
    await card.waitFor();
    // npc = +200 sold - 50 bought back = 150.
    await card.getByText(usd(sign(closed.ot) * closed.pao + sign(closed.close!.ct) * closed.close!.pac), { exact: true }).waitFor();
    await screenshotAt(page, 'share-trade-dark', DESKTOP, { fullPage: false });
    const size = await card.evaluate((el: HTMLElement) => ({ width: el.offsetWidth, height: el.offsetHeight }));
    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toBe(`trade-aapl-${closed.close!.tcd}.png`);
    const png = decodePng(readFileSync((await download.path())!));
    expect([png.width, png.height]).toEqual([size.width * 2, size.height * 2]);
    expect(png.pixel(20, Math.round(png.height / 2)).slice(0, 3)).toEqual([11, 17, 32]);
    await dialog.getByRole('button', { name: 'Light' }).click();
    await screenshotAt(page, 'share-trade-light', DESKTOP, { fullPage: false });
    await screenshotAt(page, 'share-trade-light', PHONE, { fullPage: false });
    // A blocked pop-up (window.open answers null) shows the spec's text for this card.
    await page.evaluate(() => {
      window.open = () => null;
    });
    await dialog.getByRole('button', { name: 'Share' }).click();
    await dialog.getByText('Failed to share trade details.').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('re-filters a narrower timeframe without fetching, and clears on a new ticker', async () => {
    const before = pulseRequests.length;
    await page.getByRole('button', { name: 'M', exact: true }).click();
    await page.getByTestId('pulse-premium').getByText(usd(aapl(monthFrom)), { exact: true }).waitFor();
    // The last 30 days lie inside the year (after 30 January): shown from the loaded answer, no request.
    expect(pulseRequests.length - before).toBe(monthFrom >= listFrom ? 0 : 1);
    await page.getByLabel('Ticker').fill('MSFT');
    expect(await page.getByTestId('pulse-premium').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'M', exact: true }).getAttribute('aria-pressed')).toBe('false');
  });

  it('shows the spec text when the pulse data cannot be fetched, and asks again when told', async () => {
    // The network refuses the call (the browser's own failure, after the query's retries).
    await page.route('**/api/v1/trades/tt/**', (route) => route.abort('failed'));
    await page.getByLabel('Ticker').fill('NVDA');
    await page.getByRole('button', { name: 'W', exact: true }).click();
    await page.getByText('Failed to fetch pulse data.').waitFor();
    await page.unroute('**/api/v1/trades/tt/**');
    // The same timeframe pressed again asks again (the failure used to stay until another was chosen).
    await page.getByRole('button', { name: 'W', exact: true }).click();
    await page.getByTestId('pulse-premium').getByText(usd(0), { exact: true }).waitFor();
    expect(await page.getByText('Failed to fetch pulse data.').count()).toBe(0);
    // Try again, inside the alert, asks again too (a ticker not loaded yet: nothing cached to show).
    await page.route('**/api/v1/trades/tt/**', (route) => route.abort('failed'));
    await page.getByLabel('Ticker').fill('TSLA');
    await page.getByRole('button', { name: 'YTD' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Failed to fetch pulse data.' });
    await alert.waitFor();
    await page.unroute('**/api/v1/trades/tt/**');
    await alert.getByRole('button', { name: 'Try again' }).click();
    await page.getByTestId('pulse-premium').getByText(usd(flowOf('TSLA', ytdFrom)), { exact: true }).waitFor();
  });

  it('keeps the ticker and timeframe in the address: a reload or a shared link shows the same pulse', async () => {
    await page.waitForURL((u) => u.search === '?ticker=TSLA&timeframe=5');
    await page.reload();
    await page.getByTestId('pulse-premium').getByText(usd(flowOf('TSLA', ytdFrom)), { exact: true }).waitFor();
    expect(await page.getByLabel('Ticker').inputValue()).toBe('TSLA');
    expect(await page.getByRole('button', { name: 'YTD' }).getAttribute('aria-pressed')).toBe('true');
    // A link with a ticker only fills the box and waits for a timeframe.
    await page.goto('/pulse?ticker=msft');
    expect(await page.getByLabel('Ticker').inputValue()).toBe('MSFT');
    expect(await page.getByTestId('pulse-premium').count()).toBe(0);
    // A new ticker typed drops the old timeframe from the address.
    await page.goto('/pulse?ticker=AAPL&timeframe=5');
    await page.getByTestId('pulse-premium').waitFor();
    await page.getByLabel('Ticker').fill('MSFT');
    await page.waitForURL((u) => u.pathname === '/pulse' && u.search === '');
  });

  it('on a pulse link, asks for that pulse beside the accounts and strategies the shell waits for, and once', async () => {
    // Before the change the page's request left only once the accounts were in (a round trip later).
    const tsla = (url: URL) => url.pathname === '/api/v1/trades/tt/TSLA';
    const asked = await dataAskedWhileShellWaits(page, '/pulse?ticker=tsla&timeframe=5', tsla, page.getByTestId('pulse-premium').getByText(usd(flowOf('TSLA', ytdFrom)), { exact: true }));
    expect(asked).toHaveLength(1);
    expect(new URL(asked[0]!).searchParams.get('timeframe')).toBe('5');
  });

  it('reads well in the dark theme', async () => {
    await page.evaluate(() => localStorage.setItem('oj.theme', 'dark'));
    await page.goto(`/calendar/income?month=${d1.slice(0, 7)}`);
    await cell(d1).and(page.locator('[data-tone="positive"]')).waitFor();
    await screenshotAt(page, 'calendar-income-dark', DESKTOP);
    await page.goto('/pulse');
    await page.getByLabel('Ticker').fill('AAPL');
    await page.getByRole('button', { name: 'YTD' }).click();
    await page.locator('.pulse-gauges canvas').first().waitFor();
    // Let the charts' entry animation finish before the picture.
    await page.waitForTimeout(1500);
    await screenshotAt(page, 'pulse-dark', DESKTOP);
    await page.evaluate(() => localStorage.setItem('oj.theme', 'light'));
  });
});

describe("a trade's card from the trades console", () => {
  /** The scripts this document has loaded so far, read here from the server (the page's own module graph). */
  const loadedScripts = async () => {
    const urls = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.endsWith('.js')));
    return Promise.all(urls.map(async (url) => ({ url, body: await (await fetch(url)).text() })));
  };
  const holds = (scripts: { body: string }[], text: string) => scripts.some((s) => s.body.includes(text));
  /** Whether keyboard focus is inside a dialog. */
  const focusIn = (dialog: ReturnType<Page['getByRole']>) => dialog.evaluate((el) => el.contains(document.activeElement));
  const focusedText = () => page.evaluate(() => document.activeElement?.textContent?.trim() ?? null);

  it("opens a closed trade's detail from the Closed list, shares its card with the figures by hand, downloads the PNG", async () => {
    const closed = SEEDS.find((s) => s.ticker === 'AAPL' && s.close)!;
    await page.goto('/trades/closed');
    const row = page.locator('tr[data-ticker="AAPL"]');
    await row.waitFor();
    // The list page holds neither the card (its share error text) nor the DOM-to-image library.
    const listScripts = await loadedScripts();
    expect(listScripts.length).toBeGreaterThan(0);
    expect(holds(listScripts, 'Failed to share trade details.')).toBe(false);
    expect(holds(listScripts, 'domToForeignObjectSvg')).toBe(false);
    expect(holds(listScripts, 'echarts')).toBe(false);

    await row.getByRole('button', { name: 'Actions for AAPL' }).click();
    await page.getByRole('menuitem', { name: 'View Detail' }).click();
    const detail = page.getByRole('dialog', { name: 'AAPL · Cash-Secured Put' });
    const shareButton = detail.getByRole('button', { name: 'Share', exact: true });
    await shareButton.waitFor();
    // Its status as the lists word it (a debit close: BTC), and its disposition as the dashboard counts it
    // (closed before its expiration date: Early Exit). QA saw only the first, labelled "Disposition".
    // One Status row in the whole detail (it once had two: "Closed" and "Closed (BTC)").
    const term = (region: string, name: string) =>
      detail.getByRole('region', { name: region }).locator('.trade-summary-row').filter({ has: page.locator('dt', { hasText: new RegExp(`^${name}$`) }) }).locator('dd');
    expect([closed.close!.ct, closed.close!.tcd < expiry]).toEqual([2, true]);
    expect(await detail.locator('dt', { hasText: /^Status$/ }).count()).toBe(1);
    expect(await term('Contract Details', 'Status').textContent()).toBe('Closed (BTC)');
    expect(await term('Closing Information', 'Disposition').textContent()).toBe('Early Exit');
    await screenshotAt(page, 'trade-detail-share', DESKTOP, { fullPage: false });
    await screenshotAt(page, 'trade-detail-share', PHONE, { fullPage: false });

    await shareButton.click();
    const dialog = page.getByRole('dialog', { name: 'Share Trade' });
    const card = dialog.getByTestId('share-card');
    await card.waitFor();
    expect(await focusIn(dialog)).toBe(true);
    // The card shows the seeded ticker and what the trade captured: sold for +200, bought back for -50 = 150.
    await card.getByText('AAPL · Cash-Secured Put', { exact: true }).waitFor();
    const captured = sign(closed.ot) * closed.pao + sign(closed.close!.ct) * closed.close!.pac;
    expect(captured).toBe(150);
    await card.getByText(usd(captured), { exact: true }).waitFor();
    // Collateral of a cash-secured put: strike 100 x 100 shares x 1 contract, abbreviated as amounts from
    // 1000 are (part 1 §9; QA: "COLLATERAL $166,000…" was cut off on the card).
    expect(100 * 100 * 1).toBe(10_000);
    await card.locator('.share-stat').filter({ hasText: 'Collateral' }).getByText('$10K', { exact: true }).waitFor();
    expect(holds(await loadedScripts(), 'Failed to share trade details.')).toBe(true);
    await screenshotAt(page, 'share-trade-from-detail', DESKTOP, { fullPage: false });

    // On a phone the card is shown scaled into the dialog, the buttons stay on screen, and the image is
    // still the card at scale 2.
    await page.setViewportSize(PHONE);
    try {
      await screenshotAt(page, 'share-trade-from-detail', PHONE, { fullPage: false });
      for (const name of ['Download', 'Share', 'Light', 'Dark']) {
        const box = (await dialog.getByRole('button', { name, exact: true }).boundingBox())!;
        expect(box.x, name).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, name).toBeLessThanOrEqual(PHONE.width);
        expect(box.y + box.height, name).toBeLessThanOrEqual(PHONE.height);
      }
      const shown = (await card.boundingBox())!;
      expect(shown.x + shown.width).toBeLessThanOrEqual(PHONE.width);
      const size = await card.evaluate((el: HTMLElement) => ({ width: el.offsetWidth, height: el.offsetHeight }));
      const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download' }).click()]);
      expect(download.suggestedFilename()).toBe(`trade-aapl-${closed.close!.tcd}.png`);
      const png = decodePng(readFileSync((await download.path())!));
      expect([png.width, png.height]).toEqual([size.width * 2, size.height * 2]);
      // The dark card's background (#0b1120) in its padding.
      expect(png.pixel(20, Math.round(png.height / 2)).slice(0, 3)).toEqual([11, 17, 32]);
    } finally {
      await page.setViewportSize(DESKTOP);
    }
    expect(holds(await loadedScripts(), 'domToForeignObjectSvg')).toBe(true);

    // Close returns to the detail with focus on its Share; Escape does the same, then closes the detail.
    await dialog.locator('.modal-footer').getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await focusIn(detail)).toBe(true);
    expect(await focusedText()).toBe('Share');
    await page.keyboard.press('Enter');
    await card.waitFor();
    expect(await focusIn(dialog)).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await focusedText()).toBe('Share');
    await page.keyboard.press('Escape');
    await detail.waitFor({ state: 'detached' });
  });

  it('shares straight from the row menus, an open trade showing what it was opened for', async () => {
    await page.goto('/trades/closed');
    const closedMenu = page.locator('tr[data-ticker="QQQ"]').getByRole('button', { name: 'Actions for QQQ' });
    await closedMenu.click();
    await page.getByRole('menuitem', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share Trade' });
    // QQQ sold for 100 and bought back for 100: nothing captured.
    await dialog.getByTestId('share-card').getByText('QQQ · Cash-Secured Put', { exact: true }).waitFor();
    await dialog.getByTestId('share-card').getByText(usd(0), { exact: true }).waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await closedMenu.evaluate((el) => el === document.activeElement)).toBe(true);

    await page.goto('/trades/open');
    const spy = SEEDS.find((s) => s.ticker === 'SPY')!;
    await page.locator('tr[data-ticker="SPY"]').getByRole('button', { name: 'Actions for SPY' }).click();
    await page.getByRole('menuitem', { name: 'Share' }).click();
    const card = dialog.getByTestId('share-card');
    await card.getByText('SPY · Cash-Secured Put', { exact: true }).waitFor();
    await card.getByText('Credit received at open').waitFor();
    await card.getByText(usd(spy.pao), { exact: true }).waitFor();
    await screenshotAt(page, 'share-trade-open-from-list', DESKTOP, { fullPage: false });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  });
});

describe('empty journal', () => {
  it('renders the calendar, events and pulse without trades', async () => {
    const empty = await createTrader(server, 'pat.empty', 'Pat Premium');
    const ctx = await newContext(browser, server.baseUrl);
    const p = await ctx.newPage();
    const errors: string[] = [];
    p.on('pageerror', (e) => errors.push(String(e)));
    await signIn(p, empty);
    await p.goto('/calendar/income');
    await p.locator('.cal-day').first().waitFor();
    await p.getByTestId('month-premium').getByText('$0.00').waitFor();
    expect(await p.locator('.cal-day[data-tone]:not([data-tone="none"])').count()).toBe(0);
    await screenshotAt(p, 'calendar-income-empty', DESKTOP);
    await p.goto('/calendar/events');
    await p.getByText('No expirations in the next 60 days').waitFor();
    await p.goto('/pulse');
    await p.getByLabel('Ticker').fill('AAPL');
    await p.getByRole('button', { name: 'YTD' }).click();
    await p.getByText('No open trades available.').waitFor();
    await p.getByText('No closed trades available.').waitFor();
    expect(await p.getByText('No Data').count()).toBe(2);
    await p.getByTestId('pulse-premium').getByText('$0.00').waitFor();
    await screenshotAt(p, 'pulse-empty', DESKTOP);
    await screenshotAt(p, 'pulse-empty', PHONE);

    // One trade: a put sold for 180 on Wednesday colours that day and is the ticker's whole premium.
    const one: Seed = { ticker: 'MSFT', strategy: 'cash-secured-put', ot: 1, tod: d3, pao: 180 };
    await seed(server, empty, one);
    await p.goto(`/calendar/income?month=${d3.slice(0, 7)}`);
    const day = p.locator(`.cal-day[data-date="${d3}"]`);
    for (let i = 0; (await day.getAttribute('data-tone')) !== 'positive'; i++) {
      // The projector may not have written the day yet: Refresh asks again.
      if (i > 50) throw new Error('the one trade never reached the calendar');
      await p.getByRole('button', { name: 'Refresh' }).click();
      await p.waitForTimeout(200);
    }
    expect(await day.locator('.cal-day-amount').textContent()).toBe(money(180));
    expect(await p.locator('.cal-day[data-tone]:not([data-tone="none"])').count()).toBe(1);
    await p.goto('/pulse');
    await p.getByLabel('Ticker').fill('MSFT');
    await p.getByRole('button', { name: 'QTR' }).click();
    await p.getByTestId('pulse-premium').getByText(usd(180), { exact: true }).waitFor();
    expect(await p.getByRole('region', { name: 'Open trades' }).locator('tbody tr').count()).toBe(1);
    expect(errors).toEqual([]);
    await ctx.close();
  });
});

describe('expired subscription', () => {
  it('shows the locked screen on lists, calendar and pulse, and keeps the data', async () => {
    const db = server.runtime.deps.database.db;
    await sql`update subscriptions set current_period_end = ${new Date(Date.now() - 86_400_000)} where user_uid = (select uid from users where email = ${trader.email})`.execute(db);
    await server.app.principals.settled();
    // A stale token makes the console refresh it; the new one carries the expired status.
    await page.evaluate(() => localStorage.setItem('oj.session.token', 'x.y.z'));
    for (const path of ['/calendar/income', '/calendar/events', '/pulse', '/trades/open']) {
      await page.goto(path);
      await page.getByRole('heading', { name: 'Your subscription has expired, please renew' }).waitFor();
      expect(await page.locator('.cal-grid, .pulse-controls, .ev-list').count(), path).toBe(0);
    }
    await screenshotAt(page, 'calendar-locked', PHONE);

    // Renewed: the same days are coloured as before; nothing was removed.
    await sql`update subscriptions set current_period_end = ${new Date(Date.now() + 30 * 86_400_000)} where user_uid = (select uid from users where email = ${trader.email})`.execute(db);
    await server.app.principals.settled();
    await page.evaluate(() => localStorage.setItem('oj.session.token', 'x.y.z'));
    await page.goto(`/calendar/income?month=${d1.slice(0, 7)}`);
    await page.locator('.cal-grid').waitFor();
    await page.locator(`.cal-day[data-date="${d1}"][data-tone="positive"]`).waitFor();
    expect(pageErrors).toEqual([]);
  });
});
