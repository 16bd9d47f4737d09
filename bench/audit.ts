import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { createTestDatabase } from '@oj/infra/testing/postgres';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { upcastJournalEvent } from '@oj/infra/eventstore/create';
import { FixedClock } from '@oj/infra/clock';
import { positionToString } from '@oj/infra/eventstore/port';
import { allProjections } from '@oj/projections/catalogue';
import { rebuild } from '@oj/projections/runtime/rebuild';
import { migrate } from '@oj/services/platform/migrations';
import { asOf, eventDiff, exportHistory, forgetAllReplays, forgetReplays, overview, timeline, verify, type AuditContext } from '@oj/services/audit/queries';
import { forgetCachedLogs } from '@oj/services/audit/user-log';
import { workerParts } from '@oj/services/audit/part-runner';
import { LINEAGE_PARTS } from '@oj/services/audit/state-codec';
import { currentStateKey, readChain } from '@oj/services/audit/stored-states';
import { logOriginOf } from '@oj/infra/eventstore/log-origin';
import { defaultStateMaintenance, runStateMaintenance } from '@oj/services/audit/state-maintenance';
import { timelineQuery } from '@oj/contracts/audit';
import { generateJournal, HEAVY_USER } from './journal-generator.ts';

/**
 * `npm run bench -- audit [--events N] [--heavy-lineages H] [--users U] [--runs R] [--keep]`
 *
 * In a fresh database on DATABASE_URL: a generated journal (default 300,000 events, of which about
 * 250,000 belong to the heavy user, the rest to U users of a few hundred trades) inserted into the event
 * store, the trade read models rebuilt from it, then the audit replay's functions timed in process (the
 * routes add only validation and one access-log append), as the gateway runs them (the parts of a
 * heavy user's journal in two worker threads): the first timeline page, a filtered page, a deep page;
 * as-of at several points; a per-event diff; Verify; the exports. Three states of a view:
 * - "first-ever": no stored replay state and nothing cached, the whole log replayed from its first
 *   event (a user the maintenance job has not reached yet);
 * - "cold": the stored replay states there (the maintenance job of the projector process, run here
 *   once, timed), nothing of the user in the process's or the workers' memory;
 * - "warm": the same view again (a support session reads one user again and again).
 * "full" rows replay from the first event with the log cached (the views' `full` option, warm).
 * p50 and max over R runs. Prints JSON and a markdown table.
 */
const { values } = parseArgs({
  args: process.argv.slice(3),
  options: {
    events: { type: 'string', default: '300000' },
    'heavy-lineages': { type: 'string', default: '110000' },
    users: { type: 'string', default: '100' },
    runs: { type: 'string', default: '5' },
    keep: { type: 'boolean', default: false },
  },
  allowPositionals: true,
});

const r1 = (x: number) => Math.round(x * 10) / 10;
const log = (...a: unknown[]) => console.error(`[bench audit ${new Date().toISOString().slice(11, 19)}]`, ...a);

