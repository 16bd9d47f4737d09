import type { Locator, Page } from 'playwright-core';

/** The premium data request, whatever its query (`page.route` and `page.unroute` take the same function). */
export const premiumData = (url: URL) => url.pathname === '/api/v1/metrics/premium-data';

/**
 * Opens `path` in a fresh console (a new page load) with the accounts' answer held, so the shell waits
 * ("Loading your journal"), and returns every request for `data` made until `ready` shows and a second
 * after. It fails if no such request leaves while the accounts are held: a page's data is asked for beside
 * the shell's, not a round trip after it (the route handle's `prefetch`, app/shell/app-shell.tsx).
 */
export async function dataAskedWhileShellWaits(page: Page, path: string, data: (url: URL) => boolean, ready: Locator): Promise<string[]> {
  let releaseAccounts!: () => void;
  const accountsHeld = new Promise<void>((r) => (releaseAccounts = r));
  const accounts = (url: URL) => url.pathname.replace(/\/$/, '') === '/api/v1/accounts';
  await page.route(accounts, async (route) => {
    await accountsHeld;
    await route.continue();
  });
  const asked: string[] = [];
  const onRequest = (r: { url(): string }) => void (data(new URL(r.url())) && asked.push(r.url()));
  page.on('request', onRequest);
  try {
    const leaves = page.waitForRequest((r) => data(new URL(r.url())), { timeout: 10_000 });
    await page.goto('about:blank');
    await page.goto(path);
    await leaves;
    await page.getByText('Loading your journal').waitFor();
    releaseAccounts();
    await ready.waitFor();
    // The page did not ask again for what the shell had asked for as it opened.
    await page.waitForTimeout(1_000);
    return asked;
  } finally {
    releaseAccounts();
    page.off('request', onRequest);
    await page.unroute(accounts);
  }
}
