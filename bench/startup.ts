import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, openSync, closeSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { findBrowser } from '@oj/infra/testing/preflight';
import { freePort, REPO_ROOT, spawnService, stopChild } from '@oj/infra/testing/processes';
import { median } from './commands.ts';
import { optionsOf } from './options.ts';

/**
 * `npm run bench -- startup [--data DIR] [--users N] [--trades M] [--runs R] [--pace-ms P] [--port N]` (after
 * `npm run build:web`)
 *
 * The embedded default's start on a journal its projector has not read yet (a seed or a restore made
 * while stopped), as a trader meets it: `npm start`'s process (`services/src/main.ts`, PGlite) listens at
 * once and catches up before its API answers; meanwhile the console shows the start's progress. Measured,
 * per run on a fresh copy of the journal: the first answer after the spawn, the catch-up, and the
 * sign-in page's load in headless Chromium (a new context each time, nothing cached) every P ms (5,000)
 * while the catch-up runs, then twice after it. The journal is `--data` (an embedded DATA_DIR, left as it is),
 * or one seeded into a temporary folder (`npm run seed -- --users 6 --trades 4000` by default: about
 * 58,000 events, 4 minutes here). Prints a JSON report.
 */
const log = (...a: unknown[]) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...a);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const r0 = (x: number) => Math.round(x);

function run(args: string[], env: Record<string, string>, logFile: string): Promise<void> {
  const out = openSync(logFile, 'w');
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', out, out] });
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => {
      closeSync(out);
      if (code === 0) resolve();
      else reject(new Error(`${args.join(' ')} exited ${code} (see ${logFile})`));
    });
  });
}

export async function main(argv: string[]): Promise<void> {
  const get = optionsOf(argv);
  const runs = Number(get('runs') ?? 3);
  const port = Number(get('port') ?? (await freePort()));
  const pace = Number(get('pace-ms') ?? 5000);
  const work = mkdtempSync(join(tmpdir(), 'oj-bench-startup-'));
  const executablePath = findBrowser();
  if (!executablePath) throw new Error('No Chromium found (CHROMIUM_PATH, or chromium on PATH).');
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'] });
  try {
    let data = get('data');
    if (!data) {
      data = join(work, 'seeded');
      const users = get('users') ?? '6';
      const trades = get('trades') ?? '4000';
      log(`seeding ${users} traders × ${trades} trades into ${data}`);
      await run(['services/src/journal/seed/cli.ts', '--users', users, '--trades', trades], { DATA_DIR: data }, join(work, 'seed.log'));
    }
    const base = `http://127.0.0.1:${port}`;
    const ready = async (): Promise<{ status: number; total?: number }> => {
      try {
        const res = await fetch(`${base}/api/v1/ready`);
        const body = (await res.json()) as { startup?: { total?: number | null } };
        return { status: res.status, ...(body.startup?.total ? { total: body.startup.total } : {}) };
      } catch {
        return { status: 0 };
      }
    };
    const load = async () => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        const began = performance.now();
        await page.goto(`${base}/users/signin`, { waitUntil: 'load', timeout: 120_000 });
        return performance.now() - began;
      } finally {
        await context.close();
      }
    };

    const results = [];
    for (let i = 0; i < runs; i++) {
      const dir = join(work, `run-${i}`);
      cpSync(data, dir, { recursive: true });
      const out = openSync(join(work, `server-${i}.log`), 'w');
      const spawned = performance.now();
      const server = spawnService('main', { ...process.env, PORT: String(port), DATA_DIR: dir }, ['ignore', out, out]);
      try {
        let first = await ready();
        while (first.status === 0) {
          if (server.exitCode !== null) throw new Error(`the server exited ${server.exitCode} (see ${join(work, `server-${i}.log`)})`);
          await sleep(50);
          first = await ready();
        }
        const firstAnswer = performance.now() - spawned;
        let total = first.total;
        const during: number[] = [];
        for (let state = first; state.status === 503; state = await ready()) {
          total ??= state.total;
          // One load every `pace` ms at most: each load costs the machine CPU the catch-up also needs, so
          // a faster console would otherwise be charged with a slower catch-up.
          const began = performance.now();
          during.push(await load());
          await sleep(pace - (performance.now() - began));
        }
        const caughtUp = performance.now() - spawned;
        const after = [await load(), await load()];
        const result = { run: i + 1, events: total ?? null, firstAnswerMs: r0(firstAnswer), readyMs: r0(caughtUp), loadsDuring: during.map(r0), loadsAfter: after.map(r0) };
        log(JSON.stringify(result));
        results.push(result);
      } finally {
        await stopChild(server);
        closeSync(out);
        rmSync(dir, { recursive: true, force: true });
      }
    }
    const during = results.flatMap((r) => r.loadsDuring);
    console.log(
      JSON.stringify(
        {
          machine: `${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB`,
          runs: results,
          median: {
            firstAnswerMs: median(results.map((r) => r.firstAnswerMs)),
            readyMs: median(results.map((r) => r.readyMs)),
            signInLoadDuringCatchUpMs: during.length ? median(during) : null,
            signInLoadAfterMs: median(results.flatMap((r) => r.loadsAfter)),
          },
        },
        null,
        2,
      ),
    );
    rmSync(work, { recursive: true, force: true });
  } catch (error) {
    log(`kept ${work} (the seed's and servers' logs)`);
    throw error;
  } finally {
    await browser.close();
  }
}
