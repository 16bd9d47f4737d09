import { readFileSync } from 'node:fs';
import { sql, type Kysely } from 'kysely';

/**
 * PostgreSQL's CPU over a stretch of a benchmark, by the kind of work its processes did: each server
 * process's user and system time (Linux's `/proc/<pid>/stat`), labelled with what `pg_stat_activity`
 * says it was running (`workOf`). It answers where a rebuild's time goes on the server's side (the log's
 * COPY out, each table's COPY in, the index builds, analyze, the read-backs), which a CPU profile of the
 * Node process cannot see. Only where the server runs on this machine (the bench's usual layout):
 * elsewhere there is no `/proc` of its processes to read, and `postgresCpu` says so by returning null.
 *
 * Sampled every `intervalMs`: the time a process used between two samples goes to what it was running at
 * the first, or, if it was idle then, to what it runs at the second (a statement that began in between).
 * The sampler's own statement is one of the labels, so its cost is in the report, not hidden.
 */

/** One process's row of `pg_stat_activity`, as sampled. */
export interface Activity {
  pid: number;
  backend_type: string | null;
  state: string | null;
  query: string | null;
}

/** The label the sampler's own statement gets. */
export const SAMPLER_WORK = 'the sampler itself';
const SAMPLER_MARK = '/* postgres-cpu sampler */';

/** `orders_v12` and `"orders_v12"` are both `orders`: a version's tables are one table's work. */
const tableOf = (name: string): string => name.replace(/"/g, '').replace(/^public\./, '').replace(/_v\d+$/, '');

/**
 * What a process was doing, as a short label: a background process by its type; a client (or a
 * parallel worker, which shows its leader's statement) by the kind of its statement and the table it
 * works on; `idle` between statements.
 */
export function workOf(a: Activity): string {
  const type = a.backend_type ?? 'client backend';
  if (type !== 'client backend' && type !== 'parallel worker') return type;
  const q = (a.query ?? '').replace(/\/\*.*?\*\//g, (c) => (c === SAMPLER_MARK ? c : ' ')).replace(/\s+/g, ' ').trim();
  if (q.includes(SAMPLER_MARK)) return SAMPLER_WORK;
  if (type === 'client backend' && (a.state === 'idle' || a.state === 'idle in transaction' || !q)) return 'idle';
  // A parallel worker shows its leader's statement, but not while it starts or ends.
  if (!q) return 'parallel workers (statement not shown)';
  const lower = q.toLowerCase();
  const table = (re: RegExp) => {
    const m = lower.match(re);
    return m ? tableOf(m[1]!) : '?';
  };
  if (lower.startsWith('copy ')) {
    if (/\bto stdout\b/.test(lower)) return lower.startsWith('copy (') ? `COPY out of ${table(/\bfrom\s+("?[\w.]+"?)/)}` : `COPY out of ${table(/^copy\s+("?[\w.]+"?)/)}`;
    return `COPY into ${table(/^copy\s+("?[\w.]+"?)/)}`;
  }
  if (/^create (unique )?index\b/.test(lower)) return 'index builds';
  if (/^(analyze|vacuum)\b/.test(lower)) return lower.split(' ')[0]!;
  if (lower.startsWith('select') || lower.startsWith('with')) return `select from ${table(/\bfrom\s+("?[\w.]+"?)/)}`;
  const verb = lower.split(' ')[0]!;
  if (verb === 'insert') return `insert into ${table(/^insert into\s+("?[\w.]+"?)/)}`;
  if (verb === 'update') return `update ${table(/^update\s+("?[\w.]+"?)/)}`;
  if (verb === 'delete') return `delete from ${table(/^delete from\s+("?[\w.]+"?)/)}`;
  return verb;
}

/** CPU seconds (user and system) of one kind of work. */
export interface WorkCpu {
  work: string;
  user: number;
  system: number;
}

/** What `postgresCpu` measured: every server process's CPU seen, by work, the largest first. */
export interface PostgresCpu {
  user: number;
  system: number;
  byWork: WorkCpu[];
  samples: number;
}

interface Times {
  user: number;
  system: number;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** A process's CPU so far and its command name, or null if it is gone (or this is not Linux). */
function timesOf(pid: number): (Times & { comm: string }) | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    // After the command: state(0) ... utime(11) stime(12), in ticks.
    return { comm: stat.slice(stat.indexOf('(') + 1, close), user: Number(fields[11]) / TICKS_PER_SECOND, system: Number(fields[12]) / TICKS_PER_SECOND };
  } catch {
    return null;
  }
}

/**
 * Starts sampling the server `db` is connected to. Resolves to a function that stops and reports, or to
 * null where the server's processes are not on this machine.
 */
export async function postgresCpu(db: Kysely<any>, intervalMs = 250): Promise<(() => Promise<PostgresCpu>) | null> {
  const own = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]!.pid;
  if (!timesOf(own)?.comm.startsWith('postgres')) return null;
  const last = new Map<number, Times>();
  const working = new Map<number, string>();
  const totals = new Map<string, Times>();
  let samples = 0;
  const sample = async () => {
    const rows = (await sql<Activity>`select ${sql.raw(SAMPLER_MARK)} pid, backend_type, state, query from pg_stat_activity where pid is not null`.execute(db)).rows;
    samples++;
    for (const a of rows) {
      const now = timesOf(a.pid);
      if (!now) continue;
      const work = workOf(a);
      const before = last.get(a.pid);
      if (before) {
        const then = working.get(a.pid)!;
        const label = then === 'idle' ? work : then;
        const t = totals.get(label) ?? { user: 0, system: 0 };
        t.user += now.user - before.user;
        t.system += now.system - before.system;
        totals.set(label, t);
      }
      last.set(a.pid, now);
      working.set(a.pid, work);
    }
  };
  await sample();
  let pending: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    // One sample at a time: a slow one (a busy server) is not overlapped by the next.
    pending = pending.then(sample).catch(() => {});
  }, intervalMs);
  return async () => {
    clearInterval(timer);
    await pending;
    await sample();
    const r = (n: number) => Math.round(n * 100) / 100;
    const byWork = [...totals]
      .map(([work, t]) => ({ work, user: r(t.user), system: r(t.system) }))
      .filter((w) => w.user + w.system > 0)
      .sort((a, b) => b.user + b.system - (a.user + a.system));
    return { user: r(byWork.reduce((n, w) => n + w.user, 0)), system: r(byWork.reduce((n, w) => n + w.system, 0)), byWork, samples };
  };
}
