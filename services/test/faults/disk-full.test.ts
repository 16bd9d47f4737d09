import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@oj/infra/testing/processes';
import { latestMailFile } from '../../src/mail/testing.ts';
import { REPO_ROOT } from './harness.ts';

/**
 * Fault: the disk under DATA_DIR fills up while the embedded product (`npm start`: PGlite, mail files,
 * uploads) takes commands. Commands are refused with a clear 503 and nothing half-written; once space
 * returns, the same process accepts them again, and after a restart every accepted trade is there once.
 *
 * The disk is a small tmpfs mounted for the test, which needs root: elsewhere the case is skipped, loudly.
 */
function canMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(join(tmpdir(), 'oj-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

const mountable = canMount();
if (!mountable) process.stdout.write('\n\u001b[33m!! The disk-full fault case is SKIPPED: it mounts a small tmpfs, which needs root.\u001b[0m\n\n');

let dataDir: string;
let port: number;
let app: ChildProcess | undefined;
const base = () => `http://127.0.0.1:${port}/api/v1`;

async function startApp(): Promise<void> {
  app = spawn(process.execPath, ['services/src/main.ts'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'silent', PUBLIC_URL: `http://127.0.0.1:${port}`, JWT_SECRET: 'disk-full-secret-disk-full-secret-0123456789' },
    stdio: 'ignore',
  });
  for (let i = 0; i < 600; i++) {
    // Ready, not only alive: the API answers once the read models are up to date (startup-gate.ts).
    if (await fetch(`${base()}/ready`).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the embedded product did not start');
}

async function stopApp(): Promise<void> {
  if (!app || app.exitCode !== null) return;
  const exited = once(app, 'exit');
  app.kill('SIGTERM');
  await exited;
}

beforeAll(async () => {
  if (!mountable) return;
  dataDir = mkdtempSync(join(tmpdir(), 'oj-disk-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=96m', 'tmpfs', dataDir]);
  port = await freePort();
  await startApp();
}, 120_000);

afterAll(async () => {
  if (!mountable) return;
  await stopApp();
  execFileSync('umount', ['-l', dataDir]);
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe.runIf(mountable)('the disk under DATA_DIR full (embedded mode)', () => {
  it('refuses with a clear 503 and writes nothing; after space returns and a restart, every accepted trade is there once', async () => {
    const json = (r: Response) => r.json() as Promise<Record<string, unknown>>;
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${base()}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    expect((await post('/users/signup', { name: 'Disk Trader', email: 'disk@example.com', password: 'Abc12!', agreed_to_terms: true })).status).toBe(201);
    let mail: Awaited<ReturnType<typeof latestMailFile>>;
    for (let i = 0; i < 100 && !mail; i++) {
      mail = await latestMailFile(dataDir, 'disk@example.com').catch(() => undefined);
      if (!mail) await new Promise((r) => setTimeout(r, 100));
    }
    const token = new URL(mail!.links.find((l) => l.includes('account-verify'))!).searchParams.get('token')!;
    expect((await fetch(`${base()}/users/verify/${encodeURIComponent(token)}`)).status).toBe(200);
    const login = await json(await post('/users/login', { email: 'disk@example.com', password: 'Abc12!' }));
    const auth = { authorization: `Bearer ${String(login.access_token)}` };
    const account = await json(await post('/accounts/add-account', { name: 'Main', broker: 'ibkr', ac_type: 1 }, auth));
    const addTrade = (key: string) =>
      post(
        '/trades/add-trade',
        {
          trade_data: { ticker: 'SPY', strategy_uid: 'cash-secured-put', account_uid: account.uid, strike_prices: [400], trade_open_date: '2026-11-02', expiration_date: '2026-12-18', contract_size: 1, premium_at_open: 100, net_fee_to_open: 1, net_delta: 0.3, stock_price_at_open: 410, notes: key },
          tag_data: [],
        },
        { ...auth, 'idempotency-key': key },
      );
    const accepted = new Set<string>();
    for (let i = 0; i < 3; i++) if ((await addTrade(`before-${i}`)).status === 201) accepted.add(`before-${i}`);
    expect(accepted.size).toBe(3);

    // Fill the disk to the last few blocks.
    const filler = join(dataDir, 'filler');
    const { bavail, bsize } = statfsSync(dataDir);
    try {
      writeFileSync(filler, Buffer.alloc(Math.max(0, Number(bavail) * Number(bsize) - 8192)));
    } catch {
      // Full before the last byte: that is the point.
    }
    const whileFull: number[] = [];
    for (let i = 0; i < 30; i++) {
      const r = await addTrade(`full-${i}`);
      whileFull.push(r.status);
      if (r.status === 201) accepted.add(`full-${i}`);
      else {
        expect(r.status).toBe(503);
        expect((await json(r)).message).toMatch(/disk is full/);
      }
    }
    expect(whileFull.filter((s) => s === 503).length, 'the disk did fill up').toBeGreaterThan(0);

    // Space returns: the same process takes commands again, and the refused ones can be retried.
    rmSync(filler);
    for (let i = 0; i < 30; i++) {
      if (accepted.has(`full-${i}`)) continue;
      const r = await addTrade(`full-${i}`);
      expect(r.status, `full-${i} after space returned`).toBe(201);
      accepted.add(`full-${i}`);
    }

    // A restart reads the same journal: every accepted trade once, nothing else.
    await stopApp();
    await startApp();
    const again = await json(await post('/users/login', { email: 'disk@example.com', password: 'Abc12!' }));
    const list = await json(await fetch(`${base()}/trades/status/open?size=100`, { headers: { authorization: `Bearer ${String(again.access_token)}` } }));
    const notes = (list.items as { notes: string }[]).map((i) => i.notes).sort();
    expect(notes).toEqual([...accepted].sort());
  }, 240_000);
});
