import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findBrowser, missingForTests } from './preflight.ts';

const root = mkdtempSync(join(tmpdir(), 'oj-preflight-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function fakeExecutable(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

describe('finding a browser on someone else\'s machine', () => {
  const emptyPath = join(root, 'empty-bin');
  mkdirSync(emptyPath, { recursive: true });
  const noPlaywright = join(root, 'no-playwright');

  it('takes CHROMIUM_PATH first, and only if it is executable', () => {
    const chrome = fakeExecutable(join(root, 'custom', 'my-chrome'));
    const onPath = fakeExecutable(join(root, 'bin1', 'chromium'));
    expect(findBrowser({ CHROMIUM_PATH: chrome, PATH: join(root, 'bin1') })).toBe(chrome);
    expect(findBrowser({ CHROMIUM_PATH: join(root, 'custom', 'missing'), PATH: join(root, 'bin1') })).toBeNull();
    expect(findBrowser({ PATH: join(root, 'bin1'), PLAYWRIGHT_BROWSERS_PATH: noPlaywright })).toBe(onPath);
  });

  it('then chromium-browser and google-chrome on PATH', () => {
    const browser = fakeExecutable(join(root, 'bin2', 'chromium-browser'));
    expect(findBrowser({ PATH: `${emptyPath}:${join(root, 'bin2')}`, PLAYWRIGHT_BROWSERS_PATH: noPlaywright })).toBe(browser);
    const chrome = fakeExecutable(join(root, 'bin3', 'google-chrome'));
    expect(findBrowser({ PATH: join(root, 'bin3'), PLAYWRIGHT_BROWSERS_PATH: noPlaywright })).toBe(chrome);
  });

  it('then the newest browser Playwright installed', () => {
    const pw = join(root, 'ms-playwright');
    fakeExecutable(join(pw, 'chromium-1100', 'chrome-linux', 'chrome'));
    const newest = fakeExecutable(join(pw, 'chromium-1200', 'chrome-linux', 'chrome'));
    expect(findBrowser({ PATH: emptyPath, PLAYWRIGHT_BROWSERS_PATH: pw })).toBe(newest);
  });

  it('says in one line what is missing and how to install it', async () => {
    const missing = await missingForTests({ PATH: emptyPath, PLAYWRIGHT_BROWSERS_PATH: noPlaywright, DATABASE_URL: 'postgres://x', REDIS_URL: 'redis://x' });
    expect(missing).toHaveLength(1);
    expect(missing[0]).toMatch(/No Chromium.*apt-get install chromium/);
    expect(missing[0]).not.toContain('\n');
    const chrome = fakeExecutable(join(root, 'bin5', 'chromium'));
    expect(await missingForTests({ PATH: join(root, 'bin5'), DATABASE_URL: 'postgres://x', REDIS_URL: 'redis://x' })).toEqual([]);
    expect(chrome).toBeTruthy();
  });
});
