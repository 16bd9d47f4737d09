import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { sql } from 'kysely';
import { Registry } from 'prom-client';
import { expect } from 'vitest';
import { upcastJournalEvent } from '@oj/infra/eventstore/create';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { createLogger } from '@oj/infra/logger';
import { createTestDatabase } from '@oj/infra/testing/postgres';
import { allProjections } from '@oj/projections/catalogue';
import { startProjector, type ProjectorHandle } from '@oj/projections/runtime/projector';
import { RebuildLockedError, rebuild } from '@oj/projections/runtime/rebuild';
import { liveTables, readLag } from '@oj/projections/runtime/registry';
import { comparePositions } from '@oj/infra/eventstore/port';
import { tradeTables } from '@oj/projections/trades/projection';
import { createTestApp, signInAs, type TestApp } from '../../src/identity/testing.ts';

/**
 * The fault suite's common parts (issue 17): a deployment on real PostgreSQL (and Redis, where the case
 * uses lanes), a mixed load of trade commands and list queries from several traders, and the proof
 * every case ends with:
 * 1. every accepted command's events are in the log exactly once (a retried Idempotency-Key added none);
 * 2. a refused command appended nothing;
 * 3. every read model equals a clean rebuild, row by row;
 * 4. no answer was a 5xx, except 503 where the case made a dependency unreachable.
 */

export { REPO_ROOT } from '@oj/infra/testing/processes';
import { REPO_ROOT } from '@oj/infra/testing/processes';
export const LANES = 3;

export interface Stack {
  t: TestApp;
  store: PostgresEventStore;
  /** Environment for child processes of this deployment (projector, CLI). */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function createStack(label: string, options: { redisUrl?: string; bullPrefix?: string } = {}): Promise<Stack> {
  const database = await createTestDatabase(label);
  const store = new PostgresEventStore(database, { upcast: upcastJournalEvent, pollIntervalMs: 50 });
  const t = await createTestApp({ database, eventStore: store, now: '2026-03-02T15:00:00Z' });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    PROJECTOR_LANES: String(LANES),
    DATA_DIR: t.dataDir,
    PUBLIC_URL: 'http://journal.test',
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789',
    LOG_LEVEL: 'silent',
    ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
    ...(options.bullPrefix ? { BULLMQ_PREFIX: options.bullPrefix } : {}),
  };
  return {
    t,
    store,
    env,
    async close() {
      await store.close();
      await t.close();
    },
  };
}

/** Every projector process a case started and has not seen exit. */
const running = new Set<ChildProcess>();

/** Kills every projector process still running (each case's `afterAll`): none may outlive its case. */
export async function killSpawned(): Promise<void> {
  await Promise.all([...running].map((child) => kill(child)));
}

