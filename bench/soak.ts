import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { systemClock } from '@oj/infra/clock';
import { loadConfig } from '@oj/infra/config';
import { freePort, nodeOptionsOf, spawnService, stopChild as stop, waitHealthy } from '@oj/infra/testing/processes';
import { createUser } from '@oj/services/identity/commands';
import { addDays, isWeekend } from '@oj/contracts/business-date';
import { benchDeployment } from './deployment.ts';

/**
 * `npm run bench -- soak [--minutes 10] [--rate 300] [--users 200] [--query-rate 100] [--dates spread|same] [--days 20]`
 *
 * A long steady load on the services layout (issue 17): the gateway and the projector as their own
 * processes on real PostgreSQL and Redis, `rate` trade commands a second (open a trade, or close one of
 * the user's open ones) spread over `users` traders, plus `query-rate` reads a second (the open and
 * closed lists and the dashboard's premium data). The load is open-loop: requests go out on a schedule,
 * whether or not earlier ones have answered, so a slow server shows as latency, not as a lower rate.
 * Every minute it prints p50/p99 of commands and queries, errors, requests the gateway shed (refused at
 * once with 503 when past its capacity: counted apart, not in the latencies) and the resident memory of
 * each process (and each one's heap: in use, and live after its last full collection, where a leak
 * shows; and the share of the minute the gateway's garbage collections paused it, with the number of
 * full ones);
 * at the end, the growth of each process's memory after the first minute (target: at most 10%). The
 * processes run as their npm scripts start them, Node options included (spawnService). A rate beyond the gateway's capacity shows its load shedding: the answered requests keep their
 * latency and the excess is shed.
 *
 * Dates, so that the work of a request stays steady while the journals grow (a soak looks for what grows
 * under a steady load): `spread` (the default) opens each trader's k-th trade on weekday k mod D of the
 * D weekdays up to 2026-11-13 (`--days`, default 20: a month) and closes it 7 days later. Two shapes whose
 * work grows, kept to show it: `same` opens every trade on 2026-02-02 and closes it on 2026-02-27, so
 * each trader's two days grow without end, and so does every command that touches them (a day's record
 * is recomputed from all the trades of the day); `--days 400` gives each trader a new day with almost
 * every trade, so each dashboard answer holds more days than the one before.
 */

const rssMiB = (pid: number | undefined): number => {
  if (!pid) return 0;
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
};

/**
 * A process's V8 heap in use (with the garbage not yet collected), its live heap (in use right after
 * its last full collection: what it really holds) and its external memory (buffers), from its own
 * /metrics (the gateway's, or the projector's at PROJECTOR_METRICS_PORT), in MiB; and its garbage
 * collections so far: the seconds its event loop stood still for them (every kind) and the number of
 * full ones.
 */
