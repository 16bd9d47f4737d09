import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { addDays, isWeekend } from '@oj/contracts/business-date';
import { businessToday } from './support/business-day.ts';
import { DESKTOP, SCREENSHOT_DIR, launchBrowser, newContext } from './support/browser.ts';
import { startServer, type E2eServer } from './support/server.ts';
import { createUser } from '@oj/services/identity/commands';
import { identityContext } from '@oj/services/identity/routes';
import { seedJournal, type Seed } from './support/seed-trades.ts';
import { createTrader, signIn, type Trader } from './support/trader.ts';

/**
 * The console's screens checked with axe-core in Chromium against the real product, so a keyboard and a
 * screen reader can use it: every screen, signed out and signed in, and the add-trade dialog, at a
 * desktop (1366x900) and a phone (390x844) width, against the WCAG 2.0 and 2.1 A and AA rules. A
 * "serious" or "critical" violation fails the screen's test, naming each rule, its elements and its
 * help; moderate and minor ones are printed. The staff's screens (operations, admin, audit replay) are
 * checked as an Admin sees them. A small journal (open and closed trades last week) gives
 * the lists, the dashboard, the calendar and the pulse their content; each screen is checked once that
 * content is on it, never on a loading state.
 */
const PHONE = { width: 390, height: 844 } as const;
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const REPORT_DIR = fileURLToPath(new URL('../../.artifacts/accessibility/', import.meta.url));

// --- The seeded journal -------------------------------------------------------------------------------

const today = businessToday();
/** Last week's Monday to Friday (all in the past, whatever today is). */
const lastMonday = (() => {
  const dow = new Date(`${today}T00:00:00Z`).getUTCDay();
  return addDays(today, -((dow + 6) % 7) - 7);
})();
const [d1, d2, d3, , d5] = [0, 1, 2, 3, 4].map((i) => addDays(lastMonday, i)) as [string, string, string, string, string];
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
  { ticker: 'QQQ', strategy: 'cash-secured-put', ot: 1, tod: d3, pao: 100, close: { tcd: d3, pac: 140, ct: 2 } },
];


// --- axe ----------------------------------------------------------------------------------------------

interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  helpUrl: string;
  nodes: { target: unknown[]; html: string; failureSummary?: string }[];
}

/**
 * Runs axe over the whole document with the WCAG 2.0 / 2.1 A and AA rules, nothing excluded (none of
 * these screens holds a third-party frame). The console's CSP (rightly) refuses the inline script that
 * `page.addScriptTag` would add, so axe goes in as the context's init script instead: the DevTools
 * protocol runs it in every page before the page's own scripts, outside the page's CSP.
 */
async function axe(page: Page): Promise<AxeViolation[]> {
  return page.evaluate(async (tags) => {
    const w = window as unknown as { axe: { run: (ctx: Document, options: unknown) => Promise<{ violations: AxeViolation[] }> } };
    const result = await w.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl, nodes: v.nodes.map((n) => ({ target: n.target, html: n.html, failureSummary: n.failureSummary })) }));
  }, WCAG_TAGS);
}

const describeViolations = (violations: AxeViolation[]) =>
  violations
    .map((v) => {
      const nodes = v.nodes.slice(0, 8).map((n) => {
        const html = n.html.replace(/\s+/g, ' ');
        const summary = n.failureSummary ? `\n      ${n.failureSummary.replace(/\s*\n\s*/g, ' ')}` : '';
        return `    ${n.target.map(String).join(' >> ')}  ${html.length > 140 ? `${html.slice(0, 140)}…` : html}${summary}`;
      });
      const more = v.nodes.length > 8 ? [`    … and ${v.nodes.length - 8} more`] : [];
      return [`  ${v.id} [${v.impact}] ${v.help} (${v.helpUrl})`, ...nodes, ...more].join('\n');
    })
    .join('\n');

/**
 * Waits for the page to have no busy region (a loading overlay or a pending button) and the fonts to be
 * in, then runs axe; every violation, with all its elements, is also written to
 * `.artifacts/accessibility/<screen>-<width>.json`.
 */
async function check(page: Page, screen: string, width: number): Promise<void> {
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
  const violations = await axe(page);
  mkdirSync(REPORT_DIR, { recursive: true });
  writeFileSync(`${REPORT_DIR}${screen}-${width}.json`, JSON.stringify(violations, null, 2));
  const blocking = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const other = violations.filter((v) => !blocking.includes(v));
  if (other.length) console.warn(`[a11y] ${screen} at ${width} px, moderate / minor:\n${describeViolations(other)}`);
  if (blocking.length) throw new Error(`${screen} at ${width} px: serious or critical accessibility violations\n${describeViolations(blocking)}`);
  // Every aria-controls names an element on the page (QA: the bell's and the filters' named a panel that
  // exists only while open); tabs are left out, their hidden panels being the pattern's own.
  const dangling = await page.evaluate(() =>
    Array.from(document.querySelectorAll('[aria-controls]'))
      .filter((e) => e.getAttribute('role') !== 'tab' && (e.getAttribute('aria-controls') ?? '').split(/\s+/).some((id) => id !== '' && !document.getElementById(id)))
      .map((e) => e.outerHTML.slice(0, 160))
      .slice(0, 3),
  );
  if (dangling.length) throw new Error(`${screen} at ${width} px: aria-controls naming no element on the page: ${dangling.join('; ')}`);
}