/** A projector as its own process (`npm run projector`), as in services mode; `env` adds to the stack's. */
export function spawnProjector(stack: Stack, env: NodeJS.ProcessEnv = {}): ChildProcess {
  const child = spawn(process.execPath, ['services/src/projector.ts'], { cwd: REPO_ROOT, env: { ...stack.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  // What it says before it dies (its log lines and stderr) is the first thing to read when a case fails.
  let said = '';
  const hear = (chunk: Buffer) => void (said = (said + chunk.toString()).slice(-8000));
  child.stdout?.on('data', hear);
  child.stderr?.on('data', hear);
  child.once('exit', (code, signal) => {
    // The cases end it with a signal: an exit of its own, even with 0, is a projector that stopped.
    if (code !== null && signal === null) process.stderr.write(`projector exited by itself with ${code}:\n${said}\n`);
  });
  return child;
}

/** Until the read models have a live version (a new deployment's projector builds them first). */
export async function untilLive(stack: Stack, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await liveTables(stack.t.db.db, 'trades').then(() => true, () => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error('the read models never went live');
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function kill(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

/** An in-process projector on the stack's transport, to catch up after the faults and to wait on. */
export function startCatchUpProjector(stack: Stack): Promise<ProjectorHandle> {
  return startProjector({
    config: { PROJECTOR_LANES: LANES, REDIS_URL: stack.env.REDIS_URL, BULLMQ_PREFIX: stack.env.BULLMQ_PREFIX },
    database: stack.t.db,
    eventStore: stack.store,
    logger: createLogger('silent'),
    metrics: new Registry(),
    projections: allProjections,
    pollMs: 50,
  });
}

/**
 * Waits until the projector has applied the last committed event (not the store's head: that is the
 * visibility horizon, which a long transaction elsewhere on the server holds back). With a handle, it
 * asks the projector; without one (a projector in another process), it waits for the horizon to pass
 * that event and then for every lane's lag to be 0.
 */
export async function settle(stack: Stack, projector?: ProjectorHandle, timeoutMs = 120_000): Promise<void> {
  const { rows } = await sql<{ c: string; p: string }>`
    select transaction_id::text as c, global_position::text as p from events order by transaction_id desc, global_position desc limit 1`.execute(stack.t.db.db);
  const last = rows[0];
  if (!last) return;
  const position = { commit: BigInt(last.c), prepare: BigInt(last.p) };
  if (projector) return projector.waitFor(position, timeoutMs);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const head = await stack.store.head();
    if (head && comparePositions(head, position) >= 0) {
      const lag = await readLag(stack.t.db.db, stack.store, allProjections, LANES);
      if (lag.length > 0 && lag.every((l) => l.behindEvents === 0 && !l.capped)) return;
    }
    if (Date.now() > deadline) throw new Error(`the projector did not catch up: ${JSON.stringify(await readLag(stack.t.db.db, stack.store, allProjections, LANES))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ---------------------------------------------------------------------------------------------------
// The mixed load

interface Trader {
  userId: string;
  authorization: string;
  account: string;
  /** Open trades as the commands answered them: uid and contracts. */
  open: Map<string, number>;
}

export interface Sent {
  requestId: string;
  authorization: string;
  payload?: object;
  idempotencyKey: string | null;
  method: string;
  url: string;
  status: number;
  command: boolean;
  retryOf?: string;
}

/** A small deterministic generator, so a failing run can be repeated from its seed. */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

const WEEKDAYS = (() => {
  const out: string[] = [];
  for (let d = new Date('2026-01-05T12:00:00Z'); d <= new Date('2026-02-27T12:00:00Z'); d = new Date(d.getTime() + 86_400_000)) {
    if (d.getUTCDay() !== 0 && d.getUTCDay() !== 6) out.push(d.toISOString().slice(0, 10));
  }
  return out;
})();

export class MixedLoad {
  readonly sent: Sent[] = [];
  private readonly traders: Trader[] = [];
  private readonly random: () => number;
  private counter = 0;
  private readonly stack: Stack;
  constructor(stack: Stack, seed = 1) {
    this.stack = stack;
    this.random = rng(seed);
  }

  async addTraders(n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      const me = await signInAs(this.stack.t);
      const r = await this.stack.t.app.inject({ method: 'POST', url: '/api/v1/accounts/add-account', headers: { authorization: me.authorization }, payload: { name: 'Main', broker: 'ibkr', ac_type: 1 } });
      expect(r.statusCode, r.body).toBe(201);
      this.traders.push({ userId: me.userId, authorization: me.authorization, account: r.json().uid, open: new Map() });
    }
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  private async send(trader: Trader, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, command = true) {
    const requestId = `fault-${++this.counter}`;
    const idempotencyKey = command ? `key-${this.counter}` : null;
    const headers: Record<string, string> = { authorization: trader.authorization, 'x-request-id': requestId };
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    const res = await this.stack.t.app.inject({ method, url: `/api/v1${url}`, headers, ...(payload ? { payload } : {}) });
    this.sent.push({ requestId, authorization: trader.authorization, ...(payload ? { payload } : {}), idempotencyKey, method, url, status: res.statusCode, command });
    // Some commands are sent again with the same key, as a client does after a lost answer.
    if (command && this.random() < 0.15) {
      const retryId = `${requestId}-retry`;
      const again = await this.stack.t.app.inject({ method, url: `/api/v1${url}`, headers: { ...headers, 'x-request-id': retryId }, ...(payload ? { payload } : {}) });
      this.sent.push({ requestId: retryId, authorization: trader.authorization, ...(payload ? { payload } : {}), idempotencyKey, method, url, status: again.statusCode, command, retryOf: requestId });
      // The retry answers as the first request did, unless the fault makes it unreachable (503).
      if (res.statusCode < 300 && again.statusCode !== 503) expect(again.statusCode, `retry of ${method} ${url}`).toBe(res.statusCode);
    }
    return res;
  }

  /** One step of one trader: a command (open, close all or part, roll, edit, delete, add closed) or a list query. */
  async step(): Promise<void> {
    const trader = this.pick(this.traders);
    const openUids = [...trader.open.keys()];
    const roll = this.random();
    const openDate = this.pick(WEEKDAYS.slice(0, -8));
    const closeDate = this.pick(WEEKDAYS.slice(-8));
    const terms = () => ({
      ticker: this.pick(['SPY', 'QQQ', 'AAPL', 'MSFT', 'IWM']),
      strategy_uid: 'cash-secured-put',
      account_uid: trader.account,
      strike_prices: [100 + Math.floor(this.random() * 50)],
      trade_open_date: openDate,
      expiration_date: '2026-04-17',
      contract_size: 1 + Math.floor(this.random() * 4),
      premium_at_open: 50 + Math.floor(this.random() * 300),
      net_fee_to_open: 1.3,
      net_delta: 0.3,
      stock_price_at_open: 150,
      notes: '',
    });
    if (roll < 0.2) {
      const status = this.pick(['open', 'closed', 'rolled']);
      await this.send(trader, 'GET', `/trades/status/${status}`, undefined, false);
      return;
    }
    if (roll < 0.5 || openUids.length === 0) {
      const data = terms();
      const r = await this.send(trader, 'POST', '/trades/add-trade', { trade_data: data, tag_data: [] });
      if (r.statusCode === 201) trader.open.set(r.json().uid, data.contract_size);
      return;
    }
    const uid = this.pick(openUids);
    const contracts = trader.open.get(uid) ?? 1;
    if (roll < 0.65) {
      const n = 1 + Math.floor(this.random() * contracts);
      const r = await this.send(trader, 'POST', `/trades/close/${uid}`, { contract_size: n, trade_close_date: closeDate, premium_at_close: 10 + Math.floor(this.random() * 40), net_fee_to_close: 1, close_transaction: 2 });
      if (r.statusCode < 300) {
        trader.open.delete(uid);
        const remaining = r.json().remaining_trade;
        if (remaining) trader.open.set(remaining.uid, contracts - n);
      }
      return;
    }
    if (roll < 0.8) {
      const r = await this.send(trader, 'POST', `/trades/roll/${uid}`, {
        trade_roll_data: {
          old_trade: { trade_close_date: closeDate, premium_at_close: 20, net_fee_to_close: 1, close_transaction: 2 },
          new_trade: { expiration_date: '2026-05-15', contract_size: contracts, strike_prices: [120], premium_at_open: 180, net_fee_to_open: 1.3, net_delta: 0.25, stock_price_at_open: 150 },
        },
        tag_data: [],
      });
      if (r.statusCode < 300) {
        trader.open.delete(uid);
        trader.open.set(r.json().new_trade_after_roll.uid, contracts);
      }
      return;
    }
    if (roll < 0.92) {
      await this.send(trader, 'PATCH', `/trades/update/${uid}`, { notes: `edited ${this.counter}`, premium_at_open: 100 + Math.floor(this.random() * 100) });
      return;
    }
    const r = await this.send(trader, 'DELETE', `/trades/${uid}`);
    if (r.statusCode < 300) trader.open.delete(uid);
  }

  /**
   * After the fault: every command answered 503 (outcome unknown to the client) is sent again under its
   * Idempotency-Key, as a client does, until it gets an answer that is not a 503.
   */
  async recover(): Promise<void> {
    const unknown = this.sent.filter((s) => s.command && !s.retryOf && s.status === 503);
    for (const first of unknown) {
      const trader = this.traders.find((tr) => tr.authorization === first.authorization)!;
      for (let attempt = 1; attempt <= 20; attempt++) {
        const requestId = `${first.requestId}-recover${attempt}`;
        const res = await this.stack.t.app.inject({
          method: first.method as 'POST',
          url: `/api/v1${first.url}`,
          headers: { authorization: trader.authorization, 'x-request-id': requestId, 'idempotency-key': first.idempotencyKey! },
          ...(first.payload ? { payload: first.payload } : {}),
        });
        this.sent.push({ ...first, requestId, status: res.statusCode, retryOf: first.requestId });
        if (res.statusCode !== 503) break;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  /** `steps` steps, `concurrency` at a time (each trader's own steps may interleave, as two tabs would). */
  async run(steps: number, concurrency = 4, between?: (done: number) => Promise<void> | void): Promise<void> {
    let started = 0;
    const worker = async () => {
      while (started < steps) {
        // Each step's own number: read after the await, a shared count would hand two workers the same
        // number, and a case that kills and restarts the projector at step 60 would do it twice at once
        // (the second restart orphaned the first one's new projector, which outlived the test run).
        const n = ++started;
        await this.step();
        await between?.(n);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }
}

// ---------------------------------------------------------------------------------------------------
// The proof

export async function dumpLive(stack: Stack): Promise<Record<string, unknown[]>> {
  const tables = await liveTables(stack.t.db.db, 'trades');
  const out: Record<string, unknown[]> = {};
  for (const name of tradeTables) {
    out[name] = (await sql<Record<string, unknown>>`select * from ${sql.table(tables[name]!)} order by 1, 2`.execute(stack.t.db.db)).rows;
  }
  return out;
}

export async function proveNothingLost(stack: Stack, load: MixedLoad, projector: ProjectorHandle | undefined, options: { allowed5xx?: number[] } = {}): Promise<void> {
  const allowed = new Set(options.allowed5xx ?? []);
  const db = stack.t.db.db;
  // 4. No 5xx but the allowed ones (503 where a dependency was made unreachable).
  const bad = load.sent.filter((s) => s.status >= 500 && !allowed.has(s.status));
  expect(bad, 'answers of 5xx').toEqual([]);

  const { rows: events } = await sql<{ corr: string | null; key: string | null; event_id: string }>`
    select metadata->>'correlationId' as corr, metadata->>'idempotencyKey' as key, event_id::text from events where stream_id like 'trade-%'`.execute(db);
  expect(new Set(events.map((e) => e.event_id)).size, 'event ids are unique').toBe(events.length);
  const requestsOfKey = new Map<string, Set<string>>();
  for (const e of events) {
    if (e.key && e.corr) requestsOfKey.set(e.key, (requestsOfKey.get(e.key) ?? new Set()).add(e.corr));
  }
  // Every command is one Idempotency-Key: its first request, a quick retry, and after a 503 (outcome
  // unknown) the client's retries until an answer. Its effect is decided by the last answer that is not
  // a 503: accepted, its events are in the log and came from exactly one of its requests (a retry never
  // appended again); refused, nothing of it is in the log.
  const attemptsOfKey = new Map<string, Sent[]>();
  for (const s of load.sent.filter((x) => x.command && x.idempotencyKey)) attemptsOfKey.set(s.idempotencyKey!, [...(attemptsOfKey.get(s.idempotencyKey!) ?? []), s]);
  let accepted = 0;
  for (const [key, attempts] of attemptsOfKey) {
    const decided = attempts.filter((a) => a.status !== 503).at(-1);
    const writers = [...(requestsOfKey.get(key) ?? [])];
    const where = `${key} ${attempts[0]!.method} ${attempts[0]!.url}: ${attempts.map((a) => `${a.requestId}=${a.status}`).join(', ')}`;
    expect(decided, `${where}: no answer but 503`).toBeDefined();
    if (decided!.status < 300) {
      accepted++;
      expect(writers, `${where}: written by`).toHaveLength(1);
      expect(attempts.map((a) => a.requestId), `${where}: written by one of its requests`).toContain(writers[0]);
    } else {
      expect(writers, `${where}: refused, yet written by`).toEqual([]);
    }
  }
  expect(accepted, 'the load was not all refusals').toBeGreaterThan(10);

  // 3. The read models equal a clean rebuild, row by row.
  await settle(stack, projector);
  const live = await dumpLive(stack);
  expect(live.trades!.length).toBeGreaterThan(0);
  for (let i = 0; ; i++) {
    try {
      await rebuild({ database: stack.t.db, eventStore: stack.store, projections: allProjections, lanes: LANES }, 'trades');
      break;
    } catch (error) {
      // A killed process's session (and the advisory lock it held) ends when the server notices.
      if (!(error instanceof RebuildLockedError) || i > 300) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await settle(stack, projector);
  expect(await dumpLive(stack)).toEqual(live);
}
