import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createUser } from '@oj/services/identity/commands';
import { identityContext } from '@oj/services/identity/routes';
import { launchBrowser, newContext } from './support/browser.ts';
import { startServer, type E2eServer } from './support/server.ts';

/**
 * Every link of the shell leads to a real page (issue 14): the sidebar (an Admin sees every entry),
 * the top bar and its user menu, the footer, the landing page's sections and the 404 page's "Go back
 * home". A page fails the walk when it shows the "Coming soon" placeholder, the not-found page, the
 * route error screen, or logs a console error.
 */
let server: E2eServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let errors: string[] = [];

beforeAll(async () => {
  server = await startServer({ database: 'pglite' });
  const email = `link.walker.${Date.now()}@example.com`;
  await createUser(identityContext(server.runtime.deps), { name: 'Link Walker', email, password: 'Walker#2024a', role: 'Admin', verified: true, agreedToTerms: true });
  browser = await launchBrowser();
  context = await newContext(browser, server.baseUrl);
  page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  await page.goto('/signin');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill('Walker#2024a');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/dashboard');
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Loads a path, waits for the page to settle and says what is wrong with it (nothing: []). */
async function problemsOf(path: string): Promise<string[]> {
  errors = [];
  await page.goto(path);
  // Some pages keep a connection open (live updates), so "network idle" may never come: give the lazy
  // chunk and the first queries a moment instead.
  await page.waitForLoadState('networkidle', { timeout: 4_000 }).catch(() => undefined);
  await page.locator('h1').first().waitFor({ timeout: 10_000 }).catch(() => undefined);
  const problems: string[] = [];
  if (await page.getByText('Coming soon', { exact: true }).count()) problems.push('shows "Coming soon"');
  if (await page.getByText('Page not found', { exact: true }).count()) problems.push('shows "Page not found"');
  if (await page.getByText(/Something went wrong|Unexpected Application Error/i).count()) problems.push('shows an error screen');
  if (!(await page.locator('h1').count())) problems.push('has no heading');
  problems.push(...errors.map((e) => `console: ${e}`));
  return problems;
}

async function shellLinks(): Promise<string[]> {
  await page.goto('/dashboard');
  await page.getByRole('complementary', { name: 'Main navigation' }).waitFor();
  const hrefs = new Set<string>();
  const collect = async (selector: string) => {
    for (const href of await page.locator(selector).evaluateAll((els) => els.map((e) => e.getAttribute('href') ?? ''))) hrefs.add(href);
  };
  await collect('aside[aria-label="Main navigation"] a[href]');
  await collect('header.topbar a[href]');
  await collect('footer a[href]');
  await page.getByRole('button', { name: 'User menu' }).click();
  await collect('[role="menu"] a[href]');
  await page.keyboard.press('Escape');
  return [...hrefs].filter((h) => h.startsWith('/') && h !== '/logout');
}

describe('every link of the shell goes to a real page', () => {
  it('sidebar, top bar, user menu and footer', async () => {
    const links = await shellLinks();
    // The walk must at least cover the entries the spec names.
    for (const path of ['/dashboard', '/trades/open', '/calendar/income', '/pulse', '/accounts', '/profile', '/getting-started', '/faq', '/subscription', '/contact', '/admin/users/user', '/admin/messages']) {
      expect(links, path).toContain(path);
    }
    const failures: Record<string, string[]> = {};
    for (const href of links) {
      const problems = await problemsOf(href);
      if (problems.length) failures[href] = problems;
    }
    expect(failures).toEqual({});
  });

  it('footer Terms and Privacy open their dialogs', async () => {
    await page.goto('/profile');
    for (const name of ['Terms', 'Privacy']) {
      await page.locator('footer').getByRole('button', { name, exact: true }).click();
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      expect(await dialog.locator('h2, h3').count()).toBeGreaterThan(0);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    }
  });

  it('landing page section links point at sections that exist', async () => {
    await page.goto('/');
    // The landing page is a lazy route: wait for it, not only for the document.
    await page.locator('a[href^="#"]').first().waitFor();
    const anchors = await page.locator('a[href^="#"]').evaluateAll((els) => els.map((e) => e.getAttribute('href') ?? ''));
    expect(anchors.length).toBeGreaterThan(0);
    for (const hash of new Set(anchors)) expect(await page.locator(hash).count(), hash).toBe(1);
    const internal = await page.locator('a[href^="/"]').evaluateAll((els) => els.map((e) => e.getAttribute('href') ?? ''));
    for (const href of new Set(internal)) expect(await problemsOf(href), href).toEqual([]);
  });

  it('the 404 page leads home', async () => {
    // The walk's own detector sees a placeholder page (so the walk above can fail).
    expect(await problemsOf('/no-such-page')).toContain('shows "Page not found"');
    errors = [];
    await page.goto('/no-such-page');
    await page.getByText('Page not found').waitFor();
    await page.getByRole('button', { name: 'Go back home' }).click();
    await page.waitForURL('**/dashboard');
    expect(await problemsOf('/dashboard')).toEqual([]);
  });
});