// --- The screens ----------------------------------------------------------------------------------------

interface Screen {
  name: string;
  /** Goes to the screen and waits for its content. */
  open: (page: Page) => Promise<void>;
}

const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { name, level: 1 }).waitFor();

const SIGNED_OUT: Screen[] = [
  {
    name: 'landing',
    open: async (page) => {
      await page.goto('/');
      await heading(page, /Know exactly what your option trades earn/);
      await page.getByText('4.99').first().waitFor();
    },
  },
  {
    name: 'sign-in',
    open: async (page) => {
      await page.goto('/signin');
      await heading(page, 'Sign in');
      await page.getByLabel('Email').waitFor();
    },
  },
];

const openAddTrade = async (page: Page) => {
  await page.goto('/trades/open');
  await page.locator('tr[data-ticker="SPY"]').waitFor();
  await page.getByRole('button', { name: /New Record/ }).click();
  await page.getByRole('menuitem', { name: 'Open Trade' }).click();
  await page.getByRole('dialog', { name: 'Add Open Trade' }).getByLabel('Account').waitFor();
};

const SIGNED_IN: Screen[] = [
  {
    name: 'dashboard',
    open: async (page) => {
      await page.goto('/dashboard');
      await page.getByTestId('quadrant-today-value').waitFor();
      await page.locator('[data-widget="yearly-income"]').getByText(String(Number(today.slice(0, 4)))).first().waitFor();
      await page.locator('canvas').first().waitFor();
    },
  },
  {
    name: 'trades-open',
    open: async (page) => {
      await page.goto('/trades/open');
      await heading(page, 'Open Trades');
      await page.getByText(`Showing 3 out of 3 Trades`).waitFor();
    },
  },
  {
    name: 'trades-closed',
    open: async (page) => {
      await page.goto('/trades/closed');
      await heading(page, 'Closed Trades');
      await page.getByText(`Showing 2 out of 2 Trades`).waitFor();
    },
  },
  {
    name: 'calendar-income',
    open: async (page) => {
      await page.goto(`/calendar/income?month=${d1.slice(0, 7)}`);
      await heading(page, 'Income');
      await page.locator(`.cal-day[data-tone="positive"]`).first().waitFor();
    },
  },
  {
    name: 'pulse',
    open: async (page) => {
      await page.goto('/pulse');
      await page.getByLabel('Ticker').fill('AAPL');
      await page.getByRole('button', { name: 'YTD' }).click();
      await page.getByRole('region', { name: 'Closed trades' }).locator('tbody tr').first().waitFor();
      await page.locator('.pulse-gauges canvas').first().waitFor();
    },
  },
  {
    name: 'accounts',
    open: async (page) => {
      await page.goto('/accounts');
      await heading(page, 'Trade Accounts');
      await page.getByText('Income', { exact: true }).first().waitFor();
    },
  },
  {
    name: 'profile',
    open: async (page) => {
      await page.goto('/profile');
      const form = page.getByRole('form', { name: 'Profile form' });
      await form.waitFor();
      await page.waitForFunction(() => (document.querySelector<HTMLInputElement>('input[name="name"]')?.value ?? '') !== '');
    },
  },
  {
    name: 'subscription',
    open: async (page) => {
      await page.goto('/subscription');
      await heading(page, 'Manage Your Subscription');
      await page.locator('section.subscription-status').getByText(/Your trial ends on/).waitFor();
      await page.locator('.subscription-history').getByText('TRIAL', { exact: true }).waitFor();
    },
  },
  {
    name: 'getting-started',
    open: async (page) => {
      await page.goto('/getting-started');
      await page.locator('.tutorial-section').first().waitFor();
      await page.locator('.carousel-frame img').first().waitFor();
    },
  },
  {
    name: 'faq',
    open: async (page) => {
      await page.goto('/faq');
      await page.getByText('Dates use US Eastern time').waitFor();
    },
  },
  {
    name: 'contact',
    open: async (page) => {
      await page.goto('/contact');
      await page.getByRole('form', { name: 'Contact form' }).waitFor();
    },
  },
  { name: 'add-trade-dialog', open: openAddTrade },
];

/**
 * The staff's screens, as an Admin sees them (every staff screen is open to Admin): the projections
 * console, the user lookup, the contact messages, and support's audit replay from the search to the
 * reason, the timeline, Verify and the access log, over the trader's journal.
 */
