import { cpus, totalmem } from 'node:os';
import type { Page } from 'playwright-core';
import { consoleBuilds, launchBenchBrowser } from './console-builds.ts';
import { startServer } from '../web/e2e/support/server.ts';
import { signIn } from '../web/e2e/support/trader.ts';
import { seedHeavyTrader } from './heavy-journal.ts';
import { optionsOf } from './options.ts';

/**
 * `npm run bench -- trade-list [--rows N] [--runs R] [--events E] [--versus FILE]` (build the console first:
 * `npm run build:web`)
 *
 * Load More on a long Closed list, in headless Chromium against the real product in this process: a heavy
 * trader (the synthetic journal, `--events` 60,000 by default, about 25,000 of them the trader's) opens
 * /trades/closed with All Dates at 50 a page (the largest page the settings offer) and presses Load More
 * until N rows are loaded (3,000 by default), R times. A click's time runs from the press to the
 * next frame painted after "Showing M out of" says the new count (two animation frames), so it holds the
 * API's answer, React's work, and the browser's layout and paint of the rows. Reported per thousand rows
 * loaded (the median click of each), with the page's DOM nodes and JS heap (after a full collection) at the end.
 *
 * `--versus FILE` compares with another build (its index.html, copied aside after its `npm run
 * build:web`, as for the dashboard bench): runs alternate between the two builds on the same journal.
 */
const r0 = (x: number) => Math.round(x);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : NaN;
};
const log = (...a: unknown[]) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...a);

interface Run {
  /** Click times by the thousand of rows loaded before the click (0: the first thousand). */
  byThousand: number[][];
  domNodes: number;
  heapMb: number;
}

/**
 * Run in the page (a string: this package is typed without the DOM): presses the focused Load More and
 * answers the milliseconds from the press to the second frame after the count stopped saying `before`.
 */
const timedPress = (before: number) => `new Promise((resolve) => {
  const count = document.querySelector('.trade-list-count');
  const t0 = performance.now();
  const observer = new MutationObserver(() => {
    if (count.textContent.startsWith('Showing ${before} ')) return;
    observer.disconnect();
    requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - t0)));
  });
  observer.observe(count, { childList: true, characterData: true, subtree: true });
  document.activeElement.click();
})`;
const loadedRows = `Number(/Showing (\\d+)/.exec(document.querySelector('.trade-list-count')?.textContent ?? '')?.[1] ?? 0)`;

async function loadMoreRun(page: Page, rows: number): Promise<Run> {
  await page.goto('/trades/closed?range=all');
  await page.getByText(/Showing 50 out of \d+ Trades/).waitFor({ timeout: 60_000 });
  const byThousand: number[][] = [];
  for (;;) {
    const loaded = (await page.evaluate(loadedRows)) as number;
    if (loaded >= rows) break;
    // A CSS locator: a role query walks the accessibility tree, slow on a page of 130,000 nodes.
    const button = page.locator('.trade-list-footer button', { hasText: 'Load More' });
    if (!(await button.count())) throw new Error(`the list ended at ${loaded} rows: ask for fewer (--rows) or a larger journal (--events)`);
    await button.focus();
    const ms = (await page.evaluate(timedPress(loaded))) as number;
    (byThousand[Math.floor(loaded / 1000)] ??= []).push(ms);
  }
  const domNodes = (await page.evaluate(`document.getElementsByTagName('*').length`)) as number;
  // After a full collection (Chromium runs with --expose-gc): what the page holds, not what it has yet to free.
  const heapMb = (await page.evaluate(`(globalThis.gc?.(), (performance.memory?.usedJSHeapSize ?? 0) / 2 ** 20)`)) as number;
  return { byThousand, domNodes, heapMb: r0(heapMb) };
}

export async function main(argv: string[]): Promise<void> {
  const get = optionsOf(argv);
  const rows = Number(get('rows') ?? 3000);
  const runs = Number(get('runs') ?? 3);
  const events = Number(get('events') ?? 60_000);
  const versus = get('versus');
  const builds = consoleBuilds(versus);
  const server = await startServer();
  const browser = await launchBenchBrowser(['--enable-precise-memory-info', '--js-flags=--expose-gc']);
  try {
    // About 25,000 of the journal's trades are the heavy trader's, most of them closed.
    const trader = await seedHeavyTrader(server, { events, heavyUserLineages: Math.round(events * 0.3) });
    const context = await browser.newContext({ baseURL: server.baseUrl, viewport: { width: 1366, height: 900 }, locale: 'en-US', timezoneId: 'America/New_York' });
    context.setDefaultTimeout(60_000);
    const page = await context.newPage();
    await signIn(page, trader);
    await page.evaluate(() => localStorage.setItem('ItemsPerPage', '50'));

    const current: Run[] = [];
    const other: Run[] = [];
    for (let i = 0; i < runs * (builds ? 2 : 1); i++) {
      const ofOther = builds !== null && i % 2 === 0;
      builds?.serve(ofOther ? 'other' : 'current');
      const run = await loadMoreRun(page, rows);
      (ofOther ? other : current).push(run);
      log(`${ofOther ? 'other' : 'current'} run: median click ${r0(median(run.byThousand.flat()))} ms, ${run.domNodes} DOM nodes`);
    }
    const summary = (rs: Run[]) => ({
      clickMsByRowsLoaded: Object.fromEntries(
        Array.from({ length: Math.ceil(rows / 1000) }, (_, k) => [`${k * 1000}-${Math.min(rows, (k + 1) * 1000)}`, r0(median(rs.flatMap((r) => r.byThousand[k] ?? [])))]),
      ),
      clickMsAll: r0(median(rs.flatMap((r) => r.byThousand.flat()))),
      domNodesAtEnd: r0(median(rs.map((r) => r.domNodes))),
      heapMbAtEnd: r0(median(rs.map((r) => r.heapMb))),
    });
    const mine = summary(current);
    const report = {
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version },
      heavyUserTrades: trader.trades,
      rows,
      runs,
      current: mine,
      ...(builds && {
        versus: {
          build: versus,
          ...summary(other),
          lastThousandRatio: (() => {
            const k = Math.ceil(rows / 1000) - 1;
            const a = median(current.flatMap((r) => r.byThousand[k] ?? []));
            const b = median(other.flatMap((r) => r.byThousand[k] ?? []));
            return Math.round((a / b) * 100) / 100;
          })(),
        },
      }),
    };
    console.log(JSON.stringify(report, null, 2));
    await context.close();
  } finally {
    builds?.restore();
    await browser.close();
    await server.close();
  }
}
