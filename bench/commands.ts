import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import pg from 'pg';
import { Registry } from 'prom-client';
import { loadConfig } from '@oj/infra/config';
import { FixedClock } from '@oj/infra/clock';
import { createLogger } from '@oj/infra/logger';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { upcastJournalEvent } from '@oj/infra/eventstore/create';
import { createTestDatabase } from '@oj/infra/testing/postgres';
import { buildApp } from '@oj/services/app/app';
import type { AppDeps } from '@oj/services/app/deps';
import { migrate } from '@oj/services/platform/migrations';
import { createUser, login } from '@oj/services/identity/commands';
import { addAccount } from '@oj/services/accounts/commands';
import { runJournalCommand } from '@oj/services/journal/commands';
import type { Principal } from '@oj/services/app/principal';

/**
 * `npm run bench -- commands [--seconds S] [--runs R] [--levels 1,16,64] [--warmup S] [--profile FILE]`
 *
 * On real PostgreSQL (DATABASE_URL), in a fresh database: the gateway listening on a local port, HTTP
 * clients with one keep-alive connection each, every client looping "open a trade, close it" (two
 * commands, each a full read-fold-decide-append with the lineage index and authentication). Beside it,
 * in the same run and database, the baseline: single-row insert transactions into a plain table at the
 * same concurrency; and the same commands called in-process (no HTTP, no authentication), which separates
 * the gateway's share from the handler's and the store's. Prints throughput, p50/p99 per level (medians over
 * the runs) and a markdown table.
 */
interface Sample {
  throughput: number;
  p50: number;
  p99: number;
  errors: number;
}

const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : 0);
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : 0;
};

/** Runs `op` in `concurrency` loops for `seconds`; latency of each op in ms. */
async function load(concurrency: number, seconds: number, op: (worker: number) => Promise<number[]>): Promise<Sample> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      while (performance.now() < deadline) {
        try {
          latencies.push(...(await op(w)));
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { throughput: latencies.length / elapsed, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), errors };
}

/** Open+close commands over HTTP from a worker thread (see commands-client.ts). */
export async function httpLoad(job: { address: string; headers: Record<string, string>; openBody: string; closeBody: string; level: number; seconds: number }): Promise<Sample> {
  const worker = new Worker(new URL('./commands-client.ts', import.meta.url), { workerData: job });
  const [result] = (await once(worker, 'message')) as [{ latencies: number[]; elapsed: number; errors: number; firstError: string | null }];
  await worker.terminate();
  if (result.firstError) process.stderr.write(`first error: ${result.firstError}\n`);
  const sorted = result.latencies.sort((a, b) => a - b);
  return { throughput: sorted.length / result.elapsed, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), errors: result.errors };
}

