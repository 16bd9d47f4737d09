import { cpus, totalmem } from 'node:os';
import { consoleBuilds, launchBenchBrowser } from './console-builds.ts';
import { startServer } from '../web/e2e/support/server.ts';
import { seedHeavyTrader } from './heavy-journal.ts';
import { optionsOf } from './options.ts';

/**
 * `npm run bench -- dashboard [--events N] [--runs R] [--trace FILE] [--versus FILE] [--network fast-4g|slow-4g]`
 * (build the console first: `npm run build:web`)
 *
 * The dashboard's time to interactive for a heavy user, in headless Chromium against the real product
 * in this process (gateway serving web/dist, projector, PostgreSQL at DATABASE_URL):
 * 1. a trader signs up; the synthetic journal generator writes a heavy journal for that user (about
 *    96,000 trades from 230,000 events by default, two years of weekdays) straight into the event
 *    store, and the running projector builds the read models from it;
 * 2. Chromium signs in, then loads /dashboard R times (a fresh page each time, caches warm as a returning
 *    trader's are): content = navigation to the Income Quadrant's figures on screen; interactive =
 *    navigation to the first input handled (a click on the Performance M / YTD switch reflected).
 * Prints a JSON report; the budget is interactive within 1.5 s. `--trace FILE` also writes a Chromium
 * trace of one more load, not counted (open it in DevTools' Performance panel). `--network fast-4g` or
 * `slow-4g` loads each page through Chrome DevTools' throttling preset of that name (a phone away from
 * Wi-Fi): the console's files come from the warm cache, the API's answers over the slower link.
 *
 * `--versus FILE` compares two console builds on the same journal and machine: FILE is another build's
 * index.html, copied aside after its `npm run build:web` (a build's assets stay in web/dist for an hour,
 * so build it, copy its index.html, then build the one to compare). The loads alternate between that build
 * and the current one (R loads each, the served index.html swapped before each load and restored at the
 * end), and the report adds the other build's figures, the ratio of the p50s and how many of the pairs
 * the current build won: run-to-run noise on a shared two-core machine is larger than most differences.
 */
const PREMIUM_DATA_PATH = '/api/v1/metrics/premium-data';
/** `--network`: Chrome DevTools' throttling presets of those names (latency in ms, throughput in bytes/s). */
const NETWORKS: Record<string, { latency: number; downloadThroughput: number; uploadThroughput: number }> = {
  'fast-4g': { latency: 165, downloadThroughput: (9_000 * 1000) / 8, uploadThroughput: (1_500 * 1000) / 8 },
  'slow-4g': { latency: 562.5, downloadThroughput: (1_474.56 * 1000) / 8, uploadThroughput: (675 * 1000) / 8 },
};
const r0 = (x: number) => Math.round(x);
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
};

