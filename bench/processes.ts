import type { ChildProcess } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { Redis } from 'ioredis';
import { systemClock } from '@oj/infra/clock';
import { loadConfig } from '@oj/infra/config';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { comparePositions } from '@oj/infra/eventstore/port';
import { upcastJournalEvent } from '@oj/infra/eventstore/create';
import { spawnService, stopChild as stop, waitHealthy } from '@oj/infra/testing/processes';
import { createUser } from '@oj/services/identity/commands';
import { allProjections } from '@oj/projections/catalogue';
import { rebuild } from '@oj/projections/runtime/rebuild';
import { liveTables, readLag } from '@oj/projections/runtime/registry';
import { tradeTables } from '@oj/projections/trades/projection';
import { httpLoad, median } from './commands.ts';
import { benchDeployment } from './deployment.ts';

/**
 * `npm run bench -- processes [--seconds S] [--runs R] [--level 64]`
 *
 * Several processes, one deployment (issue 17), on real PostgreSQL and Redis: the gateway as
 * `npm run gateway` with GATEWAY_PROCESSES=1 and then 2 behind the same port, and projectors as
 * `npm run projector` (one working every lane, then two splitting them with PROJECTOR_WORK_LANES), all
 * on one fresh database. The load is the commands bench's (HTTP clients looping "open a trade, close
 * it", one keep-alive connection each) at concurrency 64 from a worker thread of this process. After
 * each layout: the projectors catch up, and the read models must equal a clean rebuild, row by row
 * (the rows that differ are printed; BENCH_KEEP=1 keeps the database and Redis keys for a look).
 */