/** Profiles this thread (where the gateway runs) until stop(file) writes the .cpuprofile and prints the top 25 functions by self time. */
async function startProfile(): Promise<{ stop(file: string): Promise<void> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      await writeFile(file, JSON.stringify(profile));
      const total = profile.samples?.length ?? 0;
      const hits = new Map<number, number>();
      for (const id of profile.samples ?? []) hits.set(id, (hits.get(id) ?? 0) + 1);
      const self = new Map<string, number>();
      for (const node of profile.nodes) {
        const f = node.callFrame;
        const where = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(infra|services|contracts|projections)\//, '$1/')}:${f.lineNumber + 1}`;
        self.set(where, (self.get(where) ?? 0) + (hits.get(node.id) ?? 0));
      }
      const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 25);
      process.stderr.write(`profile ${file}: ${total} samples; top self time:\n${top.map(([k, n]) => `  ${((100 * n) / total).toFixed(1).padStart(5)}%  ${k}`).join('\n')}\n`);
    },
  };
}

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      seconds: { type: 'string', default: '5' },
      runs: { type: 'string', default: '3' },
      levels: { type: 'string', default: '1,16,64' },
      // Untimed load before the first run: the first seconds of a fresh process are the JIT's and the pools'.
      warmup: { type: 'string', default: '3' },
      // A CPU profile of the gateway's thread during the HTTP phase of the last run (open it in Chrome DevTools).
      profile: { type: 'string' },
    },
  });
  const seconds = Number(values.seconds);
  const runs = Number(values.runs);
  const levels = values.levels.split(',').map(Number);
  const maxLevel = Math.max(...levels);

  const testDb = await createTestDatabase('bench_commands');
  const database = testDb;
  await migrate(database.db);
  const eventStore = new PostgresEventStore(database, { upcast: upcastJournalEvent });
  const config = loadConfig({ NODE_ENV: 'production', DATABASE_URL: testDb.url, DATA_DIR: '/tmp/oj-bench-commands', JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123', LOG_LEVEL: 'silent', PUBLIC_URL: 'http://bench.local' });
  // Monday 2 March 2026, 10:00 New York: the trades' dates are fixed, so the bench never meets a weekend.
  const clock = new FixedClock('2026-03-02T15:00:00Z');
  const deps: AppDeps = { config, database, eventStore, clock, logger: createLogger('silent'), metrics: new Registry(), readiness: [] };
  const app = await buildApp(deps, { logger: false });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });

  const identity = { db: database.db, clock, config };
  const email = `bench-${Date.now()}@example.com`;
  const userId = await createUser(identity, { name: 'Bench Trader', email, password: 'Bench1!pass', verified: true });
  const session = await login(identity, { email, password: 'Bench1!pass' });
  const principal: Principal = { userId, email, name: 'Bench Trader', role: 'User', subsStatus: 1, subscriptionActive: true, verified: true };
  const account = await addAccount({ db: database.db, clock, dataDir: config.DATA_DIR }, principal, { name: 'Main', broker: 'ibkr', ac_type: 1, broker_commission: 0.65, broker_fee: 0.03 });
  const headers = { authorization: `Bearer ${session.accessToken}`, 'content-type': 'application/json' };
  const openBody = JSON.stringify({
    trade_data: {
      ticker: 'SPY', strategy_uid: 'cash-secured-put', account_uid: account.uid, strike_prices: [500], trade_open_date: '2026-02-02',
      expiration_date: '2026-03-20', contract_size: 1, premium_at_open: 250, net_fee_to_open: 0.65, net_delta: 0.3, stock_price_at_open: 510,
    },
    tag_data: [],
  });
  const closeBody = JSON.stringify({ contract_size: 1, trade_close_date: '2026-02-27', premium_at_close: 50, net_fee_to_close: 0.65, close_transaction: 2 });

  const baselinePool = new pg.Pool({ connectionString: testDb.url, max: Math.min(maxLevel, 32) });
  await baselinePool.query('create table bench_baseline (id bigserial primary key, stream_id text not null, payload jsonb not null, created_at timestamptz not null default now())');
  const payload = openBody;

  const results: Record<number, { commands: Sample[]; direct: Sample[]; baseline: Sample[] }> = {};
  for (const level of levels) results[level] = { commands: [], direct: [], baseline: [] };
  const ctx = { db: database.db, eventStore, clock };
  const caller = { principal, requestId: 'bench', idempotencyKey: null };
  const openRequest = { kind: 'addTrade' as const, body: JSON.parse(openBody) };
  const closeRequest = JSON.parse(closeBody);
  // The same commands without HTTP, authentication and serialization: the handler and the store alone.
  const inProcess = async (): Promise<number[]> => {
    const t0 = performance.now();
    const opened = (await runJournalCommand(ctx, caller, openRequest)) as { uid: string };
    const t1 = performance.now();
    await runJournalCommand(ctx, caller, { kind: 'close', uid: opened.uid, action: 'close', body: closeRequest });
    return [t1 - t0, performance.now() - t1];
  };
  const baselineInsert = async (w: number): Promise<number[]> => {
    const t0 = performance.now();
    await baselinePool.query('insert into bench_baseline (stream_id, payload) values ($1, $2)', [`w${w}`, payload]);
    return [performance.now() - t0];
  };
  const warmup = Number(values.warmup);
  if (warmup > 0) {
    const level = Math.max(...levels.filter((l) => l <= 16), levels[0]!);
    await httpLoad({ address, headers, openBody, closeBody, level, seconds: warmup });
    await load(level, warmup / 2, inProcess);
    await load(level, warmup / 2, baselineInsert);
    process.stderr.write(`warm-up: ${warmup} s of HTTP commands, then ${warmup / 2} s each of in-process commands and baseline inserts, at concurrency ${level}\n`);
  }
  for (let run = 0; run < runs; run++) {
    for (const level of levels) {
      const profiling = values.profile && run === runs - 1 ? await startProfile() : null;
      const commands = await httpLoad({ address, headers, openBody, closeBody, level, seconds });
      if (profiling) await profiling.stop(`${values.profile}.c${level}.cpuprofile`);
      const direct = await load(level, seconds, inProcess);
      const baseline = await load(level, seconds, baselineInsert);
      results[level]!.commands.push(commands);
      results[level]!.direct.push(direct);
      results[level]!.baseline.push(baseline);
      process.stderr.write(
        `run ${run + 1}/${runs} c=${level}: commands ${commands.throughput.toFixed(0)}/s p50 ${commands.p50.toFixed(1)}ms p99 ${commands.p99.toFixed(1)}ms (errors ${commands.errors}); in-process ${direct.throughput.toFixed(0)}/s p99 ${direct.p99.toFixed(1)}ms; baseline ${baseline.throughput.toFixed(0)}/s p50 ${baseline.p50.toFixed(2)}ms p99 ${baseline.p99.toFixed(2)}ms\n`,
      );
    }
  }

  const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, PostgreSQL ${(await baselinePool.query('show server_version')).rows[0].server_version}`;
  const rows = levels.map((level) => {
    const r = results[level]!;
    const c = { throughput: median(r.commands.map((s) => s.throughput)), p50: median(r.commands.map((s) => s.p50)), p99: median(r.commands.map((s) => s.p99)) };
    const d = { throughput: median(r.direct.map((s) => s.throughput)), p50: median(r.direct.map((s) => s.p50)), p99: median(r.direct.map((s) => s.p99)) };
    const b = { throughput: median(r.baseline.map((s) => s.throughput)), p50: median(r.baseline.map((s) => s.p50)), p99: median(r.baseline.map((s) => s.p99)) };
    return { level, commands: c, direct: d, baseline: b, ratio: c.throughput / b.throughput, errors: r.commands.reduce((n, s) => n + s.errors, 0) };
  });
  console.log(JSON.stringify({ machine, seconds, runs, rows }, null, 2));
  console.log(`\nMachine: ${machine}. Medians of ${runs} runs of ${seconds} s per level, after ${warmup} s of warm-up.\n`);
  console.log('| concurrency | HTTP commands/s | p50 ms | p99 ms | in-process commands/s | in-process p99 ms | baseline inserts/s | baseline p50 ms | baseline p99 ms | HTTP / baseline |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.level} | ${r.commands.throughput.toFixed(0)} | ${r.commands.p50.toFixed(1)} | ${r.commands.p99.toFixed(1)} | ${r.direct.throughput.toFixed(0)} | ${r.direct.p99.toFixed(1)} | ${r.baseline.throughput.toFixed(0)} | ${r.baseline.p50.toFixed(2)} | ${r.baseline.p99.toFixed(2)} | ${(r.ratio * 100).toFixed(0)}% |`,
    );
  }

  await baselinePool.end();
  await app.close();
  await eventStore.close();
  await testDb.drop();
}
