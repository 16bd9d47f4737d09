import { accessSync, constants, existsSync, readdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { dockerAvailable } from './env.ts';

/**
 * `npm test` on someone else's machine: before any test runs, say in one line each what is missing (a
 * browser, PostgreSQL, Redis) and the command that installs it, instead of a wall of failed tests.
 * The browser is looked for in the order a person would expect: CHROMIUM_PATH, then `chromium`,
 * `chromium-browser` and `google-chrome` on PATH, then browsers Playwright already installed.
 */

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string, path = process.env.PATH ?? ''): string | null {
  for (const dir of path.split(delimiter)) {
    if (dir && executable(join(dir, name))) return join(dir, name);
  }
  return null;
}

/** Chromium builds Playwright downloaded earlier (`npx playwright install chromium`), newest first. */
function playwrightBrowsers(env: NodeJS.ProcessEnv): string[] {
  const root = env.PLAYWRIGHT_BROWSERS_PATH || join(homedir(), '.cache', 'ms-playwright');
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((d) => /^chromium(_headless_shell)?-\d+$/.test(d))
    .sort((a, b) => Number(b.split('-').pop()) - Number(a.split('-').pop()))
    .flatMap((d) => ['chrome-linux/chrome', 'chrome-linux/headless_shell', 'chrome-headless-shell-linux64/chrome-headless-shell', 'chrome-linux64/chrome'].map((f) => join(root, d, f)));
}

/** The browser the browser tests drive, or null when this machine has none. */
export function findBrowser(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.CHROMIUM_PATH) return executable(env.CHROMIUM_PATH) ? env.CHROMIUM_PATH : null;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    const found = onPath(name, env.PATH);
    if (found) return found;
  }
  return playwrightBrowsers(env).find(executable) ?? null;
}

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port, timeout: 500 });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

/** One line per missing piece, each with the command that installs it; empty when the tests can run. */
export async function missingForTests(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const missing: string[] = [];
  let docker: boolean | undefined;
  const hasDocker = () => (docker ??= dockerAvailable());
  if (!findBrowser(env)) {
    missing.push(
      'No Chromium for the browser tests (looked at CHROMIUM_PATH, chromium, chromium-browser, google-chrome on PATH, Playwright\'s browsers): install it with `sudo apt-get install chromium` (Debian/Ubuntu) or `npx playwright install chromium`, or set CHROMIUM_PATH.',
    );
  }
  if (!env.DATABASE_URL && !(await reachable(5432)) && !hasDocker()) {
    missing.push('No PostgreSQL (no DATABASE_URL, nothing on 127.0.0.1:5432, no Docker engine for testcontainers): install it with `sudo apt-get install postgresql` and start it, or set DATABASE_URL, or start Docker.');
  }
  if (!env.REDIS_URL && !(await reachable(6379)) && !hasDocker()) {
    missing.push('No Redis (no REDIS_URL, nothing on 127.0.0.1:6379, no Docker engine for testcontainers): install it with `sudo apt-get install redis-server` and start it, or set REDIS_URL, or start Docker.');
  }
  return missing;
}

if (import.meta.main) {
  const missing = await missingForTests();
  if (missing.length > 0) {
    process.stderr.write(`\nnpm test cannot run on this machine yet:\n${missing.map((m) => `  - ${m}`).join('\n')}\n(.ci/run installs all of them on Debian.)\n\n`);
    process.exit(1);
  }
}