async function time<T>(runs: number, f: () => Promise<T>, before?: () => void | Promise<void>): Promise<{ p50: number; max: number; result: T }> {
  const ms: number[] = [];
  let result!: T;
  for (let i = 0; i < runs; i++) {
    await before?.();
    const t = performance.now();
    result = await f();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { p50: r1(ms[Math.floor((ms.length - 1) / 2)]!), max: r1(ms.at(-1)!), result };
}

export async function main(argv: string[]): Promise<void> {
  void argv;
  const events = Number(values.events);
  const runs = Number(values.runs);
  const database = await createTestDatabase('bench_audit');
  const report: Record<string, unknown> = { machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version } };
  try {
    const db = database.db;
    await migrate(db);
    log(`inserting ${events} generated events`);
    let batch: unknown[] = [];
    const flush = async () => {
      if (!batch.length) return;
      await sql`insert into events (stream_id, revision, event_id, type, schema_version, data, metadata)
        select s, r, e::uuid, t, v, d, m from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) as x(s text, r int, e text, t text, v int, d jsonb, m jsonb)`.execute(db);
      batch = [];
    };
    for (const g of generateJournal({ totalEvents: events, users: Number(values.users), heavyUserLineages: Number(values['heavy-lineages']) })) {
      batch.push({ s: g.streamId, r: g.revision, e: g.event.id, t: g.event.type, v: g.event.schemaVersion, d: g.event.data, m: g.event.metadata });
      if (batch.length >= 5000) await flush();
    }
    await flush();
    await sql`analyze events`.execute(db);
    log('rebuilding the trade read models');
    const store = new PostgresEventStore(database, { upcast: upcastJournalEvent });
    await rebuild({ database, eventStore: store, projections: allProjections, lanes: 2 }, 'trades');
    // As the gateway: heavy users' parts in worker threads, started when support opens a history.
    const parts = workerParts(database.url, LINEAGE_PARTS);
    const workersStarted = performance.now();
    parts.start();
    // Ready before anything is timed: the gateway starts them at the first overview of its life and keeps
    // them, so only that one request shares the machine with their start (timed apart).
    await parts.everywhere('forget', {});
    const workersStartMs = Math.round(performance.now() - workersStarted);
    log(`replay workers ready in ${workersStartMs} ms`);
    const ctx: AuditContext = { db, eventStore: store, clock: new FixedClock('2026-11-20T20:00:00Z'), parts };
    const forgetEverything = () => forgetAllReplays(parts);

    const typical = (await sql<{ u: string; n: number }>`select split_part(stream_id, '.', 1) as u, count(*)::int as n from events where stream_id like 'trade-bench-user-%' group by 1 order by 2 desc limit 1`.execute(db)).rows[0]!;
    const typicalUser = typical.u.slice('trade-'.length);
    const out: Record<string, unknown> = {};
    for (const [label, userId] of [
      ['heavy', HEAVY_USER],
      ['typical', typicalUser],
    ] as const) {
      forgetCachedLogs();
      const counts = (await sql<{ events: number }>`select count(*)::int as events from events where split_part(stream_id, '.', 1) = ${`trade-${userId}`}`.execute(db)).rows[0]!;
      const trades = (await sql<{ n: number }>`select count(*)::int as n from trades_v${sql.raw(String(allProjections[0]!.version))} where user_id = ${userId}`.execute(db)).rows[0]!.n;
      log(`${label} user ${userId}: ${counts.events} events, ${trades} trades`);
      const q = (extra: Record<string, unknown> = {}) => timelineQuery.parse({ reason: 'bench', ...extra });
      const r: Record<string, unknown> = { userId, events: counts.events, trades };
      r.overview = await time(runs, () => overview(ctx, { uid: userId, name: '', email: '', username: null, role: 'User', user_since: '' }));
      r.timelineFirst = await time(runs, () => timeline(ctx, userId, q()));
      r.timelineNewest = await time(runs, () => timeline(ctx, userId, q({ direction: 'backward' })));
      const first = (r.timelineFirst as { result: { items: Array<{ trades: string[]; lineage_id: string }> } }).result.items;
      r.timelineByTrade = await time(runs, () => timeline(ctx, userId, q({ trade: first[0]!.trades[0] })));
      r.timelineByType = await time(runs, () => timeline(ctx, userId, q({ type: 'TradeSplit' })));
      r.timelineByDates = await time(runs, () => timeline(ctx, userId, q({ from: '2026-06-01', to: '2026-06-30' })));
      // A deep page: the cursor in the middle of the log.
      const all = (await sql<{ c: string; p: string }>`select transaction_id::text as c, global_position::text as p from events where split_part(stream_id, '.', 1) = ${`trade-${userId}`} order by transaction_id, global_position offset ${Math.floor(counts.events / 2)} limit 1`.execute(db)).rows[0]!;
      const middle = positionToString({ commit: BigInt(all.c), prepare: BigInt(all.p) });
      r.timelineMiddle = await time(runs, () => timeline(ctx, userId, q({ cursor: middle })));
      // First-ever: no stored state of anyone yet, nothing cached.
      const key = currentStateKey();
      await sql`delete from audit_replay_states`.execute(db);
      r.firstEverAsOfLast = await time(runs, () => asOf(ctx, userId, { list_limit: 50 }), forgetEverything);
      r.firstEverAsOfMiddle = await time(runs, () => asOf(ctx, userId, { event: middle, list_limit: 50 }), forgetEverything);
      r.firstEverVerify = await time(runs, () => verify(ctx, userId), forgetEverything);
      // The same from the first event with the log cached (`full`, warm); the earlier point folds the
      // per-event history once ("first"), every later view reads it.
      r.fullAsOfLastWarm = await time(runs, () => asOf(ctx, userId, { list_limit: 50, full: true }));
      r.fullAsOfMiddleFirst = await time(runs, () => asOf(ctx, userId, { event: middle, list_limit: 50, full: true }), forgetReplays);
      r.fullAsOfMiddleWarm = await time(runs, () => asOf(ctx, userId, { event: middle, list_limit: 50, full: true }));
      r.fullVerifyWarm = await time(runs, () => verify(ctx, userId, { full: true }));
      // The projector's maintenance job (default options) until it has nothing left to store; it only
      // folds events below the visibility horizon, which other sessions' transactions can hold back.
      const built = performance.now();
      let chunks = 0;
      for (let i = 0; i < 600; i++) {
        const done = await runStateMaintenance(db, defaultStateMaintenance);
        chunks += done.reduce((n, d) => n + d.written, 0);
        const covered = (await readChain(db, userId, key.codeKey, await logOriginOf(db))).at(-1)?.events ?? 0;
        if (counts.events < defaultStateMaintenance.minEvents || counts.events - covered < defaultStateMaintenance.chunkEvents) break;
        if (!done.some((d) => d.written)) await new Promise((resolve) => setTimeout(resolve, 500));
      }
      const stored = (await sql<{ n: number; b: number }>`select count(distinct seq)::int as n, coalesce(sum(bytes), 0)::int as b from audit_replay_states where user_id = ${userId}`.execute(db)).rows[0]!;
      r.maintenance = { ms: Math.round(performance.now() - built), chunksWritten: chunks, chunks: stored.n, megabytes: r1(stored.b / 2 ** 20) };
      r.asOfLastCold = await time(runs, () => asOf(ctx, userId, { list_limit: 50 }), forgetEverything);
      r.asOfLastWarm = await time(runs, () => asOf(ctx, userId, { list_limit: 50 }));
      r.asOfMiddleCold = await time(runs, () => asOf(ctx, userId, { event: middle, list_limit: 50 }), forgetEverything);
      r.asOfMiddleWarm = await time(runs, () => asOf(ctx, userId, { event: middle, list_limit: 50 }));
      r.asOfDateCold = await time(runs, () => asOf(ctx, userId, { date: '2026-03-31', list_limit: 50 }), forgetEverything);
      r.asOfDateWarm = await time(runs, () => asOf(ctx, userId, { date: '2026-03-31', list_limit: 50 }));
      r.verifyCold = await time(runs, () => verify(ctx, userId), forgetEverything);
      r.verifyWarm = await time(runs, () => verify(ctx, userId));
      // The same answers whichever way they were computed.
      const strip = (x: object) => JSON.stringify({ ...x, elapsed_ms: 0, stored_state: null });
      for (const q of [{ list_limit: 50 }, { event: middle, list_limit: 50 }, { date: '2026-03-31', list_limit: 50 }]) {
        if (strip(await asOf(ctx, userId, q)) !== strip(await asOf(ctx, userId, { ...q, full: true }))) throw new Error(`as-of ${JSON.stringify(q)} from the stored states differs from the replay from the first event`);
      }
      r.diffLastWarm = await time(runs, () => eventDiff(ctx, userId, middle));
      r.exportJsonl = await time(Math.min(runs, 3), () => exportHistory(ctx, userId, 'jsonl'));
      r.exportCsv = await time(Math.min(runs, 3), () => exportHistory(ctx, userId, 'csv'));
      const verified = (r.verifyWarm as { result: { consistent: boolean; stored_state: unknown } }).result;
      if (!verified.consistent) throw new Error(`Verify is not consistent for ${userId}`);
      r.verifiedFrom = verified.stored_state;
      for (const v of Object.values(r)) if (v && typeof v === 'object' && 'result' in v) delete (v as { result?: unknown }).result;
      out[label] = r;
      log(label, JSON.stringify(r));
    }
    report.users = out;
    report.replayWorkersStartMs = workersStartMs;
    console.log(JSON.stringify(report, null, 2));
    const rows: string[] = ['| operation | heavy p50 / max (ms) | typical p50 / max (ms) |', '|---|---|---|'];
    const h = out.heavy as Record<string, { p50: number; max: number }>;
    const ty = out.typical as Record<string, { p50: number; max: number }>;
    for (const k of Object.keys(h)) if (h[k] && typeof h[k] === 'object' && 'p50' in h[k]) rows.push(`| ${k} | ${h[k].p50} / ${h[k].max} | ${ty[k]!.p50} / ${ty[k]!.max} |`);
    console.log(rows.join('\n'));
    await parts.close();
  } finally {
    if (!values.keep) await database.drop();
    else log(`kept database ${database.name}`);
  }
}