export async function main(argv: string[]): Promise<void> {
  const get = optionsOf(argv);
  const events = Number(get('events') ?? 230_000);
  const runs = Number(get('runs') ?? 7);
  const trace = get('trace');
  const versus = get('versus');
  const network = get('network');
  const conditions = network === undefined ? null : NETWORKS[network];
  if (conditions === undefined) throw new Error(`--network takes ${Object.keys(NETWORKS).join(' or ')}, not ${network}`);
  const builds = consoleBuilds(versus);
  const server = await startServer();
  const browser = await launchBenchBrowser();
  try {
    // The heavy user owns the same share of lineages as in the projections bench (67,500 of 1,000,000
    // events' worth, about 96,000 trades); everyone else's trades are spread over 200 other users.
    const { email, password, trades } = await seedHeavyTrader(server, { events, heavyUserLineages: 67_500 });

    const context = await browser.newContext({ baseURL: server.baseUrl, viewport: { width: 1366, height: 900 }, locale: 'en-US', timezoneId: 'America/New_York' });
    // A shared, loaded machine: generous waits (the figures are measured, not the waits).
    context.setDefaultTimeout(60_000);
    const page = await context.newPage();
    await page.goto('/signin');
    await page.getByLabel('Email').fill(email).catch(async (e: unknown) => {
      await page.screenshot({ path: '/tmp/oj-bench-dashboard-signin.png' });
      console.error(`sign-in page at ${page.url()}: ${(await page.content()).slice(0, 2000)}`);
      throw e;
    });
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/dashboard');
    await page.getByTestId('quadrant-today-value').waitFor({ timeout: 60_000 });
    const content: number[] = [];
    const interactive: number[] = [];
    const premiumMs: number[] = [];
    const other = { content: [] as number[], interactive: [] as number[], premiumMs: [] as number[], bytes: 0, encoding: 'none' };
    let bytes = 0;
    let encoding = 'none';
    // With --versus, the other build's load before each of the current one's; with --trace, one more load
    // after the measured ones, traced (tracing slows it: not counted).
    const loads = runs * (builds ? 2 : 1);
    for (let i = 0; i < loads + (trace ? 1 : 0); i++) {
      const traced = i === loads;
      const ofOther = builds !== null && !traced && i % 2 === 0;
      builds?.serve(ofOther ? 'other' : 'current');
      const p = await context.newPage();
      if (conditions) {
        // A phone's network for this page's requests (the console's files still come from the warm cache).
        const cdp = await context.newCDPSession(p);
        await cdp.send('Network.enable');
        await cdp.send('Network.emulateNetworkConditions', { offline: false, ...conditions });
      }
      if (traced) await browser.startTracing(p, { path: trace, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'blink.user_timing', 'loading', 'toplevel', 'input', 'benchmark', 'rail', 'disabled-by-default-v8.cpu_profiler'] });
      const t0 = performance.now();
      // Whatever its query: this build asks for `?days=sums`, builds before it for the full answer.
      const response = p.waitForResponse((r) => new URL(r.url()).pathname === PREMIUM_DATA_PATH, { timeout: 60_000 });
      await p.goto('/dashboard');
      await p.getByTestId('quadrant-today-value').waitFor({ timeout: 60_000 });
      const contentMs = performance.now() - t0;
      const m = p.getByRole('radiogroup', { name: 'Performance timeframe' }).getByRole('radio', { name: i % 2 ? 'YTD' : 'M' });
      await m.click();
      await p.waitForFunction((el) => el?.getAttribute('aria-checked') === 'true', await m.elementHandle(), { timeout: 60_000 });
      const interactiveMs = performance.now() - t0;
      const res = await response;
      if (traced) {
        await browser.stopTracing();
        await p.close();
        break;
      }
      // As sent: compressed when the gateway compressed it.
      const answerBytes = Number((await res.headerValue('content-length')) ?? (await res.body()).length);
      const answerEncoding = (await res.headerValue('content-encoding')) ?? 'none';
      const requestMs = await p.evaluate((path) => {
        const e = performance.getEntriesByType('resource').find((r) => new URL(r.name).pathname === path) as { responseEnd: number; requestStart: number } | undefined;
        return e ? e.responseEnd - e.requestStart : NaN;
      }, PREMIUM_DATA_PATH);
      await p.close();
      if (ofOther) {
        other.content.push(contentMs);
        other.interactive.push(interactiveMs);
        other.premiumMs.push(requestMs);
        other.bytes = answerBytes;
        other.encoding = answerEncoding;
        continue;
      }
      content.push(contentMs);
      interactive.push(interactiveMs);
      premiumMs.push(requestMs);
      bytes = answerBytes;
      encoding = answerEncoding;
    }
    const stats = (xs: number[]) => ({ p50: r0(quantile(xs, 0.5)), max: r0(Math.max(...xs)) });
    const report = {
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version },
      heavyUserTrades: trades,
      runs,
      network: network ?? 'none (loopback)',
      premiumDataResponseKb: Math.round(bytes / 1024),
      premiumDataEncoding: encoding,
      premiumDataRequestMs: stats(premiumMs),
      contentMs: stats(content),
      interactiveMs: { ...stats(interactive), budget: 1500 },
      ...(builds && {
        versus: {
          build: versus,
          premiumDataResponseKb: Math.round(other.bytes / 1024),
          premiumDataEncoding: other.encoding,
          premiumDataRequestMs: stats(other.premiumMs),
          contentMs: stats(other.content),
          interactiveMs: stats(other.interactive),
          contentRatio: Math.round((quantile(content, 0.5) / quantile(other.content, 0.5)) * 100) / 100,
          interactiveRatio: Math.round((quantile(interactive, 0.5) / quantile(other.interactive, 0.5)) * 100) / 100,
          pairsWonByCurrent: interactive.filter((x, k) => x < other.interactive[k]!).length,
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
