import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { findBrowser } from '@oj/infra/testing/preflight';

/**
 * A Chromium found on this machine (CHROMIUM_PATH, then chromium / chromium-browser / google-chrome on
 * PATH, then Playwright's own browsers) driven by playwright-core: nothing is downloaded. Screenshots go to
 * `.artifacts/screenshots/<name>-<width>.png` at the repo root, at a desktop and a phone width.
 */
export const DESKTOP = { width: 1366, height: 900 } as const;
export const PHONE = { width: 375, height: 812 } as const;
/** A sheet of A4 at Chromium's default print margins, in CSS px: as narrow as a phone. */
export const PAPER = { width: 718, height: 1000 } as const;
export const SCREENSHOT_DIR = fileURLToPath(new URL('../../../.artifacts/screenshots/', import.meta.url));

/** `backForwardCache: true` keeps Chromium's back-forward cache on (playwright turns it off by default). */
export async function launchBrowser(options: { backForwardCache?: boolean } = {}): Promise<Browser> {
  const executablePath = findBrowser();
  if (!executablePath) throw new Error('No Chromium found: install it (`sudo apt-get install chromium`) or set CHROMIUM_PATH.');
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
    ignoreDefaultArgs: options.backForwardCache ? ['--disable-back-forward-cache'] : undefined,
  });
}

export async function newContext(browser: Browser, baseURL: string, viewport: { width: number; height: number } = DESKTOP): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL, viewport, locale: 'en-US', timezoneId: 'America/New_York' });
  context.setDefaultTimeout(15_000);
  return context;
}

/**
 * Charts are drawn once they come near the viewport (web/src/components/charts/chart.tsx): before a whole
 * page is captured, scroll through it as a reader would so each is drawn, let them finish their entry
 * animation, and come back where the page was.
 */
async function drawChartsBelowTheFold(page: Page): Promise<void> {
  const scrolled = await page.evaluate(async () => {
    if (!document.querySelector('.oj-chart[data-pending]')) return false;
    const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const [x, y] = [window.scrollX, window.scrollY];
    for (let top = 0; top < document.documentElement.scrollHeight; top += window.innerHeight / 2) {
      window.scrollTo(0, top);
      await frames();
    }
    for (let i = 0; i < 200 && document.querySelector('.oj-chart[data-pending]'); i++) await new Promise((r) => setTimeout(r, 10));
    window.scrollTo(x, y);
    return true;
  });
  if (scrolled) await page.waitForTimeout(1000); // the entry animation of the charts drawn now
}

/** A screenshot of the current page at one width (the viewport is resized and restored). */
export async function screenshotAt(page: Page, name: string, size: { width: number; height: number }, options: { fullPage?: boolean } = {}): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const before = page.viewportSize();
  await page.setViewportSize(size);
  // Let layout settle after the resize (media queries, the sidebar's transition) before capturing.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.waitForTimeout(350);
  await chartsFollowWidth(page);
  const path = `${SCREENSHOT_DIR}${name}-${size.width}.png`;
  const fullPage = options.fullPage ?? true;
  if (fullPage) await drawChartsBelowTheFold(page);
  await page.screenshot({ path, fullPage, animations: 'disabled' });
  // On a phone the page never scrolls sideways (a wide table scrolls inside its own box).
  const overflow = size.width < 600 ? await sidewaysOverflow(page) : [];
  if (before && (before.width !== size.width || before.height !== size.height)) await page.setViewportSize(before);
  if (overflow.length) throw new Error(`${name} at ${size.width} px scrolls sideways; sticking out: ${overflow.join('; ')}`);
  return path;
}

/** Each drawn chart's canvas width and its box's, in whole pixels, named by the widget it is in. */
export async function chartWidths(page: Page): Promise<Array<{ chart: string; canvas: number; box: number }>> {
  return page.locator('.oj-chart').evaluateAll((boxes) =>
    boxes.flatMap((box) => {
      const canvas = box.querySelector('canvas');
      if (!canvas) return [];
      const [c, b] = [canvas.getBoundingClientRect().width, box.getBoundingClientRect().width].map(Math.round) as [number, number];
      return [{ chart: box.closest('[data-widget]')?.getAttribute('data-widget') ?? 'a chart', canvas: c, box: b }];
    }),
  );
}

/**
 * A drawn chart follows its box's new width a frame after the layout (web/src/components/charts/resizing-chart.tsx)
 * and redraws, one chart after another, which on a loaded machine can take longer than the wait above. Wait,
 * up to 5 s, until every chart's canvas fits its box; one that never does is then the overflow it causes.
 */
async function chartsFollowWidth(page: Page): Promise<void> {
  for (const until = Date.now() + 5_000; Date.now() < until; await page.waitForTimeout(50)) {
    if ((await chartWidths(page)).every((w) => w.canvas <= w.box)) return;
  }
}

/** The innermost elements that stick out past the viewport's right edge, when the page scrolls sideways. */
export async function sidewaysOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= width) return [];
    const out: string[] = [];
    const nameOf = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}`;
    const visit = (el: Element) => {
      for (const child of Array.from(el.children)) {
        const r = child.getBoundingClientRect();
        if (r.width > 0 && Math.round(r.right) > width) {
          // The innermost element that sticks out is the one to fix; a box that clips its content is one.
          const found = out.length;
          if (getComputedStyle(child).overflowX === 'visible') visit(child);
          if (out.length > found) continue;
          out.push(`${nameOf(child)} (right edge ${Math.round(r.right)} px)`);
        } else if (getComputedStyle(child).overflowX === 'visible') visit(child);
      }
    };
    visit(document.body);
    if (out.length === 0) {
      // Text wider than its box (one long word) widens the page without any element sticking out: name
      // the innermost boxes whose content reaches past the edge (QA: 18 px of sideways scroll went unseen).
      const reach = (e: Element) => e.getBoundingClientRect().left + e.scrollWidth;
      // Inside a box that scrolls or clips, content past the edge is that box's, not the page's.
      const clipped = (e: Element) => {
        for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) if (getComputedStyle(a).overflowX !== 'visible') return true;
        return false;
      };
      const boxes = Array.from(document.body.querySelectorAll('*')).filter((e) => e.getBoundingClientRect().width > 0 && getComputedStyle(e).overflowX === 'visible' && Math.round(reach(e)) > width && !clipped(e));
      for (const e of boxes.filter((e) => !boxes.some((o) => o !== e && e.contains(o))).slice(0, 5)) {
        out.push(`${nameOf(e)} (its content reaches ${Math.round(reach(e))} px)`);
      }
      if (out.length === 0) out.push(`the page (${document.documentElement.scrollWidth} px wide)`);
    }
    return out.slice(0, 5);
  });
}

/** The same page at the desktop (1366x900) and phone (375x812) widths. */
export async function screenshots(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string[]> {
  return [await screenshotAt(page, name, DESKTOP, options), await screenshotAt(page, name, PHONE, options)];
}

/** The page laid out as for printing: print media at PAPER's width, once the layout has settled. */
export async function layOutForPaper(page: Page): Promise<void> {
  await page.emulateMedia({ media: 'print' });
  await page.setViewportSize(PAPER);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}
