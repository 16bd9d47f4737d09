import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import { userStreamPrefix } from '@oj/contracts/journal-events';
import type { Database } from '@oj/infra/db/database';
import { logOriginOf } from '@oj/infra/eventstore/log-origin';
import { positionToString, type StoredEvent } from '@oj/infra/eventstore/port';
import { readUserLog } from '@oj/infra/eventstore/user-log';
import { tryLock } from '@oj/projections/runtime/locks';
import { liveRow } from '@oj/projections/runtime/registry';
import { TRADES_PROJECTION } from '@oj/projections/trades/projection';
import { advanceTracked, emptyJournal, type JournalState } from './journal-state.ts';
import { DAYS_PART, LINEAGE_PARTS, decodeDays, decodeLineages, encodeDays, encodeLineages, partOf, sameStructure, type LineageEntry } from './state-codec.ts';
import {
  StoredStateError,
  anchorHolds,
  currentStateKey,
  deleteChunks,
  insertChunk,
  journalAfterChunk,
  readChain,
  type StateKey,
  type StateRow,
} from './stored-states.ts';

/**
 * The maintenance of stored replay states (stored-states.ts): for each user whose log has grown by a
 * chunk since their last stored state, the journal is carried forward a chunk of events at a time and
 * each chunk stored. It runs in the projector process, every AUDIT_REPLAY_STATES_INTERVAL_SECONDS, one process
 * of a deployment at a time (an advisory lock), so support finds heavy users' states there before they
 * open a history. Small users get none: their log replays in milliseconds.
 *
 * Bounded: one user's journal in memory at a time, at most `maxEventsPerRun` events folded per run (a
 * user with more continues at the next run: every chunk stored is kept), and the CPU of one chunk at a
 * time between I/O waits.
 */

export interface StateMaintenanceOptions {
  /** Events per chunk: also the growth of a user's log that triggers the next chunk. */
  chunkEvents: number;
  /** Users with fewer events get no stored state. */
  minEvents: number;
  /** Events folded per run, over all users. */
  maxEventsPerRun: number;
  /** The key to write under (default: this code's). Tests pass another to stand for another code version. */
  key?: StateKey;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
}

export const defaultStateMaintenance = { chunkEvents: 10_000, minEvents: 20_000, maxEventsPerRun: 500_000 } as const;

export interface UserStatesResult {
  userId: string;
  /** Chunks written now, and the chain's length after. */
  written: number;
  chunks: number;
  /** Events folded now (from the last stored state on). */
  folded: number;
  /** Chunks removed because they failed a check (SHA-256, decoding, the log's anchor). */
  removed: number;
  /** Why nothing more could be stored, when something went wrong. */
  refused?: string;
  ms: number;
}

/** Users whose encoding did not round-trip (per key): retried only by a new process, not every run. */
const refused = new Set<string>();

/**
 * Carries one user's stored states forward to the log's visible head, a full chunk at a time (the
 * events short of a chunk stay for the views to fold), at most `budget` events.
 */
export async function extendUserStates(db: Kysely<any>, userId: string, options: StateMaintenanceOptions & { budget?: number }): Promise<UserStatesResult> {
  const started = performance.now();
  const k = options.key ?? currentStateKey();
  const origin = await logOriginOf(db);
  const result: UserStatesResult = { userId, written: 0, chunks: 0, folded: 0, removed: 0, ms: 0 };
  const done = () => ({ ...result, ms: Math.round(performance.now() - started) });
  if (refused.has(`${k.codeKey}|${userId}`)) return { ...done(), refused: 'a stored state of this user did not read back exactly; see the log of an earlier run' };

  let chain = await readChain(db, userId, k.codeKey, origin);
  if (chain.length && !(await anchorHolds(db, userId, chain.at(-1)!))) {
    // Events at or before the last chunk were removed or restamped: nothing stored can be trusted.
    result.removed += await deleteChunks(db, userId, k.codeKey, origin);
    options.logger?.warn({ userId, chunks: chain.length }, 'audit replay states no longer match the log (events removed or restamped); folding again from the first event');
    chain = [];
  }
  let state: JournalState = emptyJournal(userId);
  while (chain.length) {
    try {
      state = await journalAfterChunk(db, userId, k, origin, chain, chain.length - 1, { checkEveryPart: true });
      break;
    } catch (error) {
      if (!(error instanceof StoredStateError)) throw error;
      result.removed += await deleteChunks(db, userId, k.codeKey, origin, error.seq);
      options.logger?.warn({ userId, seq: error.seq, err: error.message }, 'audit replay state failed its check; removed from there on and folded again');
      chain = chain.slice(0, error.seq);
    }
  }
  result.chunks = chain.length;

  const budget = Math.min(options.budget ?? options.maxEventsPerRun, options.maxEventsPerRun);
  while (result.folded + options.chunkEvents <= budget) {
    const events = await readUserLog(db, userId, { ...(state.position ? { after: state.position } : {}), limit: options.chunkEvents, visibleOnly: true });
    if (events.length < options.chunkEvents) break;
    const { state: next, touched } = advanceTracked(state, events);
    const rows = chunkRows(userId, k, origin, result.chunks, state, next, touched, events);
    if (typeof rows === 'string') {
      refused.add(`${k.codeKey}|${userId}`);
      options.logger?.error({ userId, seq: result.chunks, problem: rows }, 'audit replay state does not read back exactly: not stored (views of this user replay from the first event)');
      return { ...done(), refused: rows };
    }
    if (!(await insertChunk(db, rows))) break; // another process stored it first: the next run reads theirs
    state = next;
    result.written++;
    result.chunks++;
    result.folded += events.length;
  }
  return done();
}

