import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { findBrowser } from '@oj/infra/testing/preflight';

/**
 * `--versus FILE` of the consoles' benches: FILE is another build's index.html, copied aside after its
 * `npm run build:web` (a build's assets stay in web/dist for an hour, so build it, copy its index.html,
 * then build the one to compare). `serve(which)` puts that build's or the current one's index.html in
 * place (renamed in, so the server never reads half a file); `restore()` puts the current one back.
 * Null without `versus`.
 */
export function consoleBuilds(versus: string | undefined): { serve(which: 'current' | 'other'): void; restore(): void } | null {
  if (!versus) return null;
  const indexHtml = new URL('../web/dist/index.html', import.meta.url);
  const html = { current: readFileSync(indexHtml), other: readFileSync(versus) };
  const serve = (which: 'current' | 'other') => {
    const staged = new URL(`../web/dist/.index.html.bench-${process.pid}`, import.meta.url);
    writeFileSync(staged, html[which]);
    renameSync(staged, indexHtml);
  };
  return { serve, restore: () => serve('current') };
}

/** Headless Chromium as the browser tests run it (web/e2e/support/browser.ts, which needs the DOM types). */
export async function launchBenchBrowser(extraArgs: string[] = []): Promise<Browser> {
  const executablePath = findBrowser();
  if (!executablePath) throw new Error('No Chromium found (CHROMIUM_PATH, or chromium on PATH).');
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage', ...extraArgs] });
}