const LANES = 4;

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { seconds: { type: 'string', default: '10' }, runs: { type: 'string', default: '3' }, level: { type: 'string', default: '64' } } });
  const seconds = Number(values.seconds);
  const runs = Number(values.runs);
  const level = Number(values.level);
  const { db, prefix, port, env: deploymentEnv } = await benchDeployment('processes', 'the projector lanes, the shared rate-limit counters');
  const env = { ...deploymentEnv, PROJECTOR_LANES: String(LANES) };
  const config = loadConfig(env);
  const email = `bench-processes-${Date.now()}@example.com`;
  await createUser({ db: db.db, clock: systemClock, config }, { name: 'Bench Trader', email, password: 'Bench1!pass', verified: true });
  const address = `http://127.0.0.1:${port}`;

  const startGateway = async (processes: number): Promise<ChildProcess> => {
    const child = spawnService('gateway', { ...env, GATEWAY_PROCESSES: String(processes) });
    await waitHealthy(address);
    return child;
  };
  const startProjectors = (split: boolean): ChildProcess[] =>
    (split ? ['0,1', '2,3'] : ['']).map((lanes) =>
      spawnService('projector', { ...env, ...(lanes ? { PROJECTOR_WORK_LANES: lanes } : {}) }),
    );

  // A session and an account through the real gateway (its clock is the real one).
  let gateway = await startGateway(1);
  const login = (await (await fetch(`${address}/api/v1/users/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'Bench1!pass' }) })).json()) as { access_token: string };
  const headers = { authorization: `Bearer ${login.access_token}`, 'content-type': 'application/json' };
  const account = (await (await fetch(`${address}/api/v1/accounts/add-account`, { method: 'POST', headers, body: JSON.stringify({ name: 'Main', broker: 'ibkr', ac_type: 1 }) })).json()) as { uid: string };
  const openBody = JSON.stringify({
    trade_data: { ticker: 'SPY', strategy_uid: 'cash-secured-put', account_uid: account.uid, strike_prices: [500], trade_open_date: '2026-02-02', expiration_date: '2026-03-20', contract_size: 1, premium_at_open: 250, net_fee_to_open: 0.65, net_delta: 0.3, stock_price_at_open: 510 },
    tag_data: [],
  });
  const closeBody = JSON.stringify({ contract_size: 1, trade_close_date: '2026-02-27', premium_at_close: 50, net_fee_to_close: 0.65, close_transaction: 2 });

  const store = new PostgresEventStore(db, { upcast: upcastJournalEvent });
  const dump = async () => {
    const tables = await liveTables(db.db, 'trades');
    const out: Record<string, unknown[]> = {};
    for (const name of tradeTables) out[name] = (await sql<Record<string, unknown>>`select * from ${sql.table(tables[name]!)} order by 1, 2`.execute(db.db)).rows;
    return out;
  };
  /**
   * Until every lane has applied the last committed event. Lag alone is not enough: readers see the log
   * only up to the oldest transaction still running (a lane batch in flight holds it back), so "no lag"
   * can be read while the newest events are still invisible. First the horizon must pass the last event.
   */
  const caughtUp = async () => {
    const last = (await sql<{ c: string; p: string }>`select transaction_id::text as c, global_position::text as p from events order by transaction_id desc, global_position desc limit 1`.execute(db.db)).rows[0];
    const goal = last ? { commit: BigInt(last.c), prepare: BigInt(last.p) } : null;
    for (let i = 0; i < 2400; i++) {
      const head = await store.head();
      if (!goal || (head && comparePositions(head, goal) >= 0)) {
        const lag = await readLag(db.db, store, allProjections, LANES).catch(() => []);
        if (lag.length > 0 && lag.every((l) => l.behindEvents === 0 && !l.capped)) return;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error('the projectors did not catch up');
  };

  const layouts = [
    { name: '1 gateway process, 1 projector', gateways: 1, split: false },
    { name: '2 gateway processes, 2 projectors (lanes 0,1 and 2,3)', gateways: 2, split: true },
  ];
  const results: { name: string; throughput: number; p50: number; p99: number; errors: number; identical: boolean }[] = [];
  for (const layout of layouts) {
    await stop(gateway);
    gateway = await startGateway(layout.gateways);
    const projectors = startProjectors(layout.split);
    await httpLoad({ address, headers, openBody, closeBody, level, seconds: 3 }); // warm-up
    const samples = [];
    for (let run = 0; run < runs; run++) {
      const s = await httpLoad({ address, headers, openBody, closeBody, level, seconds });
      process.stderr.write(`${layout.name}, run ${run + 1}/${runs}: ${s.throughput.toFixed(0)} commands/s p50 ${s.p50.toFixed(1)} ms p99 ${s.p99.toFixed(1)} ms (errors ${s.errors})\n`);
      samples.push(s);
    }
    await caughtUp();
    const live = await dump();
    await rebuild({ database: db, eventStore: store, projections: allProjections, lanes: LANES }, 'trades');
    await caughtUp();
    const rebuilt = await dump();
    const differing = tradeTables.filter((t) => JSON.stringify(rebuilt[t]) !== JSON.stringify(live[t]));
    for (const t of differing) {
      const a = live[t]!.map((r) => JSON.stringify(r));
      const b = new Set(rebuilt[t]!.map((r) => JSON.stringify(r)));
      const onlyLive = a.filter((r) => !b.has(r));
      const onlyRebuilt = [...b].filter((r) => !a.includes(r));
      process.stderr.write(`${layout.name}: ${t} differs (${live[t]!.length} live rows, ${rebuilt[t]!.length} rebuilt); only live: ${onlyLive.length}, only rebuilt: ${onlyRebuilt.length}\n  live:    ${onlyLive.slice(0, 2).join('\n           ')}\n  rebuilt: ${onlyRebuilt.slice(0, 2).join('\n           ')}\n`);
    }
    const identical = differing.length === 0;
    for (const p of projectors) await stop(p);
    results.push({
      name: layout.name,
      throughput: median(samples.map((s) => s.throughput)),
      p50: median(samples.map((s) => s.p50)),
      p99: median(samples.map((s) => s.p99)),
      errors: samples.reduce((n, s) => n + s.errors, 0),
      identical,
    });
  }
  await stop(gateway);

  const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`;
  console.log(`\nMachine: ${machine}. Concurrency ${level}; medians of ${runs} runs of ${seconds} s per layout, after 3 s of warm-up.\n`);
  console.log('| layout | commands/s | p50 ms | p99 ms | errors | vs one process | read models equal a clean rebuild |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(`| ${r.name} | ${r.throughput.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.errors} | ${(r.throughput / results[0]!.throughput).toFixed(2)}x | ${r.identical ? 'yes' : 'NO'} |`);
  }
  await store.close();
  if (process.env.BENCH_KEEP && results.some((r) => !r.identical)) {
    process.stderr.write(`kept for inspection: ${db.url} (BullMQ prefix ${prefix})\n`);
    throw new Error('read models differ from a clean rebuild');
  }
  const redis = new Redis(env.REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  await redis.quit();
  await db.drop();
  if (results.some((r) => !r.identical)) throw new Error('read models differ from a clean rebuild');
}