const STAFF: Screen[] = [
  {
    name: 'operations',
    open: async (page) => {
      await page.goto('/operations');
      await page.locator('[data-testid="projection-trades"] tr[data-status="live"]').waitFor();
      await page.getByTestId('lane-0').waitFor();
    },
  },
  {
    name: 'admin-user-lookup',
    open: async (page) => {
      await page.goto('/admin/users/user');
      await page.getByLabel('User e-mail').fill(trader.email);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('Alex Access').first().waitFor();
    },
  },
  {
    name: 'admin-messages',
    open: async (page) => {
      await page.goto('/admin/messages');
      await page.getByText(MESSAGE_SUBJECT).first().waitFor();
    },
  },
  {
    name: 'support-search',
    open: async (page) => {
      await page.goto('/support/users');
      await page.getByLabel('E-mail, username or user id').fill(trader.email);
      await page.getByRole('button', { name: 'Find user' }).click();
      await page.getByRole('list', { name: 'Matching users' }).getByText(trader.email).waitFor();
    },
  },
  {
    name: 'support-reason',
    open: async (page) => {
      await page.getByRole('list', { name: 'Matching users' }).getByRole('link', { name: 'Open history' }).click();
      await page.getByRole('textbox', { name: /^Reason/ }).waitFor();
    },
  },
  {
    name: 'support-timeline',
    open: async (page) => {
      await page.getByRole('textbox', { name: /^Reason/ }).fill('Accessibility review of the audit views');
      await page.getByRole('button', { name: 'Open history' }).click();
      await page.getByRole('region', { name: 'Timeline' }).locator('tbody tr').first().waitFor();
    },
  },
  {
    name: 'support-verify',
    open: async (page) => {
      await page.getByRole('tab', { name: 'Verify' }).click();
      await page.getByRole('button', { name: 'Run Verify' }).click();
      await page.getByRole('status').filter({ hasText: /Consistent|differing/ }).waitFor();
    },
  },
  {
    name: 'access-log',
    open: async (page) => {
      await page.goto('/support/access-log');
      await page.getByRole('region', { name: 'Access log' }).locator('tbody tr').first().waitFor();
    },
  },
];
const MESSAGE_SUBJECT = 'Where do I see my yearly income?';

// --- The run ----------------------------------------------------------------------------------------------

let server: E2eServer;
let browser: Browser;
let trader: Trader;
let admin: Trader;
let context: BrowserContext | undefined;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  server = await startServer();
  trader = await createTrader(server, 'alex.access', 'Alex Access');
  await seedJournal(server, trader, SEEDS, (s) => ({ expiry, notes: s.close ? '' : 'Wheel entry' }));
  // An Admin for the staff screens, and a message from the trader for the messages list.
  const password = 'Admin#2024a';
  const email = `ada.admin.${Date.now()}@example.com`;
  await createUser(identityContext(server.runtime.deps), { name: 'Ada Admin', email, password, role: 'Admin', verified: true });
  admin = { email, password, account: '', token: '' };
  const sent = await fetch(`${server.baseUrl}/api/v1/users/contact-us`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${trader.token}` },
    body: JSON.stringify({ subject: MESSAGE_SUBJECT, message: 'The dashboard shows this year; where are the years before?' }),
  });
  expect(sent.status, await sent.clone().text()).toBeLessThan(300);
  browser = await launchBrowser();
});

afterEach(async ({ task }) => {
  if (task.result?.state === 'fail') await page?.screenshot({ path: `${SCREENSHOT_DIR}failed-${task.name.replace(/\W+/g, '-')}.png` }).catch(() => undefined);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

/** A new browser context (signed out) at a size, with axe in every page; `dark` picks the dark theme. */
async function freshPage(size: { width: number; height: number }, options: { dark?: boolean } = {}): Promise<void> {
  await context?.close();
  context = await newContext(browser, server.baseUrl, size);
  await context.addInitScript({ path: AXE_SOURCE });
  if (options.dark) await context.addInitScript(() => localStorage.setItem('oj.theme', 'dark'));
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
}

for (const size of [DESKTOP, PHONE]) {
  describe(`accessibility at ${size.width}x${size.height}`, () => {
    beforeAll(() => freshPage(size));

    for (const screen of SIGNED_OUT) {
      it(`${screen.name} (signed out)`, async () => {
        await screen.open(page);
        await check(page, screen.name, size.width);
      });
    }

    it('signs in', async () => {
      await signIn(page, trader);
    });

    for (const screen of SIGNED_IN) {
      it(screen.name, async () => {
        await screen.open(page);
        await check(page, screen.name, size.width);
      });
    }

    describe('staff screens (Admin)', () => {
      beforeAll(() => freshPage(size));

      it('signs in as an admin', async () => {
        await signIn(page, admin);
      });

      for (const screen of STAFF) {
        it(screen.name, async () => {
          await screen.open(page);
          await check(page, screen.name, size.width);
        });
      }
    });

    it('raised no page errors', () => {
      expect(pageErrors).toEqual([]);
    });
  });
}

// The dark theme (Settings > Theme) has colours of its own: the trader's screens again, at desktop width.
describe('accessibility in the dark theme at 1366x900', () => {
  beforeAll(() => freshPage(DESKTOP, { dark: true }));

  it('signs in', async () => {
    await signIn(page, trader);
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
  });

  for (const screen of SIGNED_IN) {
    it(screen.name, async () => {
      await screen.open(page);
      await check(page, `dark-${screen.name}`, DESKTOP.width);
    });
  }

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