/**
 * The rows of the chunk from `before` to `after`: the touched lineages by part, the day records, and
 * the header. A string says why the encoding does not read back as the state (nothing is stored then).
 */
function chunkRows(
  userId: string,
  k: StateKey,
  origin: string,
  seq: number,
  before: JournalState,
  after: JournalState,
  touched: ReadonlySet<string>,
  events: readonly StoredEvent[],
): StateRow[] | string {
  const prefix = userStreamPrefix(userId);
  const parts: LineageEntry[][] = Array.from({ length: LINEAGE_PARTS }, () => []);
  let ordinal = 0;
  for (const [streamId, state] of after.lineages) {
    if (touched.has(streamId)) parts[partOf(streamId.slice(prefix.length))]!.push({ ordinal, state });
    ordinal++;
  }
  let first = events[0]!.metadata.businessDate;
  let last = first;
  for (const e of events) {
    const d = e.metadata.businessDate;
    if (d < first) first = d;
    if (d > last) last = d;
  }
  const days = [...after.days.values()];
  const header = {
    user_id: userId,
    code_key: k.codeKey,
    log_origin: origin,
    seq,
    after_position: before.position ? positionToString(before.position) : null,
    upto_position: positionToString(after.position!),
    events: after.events,
    anchor_event_id: events.at(-1)!.id,
    first_business_date: first,
    last_business_date: last,
    projection_version: k.projectionVersion,
    formulas_version: k.formulasVersion,
  };
  const rows: StateRow[] = [];
  for (let part = 0; part < LINEAGE_PARTS; part++) {
    const entries = parts[part]!;
    const payload = encodeLineages(userId, entries);
    const back = decodeLineages(userId, payload);
    if (back.length !== entries.length || back.some((b, i) => b.ordinal !== entries[i]!.ordinal || !sameStructure(b.state, entries[i]!.state))) return `lineages of part ${part} of chunk ${seq}`;
    rows.push({ ...header, part, entries: entries.length, bytes: payload.length, payload });
  }
  const payload = encodeDays(userId, days);
  if (!sameStructure(decodeDays(userId, payload), days)) return `day records of chunk ${seq}`;
  rows.push({ ...header, part: DAYS_PART, entries: days.length, bytes: payload.length, payload });
  return rows;
}

/**
 * One run: states of other origins removed, states of other code versions removed a day after they
 * were written (a rolling deploy's old processes still read theirs meanwhile), then the users whose
 * log grew by a chunk since their last state (most behind first, by the live read model's per-lineage
 * revisions: a trigger only, every state is checked against the log itself) carried forward.
 */
export async function runStateMaintenance(db: Kysely<any>, options: StateMaintenanceOptions): Promise<UserStatesResult[]> {
  const k = options.key ?? currentStateKey();
  const origin = await logOriginOf(db);
  await sql`delete from audit_replay_states where log_origin <> ${origin} or (code_key <> ${k.codeKey} and created_at < now() - interval '1 day')`.execute(db);
  const live = await liveRow(db, TRADES_PROJECTION);
  const lineages = live?.tables.trade_lineages;
  if (!lineages) return [];
  const { rows } = await sql<{ user_id: string }>`
    select l.user_id from ${sql.table(lineages)} l
    left join (select user_id, max(events) as events from audit_replay_states where code_key = ${k.codeKey} and log_origin = ${origin} group by user_id) s
      on s.user_id = l.user_id
    group by l.user_id, s.events
    having sum(l.rev + 1) >= ${options.minEvents} and sum(l.rev + 1) - coalesce(s.events, 0) >= ${options.chunkEvents}
    order by sum(l.rev + 1) - coalesce(s.events, 0) desc
    limit 20`.execute(db);
  const out: UserStatesResult[] = [];
  let budget = options.maxEventsPerRun;
  for (const { user_id } of rows) {
    if (budget < options.chunkEvents) break;
    const r = await extendUserStates(db, user_id, { ...options, budget });
    budget -= r.folded;
    out.push(r);
  }
  return out;
}

/** The advisory lock namespace of the maintenance (one running per deployment). */
const LOCK_AUDIT_STATES = 731_101;

export interface StateMaintenanceHandle {
  /** Runs once now (after any run under way), as the timer would. */
  runNow(): Promise<UserStatesResult[]>;
  stop(): Promise<void>;
}

/** Runs the maintenance every `intervalMs` in this process, when it gets the deployment's lock. */
export function startStateMaintenance(database: Database, options: StateMaintenanceOptions & { intervalMs: number; logger: Pick<Logger, 'info' | 'warn' | 'error'> }): StateMaintenanceHandle {
  let running: Promise<UserStatesResult[]> = Promise.resolve([]);
  let stopped = false;
  const once = async (): Promise<UserStatesResult[]> => {
    const lock = await tryLock(database, LOCK_AUDIT_STATES, 'audit-replay-states');
    if (!lock) return [];
    try {
      const results = await runStateMaintenance(database.db, options);
      for (const r of results) if (r.written || r.removed || r.refused) options.logger.info(r, 'audit replay states');
      return results;
    } finally {
      await lock.release();
    }
  };
  const run = () => {
    if (stopped) return running;
    running = running.then(once).catch((err) => {
      options.logger.error({ err }, 'audit replay state maintenance failed');
      return [];
    });
    return running;
  };
  const timer = setInterval(run, options.intervalMs);
  timer.unref();
  // The first run soon after start, not a whole interval later: a restarted projector catches up.
  const first = setTimeout(run, Math.min(options.intervalMs, 5_000));
  first.unref();
  return {
    runNow: run,
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearTimeout(first);
      await running;
    },
  };
}