async function processHeap(base: string): Promise<{ heapUsedMiB: number; liveHeapMiB: number; externalMiB: number; gcSeconds: number; majorGcs: number }> {
  try {
    const text = await (await fetch(`${base}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, 'm').exec(text)?.[1] ?? 0);
    const gcSeconds = [...text.matchAll(/^nodejs_gc_duration_seconds_sum\{[^}]*\} ([0-9.e+-]+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    const majorGcs = Number(/^nodejs_gc_duration_seconds_count\{kind="major"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    const MiB = 2 ** 20;
    return { heapUsedMiB: value('nodejs_heap_size_used_bytes') / MiB, liveHeapMiB: value('nodejs_heap_live_after_major_gc_bytes') / MiB, externalMiB: value('nodejs_external_memory_bytes') / MiB, gcSeconds, majorGcs };
  } catch {
    return { heapUsedMiB: 0, liveHeapMiB: 0, externalMiB: 0, gcSeconds: 0, majorGcs: 0 };
  }
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : 0;
};

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      minutes: { type: 'string', default: '10' },
      rate: { type: 'string', default: '300' },
      users: { type: 'string', default: '200' },
      'query-rate': { type: 'string', default: '100' },
      dates: { type: 'string', default: 'spread' },
      days: { type: 'string', default: '20' },
    },
  });
  const minutes = Number(values.minutes);
  const rate = Number(values.rate);
  const queryRate = Number(values['query-rate']);
  const userCount = Number(values.users);
  if (values.dates !== 'spread' && values.dates !== 'same') throw new Error('--dates is spread or same');
  const spread = values.dates === 'spread';
  // The D weekdays up to 2026-11-13 (closes a week later are still in the past): a trader's k-th trade opens on weekday k mod D.
  const days = Number(values.days);
  if (!Number.isInteger(days) || days < 1 || days > 400) throw new Error('--days is a whole number from 1 to 400');
  const weekdays: string[] = [];
  for (let d = '2026-11-13'; weekdays.length < days; d = addDays(d, -1)) if (!isWeekend(d)) weekdays.unshift(d);
  const { db, prefix, port, env: deploymentEnv } = await benchDeployment('soak', 'the projector lanes');
  const env = {
    ...deploymentEnv,
    ACCESS_TOKEN_TTL_SECONDS: String(Math.ceil(minutes * 60 + 600)),
    // The gateway's load shedding limits, prepared statements and Node's options (V8 heap settings),
    // when the caller sets them (to soak other settings).
    ...Object.fromEntries(['GATEWAY_MAX_IN_FLIGHT', 'GATEWAY_MAX_EVENT_LOOP_DELAY_MS', 'DATABASE_PREPARED_STATEMENTS', 'NODE_OPTIONS'].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : []))),
  };
  const config = loadConfig(env);
  // As `npm run gateway` and `npm run projector` start them (their Node options come from package.json).
  const gateway = spawnService('gateway', env);
  // The projector answers its own /metrics (its heap, as the gateway's) on a port of its own.
  const projectorPort = await freePort();
  const projectorBase = `http://127.0.0.1:${projectorPort}`;
  const projector = spawnService('projector', { ...env, PROJECTOR_METRICS_PORT: String(projectorPort) });
  await waitHealthy(`http://127.0.0.1:${port}`);
  await waitHealthy(projectorBase);
  const base = `http://127.0.0.1:${port}/api/v1`;

  interface Trader {
    headers: Record<string, string>;
    account: string;
    /** Open trades: uid and open date. */
    open: Array<{ uid: string; date: string }>;
    opened: number;
  }
  const traders: Trader[] = [];
  for (let i = 0; i < userCount; i++) {
    const email = `soak-${i}-${Date.now()}@example.com`;
    await createUser({ db: db.db, clock: systemClock, config }, { name: 'Soak Trader', email, password: 'Soak1!pass', verified: true });
    const login = (await (await fetch(`${base}/users/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'Soak1!pass' }) })).json()) as { access_token: string };
    const headers = { authorization: `Bearer ${login.access_token}`, 'content-type': 'application/json' };
    const account = (await (await fetch(`${base}/accounts/add-account`, { method: 'POST', headers, body: JSON.stringify({ name: 'Main', broker: 'ibkr', ac_type: 1 }) })).json()) as { uid: string };
    traders.push({ headers, account: account.uid, open: [], opened: 0 });
  }
  const gatewayCommand = `node ${[...nodeOptionsOf('gateway'), 'services/src/gateway.ts'].join(' ')}${process.env.NODE_OPTIONS ? ` (NODE_OPTIONS=${process.env.NODE_OPTIONS})` : ''}`;
  process.stderr.write(`${userCount} traders ready; ${minutes} min at ${rate} commands/s and ${queryRate} queries/s; dates ${values.dates}${spread ? ` over ${days} weekdays` : ''}; gateway: ${gatewayCommand}\n`);

  // `shed`: requests the gateway refused at once because it was past its capacity (503 with
  // Retry-After, its load shedding); not errors, and not in the latency figures, which are of the
  // requests it answered.
  let minute = { commands: [] as number[], queries: [] as number[], errors: 0, shed: 0, firstError: '' };
  const report: { minute: number; commands: number; cP50: number; cP99: number; queries: number; qP50: number; qP99: number; errors: number; shed: number; gatewayMiB: number; heapUsedMiB: number; liveHeapMiB: number; externalMiB: number; gcShare: number; majorGcs: number; projectorMiB: number; projectorHeapUsedMiB: number; projectorLiveHeapMiB: number }[] = [];
  // The gateway's collections at the start of the current minute (its /metrics counts them from its start).
  let gcAtMinuteStart = { gcSeconds: 0, majorGcs: 0 };
  const timed = async (bucket: 'commands' | 'queries', path: string, init: RequestInit): Promise<Response | null> => {
    const t0 = performance.now();
    try {
      const res = await fetch(`${base}${path}`, init);
      const body = await res.text();
      if (res.status === 503 && res.headers.get('retry-after') && body.includes('is busy')) {
        minute.shed++;
        return null;
      }
      minute[bucket].push(performance.now() - t0);
      if (res.status >= 400) {
        minute.errors++;
        minute.firstError ||= `${path}: ${res.status} ${body.slice(0, 200)}`;
        return null;
      }
      return new Response(body, { status: res.status });
    } catch (error) {
      minute.errors++;
      minute.firstError ||= `${path}: ${String(error)}`;
      return null;
    }
  };
  let n = 0;
  const command = async () => {
    const trader = traders[n++ % traders.length]!;
    const open = trader.open.length > 3 || (trader.open.length > 0 && Math.random() < 0.4) ? trader.open.shift() : undefined;
    if (open) {
      const closeDate = spread ? addDays(open.date, 7) : '2026-02-27';
      await timed('commands', `/trades/close/${open.uid}`, { method: 'POST', headers: trader.headers, body: JSON.stringify({ contract_size: 1, trade_close_date: closeDate, premium_at_close: 20, net_fee_to_close: 0.65, close_transaction: 2 }) });
      return;
    }
    const openDate = spread ? weekdays[trader.opened++ % weekdays.length]! : '2026-02-02';
    const res = await timed('commands', '/trades/add-trade', {
      method: 'POST',
      headers: trader.headers,
      body: JSON.stringify({
        trade_data: { ticker: 'SPY', strategy_uid: 'cash-secured-put', account_uid: trader.account, strike_prices: [500], trade_open_date: openDate, expiration_date: spread ? addDays(openDate, 42) : '2026-03-20', contract_size: 1, premium_at_open: 250, net_fee_to_open: 0.65, net_delta: 0.3, stock_price_at_open: 510 },
        tag_data: [],
      }),
    });
    if (res) trader.open.push({ uid: ((await res.json()) as { uid: string }).uid, date: openDate });
  };
  let q = 0;
  const query = async () => {
    const trader = traders[(q * 7) % traders.length]!;
    const path = ['/trades/status/open', '/trades/status/closed', '/metrics/premium-data'][q++ % 3]!;
    await timed('queries', path, { headers: trader.headers });
  };

  const closeMinute = async (seconds: number) => {
    const m = minute;
    minute = { commands: [], queries: [], errors: 0, shed: 0, firstError: '' };
    const [heap, projectorHeap] = await Promise.all([processHeap(`http://127.0.0.1:${port}`), processHeap(projectorBase)]);
    const gcSeconds = heap.gcSeconds - gcAtMinuteStart.gcSeconds;
    const majorGcs = heap.majorGcs - gcAtMinuteStart.majorGcs;
    gcAtMinuteStart = heap;
    const row = {
      minute: report.length + 1,
      commands: m.commands.length / seconds,
      cP50: quantile(m.commands, 0.5),
      cP99: quantile(m.commands, 0.99),
      queries: m.queries.length / seconds,
      qP50: quantile(m.queries, 0.5),
      qP99: quantile(m.queries, 0.99),
      errors: m.errors,
      shed: m.shed,
      gatewayMiB: rssMiB(gateway.pid),
      projectorMiB: rssMiB(projector.pid),
      projectorHeapUsedMiB: projectorHeap.heapUsedMiB,
      projectorLiveHeapMiB: projectorHeap.liveHeapMiB,
      heapUsedMiB: heap.heapUsedMiB,
      liveHeapMiB: heap.liveHeapMiB,
      externalMiB: heap.externalMiB,
      gcShare: (gcSeconds / seconds) * 100,
      majorGcs,
    };
    report.push(row);
    process.stderr.write(
      `minute ${row.minute}: commands ${row.commands.toFixed(0)}/s p50 ${row.cP50.toFixed(1)} ms p99 ${row.cP99.toFixed(1)} ms; queries ${row.queries.toFixed(0)}/s p50 ${row.qP50.toFixed(1)} ms p99 ${row.qP99.toFixed(1)} ms; errors ${row.errors}${m.firstError ? ` (${m.firstError})` : ''}; shed ${row.shed}; RSS gateway ${row.gatewayMiB.toFixed(0)} MiB (heap used ${row.heapUsedMiB.toFixed(0)}, live after full GC ${row.liveHeapMiB.toFixed(0)}, external ${row.externalMiB.toFixed(0)}; GC pauses ${row.gcShare.toFixed(1)}% of the minute, ${row.majorGcs} full), projector ${row.projectorMiB.toFixed(0)} MiB (heap used ${row.projectorHeapUsedMiB.toFixed(0)}, live after full GC ${row.projectorLiveHeapMiB.toFixed(0)})\n`,
    );
  };

  // Open-loop schedule in 10 ms ticks: each tick sends what is due, whatever is still in flight.
  gcAtMinuteStart = await processHeap(`http://127.0.0.1:${port}`);
  const started = performance.now();
  const end = started + minutes * 60_000;
  let sentCommands = 0;
  let sentQueries = 0;
  let nextMinute = started + 60_000;
  const inFlight = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  while (performance.now() < end) {
    const elapsed = (performance.now() - started) / 1000;
    while (sentCommands < elapsed * rate) {
      sentCommands++;
      track(command());
    }
    while (sentQueries < elapsed * queryRate) {
      sentQueries++;
      track(query());
    }
    if (performance.now() >= nextMinute) {
      await closeMinute(60);
      nextMinute += 60_000;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  await Promise.all(inFlight);
  // The last minute (what answered after the schedule ended belongs to it).
  if (minute.commands.length + minute.queries.length > 0) await closeMinute(Math.max(1, (performance.now() - (nextMinute - 60_000)) / 1000));

  const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`;
  console.log(`\nMachine: ${machine}. ${minutes} min, ${rate} commands/s and ${queryRate} queries/s (lists and premium data) from ${userCount} traders, open-loop. Gateway: ${gatewayCommand}.\n`);
  console.log('| minute | commands/s | p50 ms | p99 ms | queries/s | p50 ms | p99 ms | errors | shed (503 busy) | gateway RSS MiB | gateway heap used MiB | gateway live heap MiB | gateway GC pauses % (full GCs) | projector RSS MiB | projector heap used MiB | projector live heap MiB |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of report) {
    console.log(`| ${r.minute} | ${r.commands.toFixed(0)} | ${r.cP50.toFixed(1)} | ${r.cP99.toFixed(1)} | ${r.queries.toFixed(0)} | ${r.qP50.toFixed(1)} | ${r.qP99.toFixed(1)} | ${r.errors} | ${r.shed} | ${r.gatewayMiB.toFixed(0)} | ${r.heapUsedMiB.toFixed(0)} | ${r.liveHeapMiB.toFixed(0)} | ${r.gcShare.toFixed(1)} (${r.majorGcs}) | ${r.projectorMiB.toFixed(0)} | ${r.projectorHeapUsedMiB.toFixed(0)} | ${r.projectorLiveHeapMiB.toFixed(0)} |`);
  }
  const first = report[0];
  const last = report.at(-1);
  if (first && last && report.length > 1) {
    const growth = (a: number, b: number) => (a > 0 ? ((b - a) / a) * 100 : 0);
    console.log(`\nRSS growth after the first minute: gateway ${growth(first.gatewayMiB, last.gatewayMiB).toFixed(1)}%, projector ${growth(first.projectorMiB, last.projectorMiB).toFixed(1)}% (target at most 10%); live heap after a full collection: gateway ${growth(first.liveHeapMiB, last.liveHeapMiB).toFixed(1)}%, projector ${growth(first.projectorLiveHeapMiB, last.projectorLiveHeapMiB).toFixed(1)}%; errors ${report.reduce((s, r) => s + r.errors, 0)} (target 0); shed ${report.reduce((s, r) => s + r.shed, 0)}`);
  }
  await stop(gateway);
  await stop(projector);
  const redis = new Redis(env.REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  await redis.quit();
  await db.drop();
}
