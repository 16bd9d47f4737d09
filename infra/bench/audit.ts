import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { createTestDatabase } from '../src/testing/postgres.ts';
import { PostgresEventStore } from '../src/eventstore/postgres.ts';
import { upcastJournalEvent } from '../src/eventstore/create.ts';
import { FixedClock } from '../src/clock.ts';
import { positionToString } from '../src/eventstore/port.ts';
import { allProjections } from '@oj/projections/catalogue';
import { rebuild } from '@oj/projections/runtime/rebuild';
import { migrate } from '@oj/services/platform/migrations';
import { asOf, eventDiff, exportHistory, forgetReplays, overview, timeline, verify, type AuditContext } from '@oj/services/audit/queries';
import { forgetCachedLogs } from '@oj/services/audit/user-log';
import { timelineQuery } from '@oj/contracts/audit';
import { generateJournal, HEAVY_USER } from './journal-generator.ts';

/**
 * `npm run bench -- audit [--events N] [--heavy-lineages H] [--users U] [--runs R] [--keep]`
 *
 * In a fresh database on DATABASE_URL: a generated journal (default 300,000 events, of which about
 * 250,000 belong to the heavy user, the rest to U users of a few hundred trades) inserted into the event
 * store, the trade read models rebuilt from it, then the audit replay's functions timed in process (the
 * routes add only validation and one access-log append): the first timeline page, a filtered page, a
 * deep page; as-of at several points, cold (log read from the database) and warm (the per-user cache);
 * a per-event diff; Verify; the exports. "Cold" reads the log from the database; "first" has the log cached but
 * not yet folded into the per-event history; "warm" has both. p50 and max over R runs. Prints JSON and a markdown table.
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

async function time<T>(runs: number, f: () => Promise<T>, before?: () => void): Promise<{ p50: number; max: number; result: T }> {
  const ms: number[] = [];
  let result!: T;
  for (let i = 0; i < runs; i++) {
    before?.();
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
    const ctx: AuditContext = { db, eventStore: store, clock: new FixedClock('2026-11-20T20:00:00Z') };

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
      r.asOfLastCold = await time(runs, () => asOf(ctx, userId, { list_limit: 50 }), forgetCachedLogs);
      r.asOfLastWarm = await time(runs, () => asOf(ctx, userId, { list_limit: 50 }));
      // The first earlier point folds the per-event history (kept for every view after it).
      r.asOfMiddleCold = await time(runs, () => asOf(ctx, userId, { event: middle, list_limit: 50 }), forgetCachedLogs);
      r.asOfMiddleFirst = await time(runs, () => asOf(ctx, userId, { event: middle, list_limit: 50 }), forgetReplays);
      r.asOfMiddleWarm = await time(runs, () => asOf(ctx, userId, { event: middle, list_limit: 50 }));
      r.asOfDateWarm = await time(runs, () => asOf(ctx, userId, { date: '2026-03-31', list_limit: 50 }));
      r.diffLastWarm = await time(runs, () => eventDiff(ctx, userId, middle));
      r.verifyCold = await time(runs, () => verify(ctx, userId), forgetCachedLogs);
      r.verifyWarm = await time(runs, () => verify(ctx, userId));
      r.exportJsonl = await time(Math.min(runs, 3), () => exportHistory(ctx, userId, 'jsonl'));
      r.exportCsv = await time(Math.min(runs, 3), () => exportHistory(ctx, userId, 'csv'));
      const verified = (r.verifyWarm as { result: { consistent: boolean } }).result;
      if (!verified.consistent) throw new Error(`Verify is not consistent for ${userId}`);
      for (const v of Object.values(r)) if (v && typeof v === 'object' && 'result' in v) delete (v as { result?: unknown }).result;
      out[label] = r;
      log(label, JSON.stringify(r));
    }
    report.users = out;
    console.log(JSON.stringify(report, null, 2));
    const rows: string[] = ['| operation | heavy p50 / max (ms) | typical p50 / max (ms) |', '|---|---|---|'];
    const h = out.heavy as Record<string, { p50: number; max: number }>;
    const ty = out.typical as Record<string, { p50: number; max: number }>;
    for (const k of Object.keys(h)) if (h[k] && typeof h[k] === 'object' && 'p50' in h[k]) rows.push(`| ${k} | ${h[k].p50} / ${h[k].max} | ${ty[k]!.p50} / ${ty[k]!.max} |`);
    console.log(rows.join('\n'));
  } finally {
    if (!values.keep) await database.drop();
    else log(`kept database ${database.name}`);
  }
}
