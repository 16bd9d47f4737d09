import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

/**
 * The performance budget of issue 12, read from the built console in web/dist (`npm run build:web`):
 * the first route at most 250 KB of script (gzip), the dashboard's chart code at most 350 KB, and the
 * trade list pages load no chart code. A route loads its chunk and that chunk's static imports (Vite
 * preloads exactly those with the route's dynamic import); the chunks of the current build are the ones
 * reachable from index.html (web/dist keeps an hour of older builds beside it).
 */
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const KB = 1024;

const read = (file: string) => readFileSync(`${DIST}assets/${file}`, 'utf8');
const gz = (file: string) => gzipSync(read(file)).length;
/** ECharts code (core, charts, components, renderer) names itself in its strings; nothing else does. */
const isChartCode = (file: string) => read(file).includes('echarts');

function staticImports(file: string): string[] {
  const code = read(file);
  const out = new Set<string>();
  // Minified ES modules: import{a as b}from"./x.js"; import"./x.js"; export{...}from"./x.js".
  for (const m of code.matchAll(/(?:\bimport|\bexport)\s*(?:[\w*${}\s,]*?from\s*)?["']\.\/([\w.-]+\.js)["']/g)) out.add(m[1]!);
  return [...out];
}
function closure(file: string): Set<string> {
  const seen = new Set<string>();
  const visit = (f: string) => {
    if (seen.has(f)) return;
    seen.add(f);
    for (const d of staticImports(f)) visit(d);
  };
  visit(file);
  return seen;
}
const size = (files: Iterable<string>) => [...files].reduce((s, f) => s + gz(f), 0);

describe('bundle budget (web/dist)', () => {
  const built = existsSync(`${DIST}index.html`);
  const html = built ? readFileSync(`${DIST}index.html`, 'utf8') : '';
  const entry = /src="\/assets\/(index-[\w-]+\.js)"/.exec(html)?.[1];
  const routes = new Map<string, string>();
  if (entry) {
    for (const m of read(entry).matchAll(/import\(["']\.\/([\w.-]+\.js)["']\)/g)) {
      const file = m[1]!;
      routes.set(file.replace(/-[\w-]{8}\.js$/, ''), file); // Vite's 8-character hashes may hold - and _
    }
  }
  const route = (name: string) => {
    const file = routes.get(name);
    if (!file) throw new Error(`no ${name} chunk in the build (routes: ${[...routes.keys()].join(', ')})`);
    return file;
  };
  /**
   * The trade list pages by their own description (web/src/features/trades/routes): small chunks are merged
   * (web/vite.config.ts), so the four pages share one chunk, named after one of them.
   */
  const TRADE_LISTS: Record<string, string> = {
    open: 'Positions you hold now, newest first.',
    closed: 'Closed, expired, assigned, called-away and exercised trades, newest close first.',
    rolled: 'Trades you rolled to a new expiration, newest roll first.',
    expiring: 'Open trades that have expired or expire within 7 days, soonest first.',
  };
  const tradeListPages = (): [string, string][] =>
    Object.entries(TRADE_LISTS).map(([kind, text]) => {
      const holders = [...routes.values()].filter((f) => read(f).includes(text));
      expect(holders, `the ${kind} trades page's chunk`).toHaveLength(1);
      return [`${kind} trades`, holders[0]!];
    });

  it('finds the current build', () => {
    expect(built, 'run `npm run build:web` first').toBe(true);
    expect(entry).toBeTruthy();
    expect(routes.size).toBeGreaterThan(10);
  });

  it('first route: at most 250 KB of script (gzip), and no chart code', () => {
    const shell = closure(entry!);
    for (const first of ['landing-route', 'sign-in-route']) {
      const files = new Set([...shell, ...closure(route(first))]);
      const kb = size(files) / KB;
      console.info(`first route (${first}): ${kb.toFixed(1)} KB gzip in ${files.size} chunks`);
      expect(kb).toBeLessThanOrEqual(250);
      expect([...files].filter(isChartCode)).toEqual([]);
    }
  });

  it("the dashboard's chart code is at most 350 KB (gzip)", () => {
    const shell = closure(entry!);
    const dashboard = [...closure(route('dashboard-page'))].filter((f) => !shell.has(f));
    const charts = dashboard.filter(isChartCode);
    expect(charts.length).toBeGreaterThan(0);
    const kb = size(charts) / KB;
    console.info(`dashboard: charts ${kb.toFixed(1)} KB gzip (${charts.join(', ')}); whole route ${(size(dashboard) / KB).toFixed(1)} KB`);
    expect(kb).toBeLessThanOrEqual(350);
  });

  it('the trade list pages load no chart code', () => {
    for (const [name, file] of [...tradeListPages(), ['app-shell', route('app-shell')]]) {
      const files = [...closure(file!), ...closure(entry!)];
      expect(files.filter(isChartCode), name).toEqual([]);
    }
  });

  it("the trade list pages load a trade's share card only when it is shared, and its image library only on Download", () => {
    // The card is the one chunk with its share error text (part 2 §8); modern-screenshot exports its API by name.
    const isTradeCard = (file: string) => read(file).includes('Failed to share trade details.');
    const isImageLibrary = (file: string) => read(file).includes('domToForeignObjectSvg');
    // Found by that text, not by name: merged with other small chunks (web/vite.config.ts), the card's chunk
    // may be named after another module of it (seen: the weekly income share's).
    const holders = [...routes.values()].filter(isTradeCard);
    expect(holders, "the trade share card's chunk").toHaveLength(1);
    const card = holders[0]!;
    for (const [name, file] of [...tradeListPages(), ['app-shell', route('app-shell')]]) {
      const files = [...closure(file!), ...closure(entry!)];
      expect(files.filter((f) => isTradeCard(f) || isImageLibrary(f)), name).toEqual([]);
    }
    // Opened, the card brings no chart code; the image library is a dynamic import of the card's frame.
    const opened = [...closure(card)];
    expect(opened.filter((f) => isChartCode(f) || isImageLibrary(f))).toEqual([]);
    const library = opened.flatMap((f) => [...read(f).matchAll(/import\(["']\.\/([\w.-]+\.js)["']\)/g)].map((m) => m[1]!)).filter(isImageLibrary);
    expect(library.length).toBe(1);
  });
});
