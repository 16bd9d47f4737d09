import { sql, type Kysely } from 'kysely';
import { bulkTransaction } from '@oj/infra/db/bulk';
import type { Database } from '@oj/infra/db/database';
import { failpoint } from '@oj/infra/failpoints';
import { settleAll } from '@oj/infra/settle';
import { START, comparePositions, positionFromString, positionToString, type EventStore, type LogPosition, type ProjectedEvent } from '@oj/infra/eventstore/port';
import { groupByStream, readByStream } from '@oj/infra/eventstore/by-stream';
import { catchUpRefusal } from '@oj/contracts/operations';
import { physicalTables, type Projection } from './projection.ts';
import { bulkSegments, DEFAULT_SEGMENT_EVENTS, recordCheckpoint, type BulkPass } from './bulk-segments.ts';
import { LOCK_OPERATOR, LOCK_REBUILD, lockSwitchExclusive, lockSwitchShared, tryLock, waitForLock } from './locks.ts';
import { laneOf, matchesPrefixes, maxPosition, minPosition, posParams, rowPosition } from './lanes.ts';
import { guardRevisions, LastRevisions, lockCheckpoint, replaceStreamRevisions } from './apply.ts';
import type { RowChanges } from './row-diff.ts';
import { issueVersion, readCheckpoints, readDispatcher, readRebuilds, readRegistry, runnable, writeLaneCheckpoints, type RegistryRow } from './registry.ts';

export interface RuntimeDeps {
  database: Database;
  eventStore: EventStore;
  projections: readonly Projection[];
  /** PROJECTOR_LANES. */
  lanes: number;
}

/**
 * Events of the projection's streams after where `row` stands (its rebuild's checkpoint, or its lowest
 * lane): what a version built beside the live one has not seen. Null where the store cannot count.
 */
export async function eventsAfterVersion(deps: Pick<RuntimeDeps, 'database' | 'eventStore'>, projection: Projection, row: RegistryRow): Promise<number | null> {
  const { eventStore } = deps;
  if (!eventStore.countAfter) return null;
  let from: LogPosition | undefined;
  if (row.status === 'building') {
    const checkpoint = (await readRebuilds(deps.database.db)).find((r) => r.projection === projection.name && r.version === row.version)?.checkpoint;
    from = checkpoint ? positionFromString(checkpoint) : undefined;
  } else {
    const cps = [...(await readCheckpoints(deps.database.db, projection.name, row.version)).values()];
    from = cps.length ? cps.reduce(minPosition) : undefined;
  }
  return eventStore.countAfter(from ?? START, [...projection.streamPrefixes]);
}

export interface RebuildProgress {
  projection: string;
  version: number;
  /** `finishing`: computing what the bulk batches left out (e.g. the daily premium records). */
  phase: 'building' | 'finishing' | 'switching' | 'done';
  eventsDone: number;
  eventsTotal: number | null;
  /** Events per second over this run. */
  rate: number;
  etaSeconds: number | null;
}

export interface RebuildOptions {
  /** Recompute one user's rows in the live version instead of building a new version. */
  userId?: string;
  /**
   * Events per read (and, without `bulkRun`, per batch): default `BULK_RUN_READ` for a projection that
   * folds in memory, `BATCH_READ` otherwise (each measured best for its mode, see docs/performance.md).
   * With `userId`: events per read of the user's streams (`readByStream`, default `BY_STREAM_BATCH`).
   */
  batchSize?: number;
  onProgress?: (progress: RebuildProgress) => void;
  /** Partitions of a batch applied concurrently, each on its own connection (default 2; 1 on PGlite). Projections without `bulkRun` only. */
  partitions?: number;
  /**
   * Events folded in memory before a segment is written, for projections with `bulkRun` (default
   * `DEFAULT_SEGMENT_EVENTS`). Memory grows with it (about 1 KB per event for the trades projection); a
   * lineage that spans two segments is loaded and upserted once more.
   */
  segmentEvents?: number;
  /** Switch to live once caught up (default true). False leaves the version `building`, for `diff`. */
  switch?: boolean;
}

/**
 * The log read of a bulk run (`bulkRun`): 10,000 events. The reading thread only sorts a read into a
 * segment and hands it to the fold; a read of 40,000 (and the next one read ahead) kept some 150 MB of
 * rows alive on its heap, whose collections took CPU the fold worker needed (2 December: the
 * building phase 1.6 to 2.7 s shorter in five runs of five, the reading thread's CPU 8.2 to 9.5 s
 * against 10.6 to 12.3 s).
 */
export const BULK_RUN_READ = 10_000;
/** The batch of a projection without `bulkRun`: each is applied in transactions of its own. */
export const BATCH_READ = 40_000;

export interface RebuildResult {
  projection: string;
  version: number;
  eventsApplied: number;
  switched: boolean;
  resumedFrom: string | null;
  /**
   * A one-user recompute by a projection that compares before it writes (`recomputeUser`): the rows it
   * wrote per table, and per stream guard row (`stream_revisions`). All 0: the user's rows were right.
   */
  changes?: Record<string, RowChanges>;
}

type OperatorCommand = 'switch' | 'rollback' | 'retire' | 'abandon';

export class RebuildLockedError extends Error {
  /** `action`: what was refused (default: another rebuild); switch, rollback, retire and abandon name themselves. */
  constructor(name: string, action?: OperatorCommand) {
    super(
      action
        ? `Cannot ${action} ${name}: a rebuild of ${name} is running (advisory lock held). Wait for it to finish, or stop it (a killed rebuild resumes from its checkpoint), then ${action} again.`
        : `A rebuild of ${name} is already running (advisory lock held). Wait for it, or stop it: a killed rebuild resumes from its checkpoint.`,
    );
    this.name = 'RebuildLockedError';
  }
}

/** Refused switch of a version whose rebuild did not complete its bulk run and finishing step. */
export class UnfinishedBuildError extends Error {
  constructor(name: string, version: number) {
    super(
      `${name} v${version} has not finished building (its rebuild stopped before the end of its bulk run or finishing step): run \`npm run projections -- rebuild ${name}\` to finish it (it resumes from its checkpoint), then switch.`,
    );
    this.name = 'UnfinishedBuildError';
  }
}

/**
 * The registry no longer holds what an operator's command named (the version to roll back to, the live
 * version it replaces, the building version to abandon): another operator, a second tab or the CLI
 * changed it since the operator looked. Nothing was changed.
 */
export class StaleVersionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StaleVersionError';
  }
}

/** Another operator command on the projection held its operator lock for longer than a command waits. */
export class OperatorCommandBusyError extends Error {
  constructor(name: string, action: OperatorCommand, waitedMs: number) {
    super(`Cannot ${action} ${name}: another switch, rollback, retire or abandon of ${name} has been running for ${Math.round(waitedMs / 1000)}s. Look at its state again once it has finished, then ${action} again.`);
    this.name = 'OperatorCommandBusyError';
  }
}

/** How long an operator command waits for another one on the same projection (a rollback's catch-up can take a while). */
const OPERATOR_WAIT_MS = 30_000;

/**
 * Runs an operator command holding the projection's operator lock (waited for: commands on one
 * projection run one after the other, so each reads what the one before it left and checks what its
 * request named against that), then its rebuild lock (not waited for: a rebuild runs for minutes, and
 * no rebuild may write the tables meanwhile). Whatever `f` checks is checked under both, and nothing can
 * change the versions of the projection until it returns.
 */
async function withRebuildLock<T>(deps: RuntimeDeps, name: string, action: OperatorCommand, f: () => Promise<T>, waitMs = OPERATOR_WAIT_MS): Promise<T> {
  const operator = await waitForLock(deps.database, LOCK_OPERATOR, name, waitMs);
  if (!operator) throw new OperatorCommandBusyError(name, action, waitMs);
  try {
    const lock = await tryLock(deps.database, LOCK_REBUILD, name);
    if (!lock) throw new RebuildLockedError(name, action);
    try {
      return await f();
    } finally {
      await lock.release();
    }
  } finally {
    await operator.release();
  }
}

function pick(projections: readonly Projection[], target: string): Projection[] {
  if (target === 'all') return [...projections];
  const p = projections.find((x) => x.name === target);
  if (!p) throw new Error(`Unknown projection ${target}. Known: ${projections.map((x) => x.name).join(', ') || '(none)'}`);
  return [p];
}

/**
 * Rebuilds `target` (one projection or `'all'`). Blue/green: the next version's tables are filled
 * beside the live ones from the log read straight from the store in large batches, one transaction
 * per batch together with the rebuild's checkpoint (so a killed rebuild resumes there), then caught
 * up and switched to live in one transaction. The previous version stays, retired, until `retire`.
 * Projections have no side effects (mail is not a projection), so nothing is sent during a rebuild.
 * With `userId`, recomputes that user's rows in the live version instead (see `rebuildUser`).
 */
export async function rebuild(deps: RuntimeDeps, target: string, options: RebuildOptions = {}): Promise<RebuildResult[]> {
  const results: RebuildResult[] = [];
  for (const projection of pick(deps.projections, target)) {
    if (options.userId) results.push(await rebuildUser(deps, projection, options.userId, options.batchSize));
    else results.push(await rebuildVersion(deps, projection, options));
  }
  return results;
}

async function rebuildVersion(deps: RuntimeDeps, projection: Projection, options: RebuildOptions): Promise<RebuildResult> {
  const { database, eventStore } = deps;
  const db = database.db;
  const batchSize = options.batchSize ?? (projection.bulkRun ? BULK_RUN_READ : BATCH_READ);
  // PGlite has one connection: partitions would only queue behind each other there.
  const partitions = database.kind === 'pglite' ? 1 : Math.max(1, options.partitions ?? 2);
  const lock = await tryLock(database, LOCK_REBUILD, projection.name);
  if (!lock) throw new RebuildLockedError(projection.name);
  try {
    const prefixes = [...projection.streamPrefixes];
    const rows = await readRegistry(db, projection.name);
    let building = rows.find((r) => r.status === 'building');
    let resumedFrom: string | null = null;
    if (building && building.codeVersion !== projection.version) {
      // Built by other formulas than the running code's: it cannot be continued, start over.
      await dropVersion(db, building);
      building = undefined;
    }
    let version: number;
    let checkpoint: LogPosition;
    let done: number;
    if (building) {
      version = building.version;
      const r = await sql<any>`select commit::text as commit, prepare::text as prepare, events_done from projection_rebuilds
        where projection = ${projection.name} and version = ${version}`.execute(db);
      checkpoint = r.rows[0] ? rowPosition(r.rows[0]) : START;
      done = r.rows[0] ? Number(r.rows[0].events_done) : 0;
      resumedFrom = positionToString(checkpoint);
      await projection.createTables(db, building.tables, { bulk: true });
    } else {
      version = await issueVersion(db, projection.name, projection.version);
      const tables = physicalTables(projection, version);
      await projection.createTables(db, tables, { bulk: true });
      checkpoint = START;
      done = 0;
      const s = posParams(START);
      await db.transaction().execute(async (trx) => {
        // Left-over guard rows of this number (bookkeeping rows deleted by hand, a partial restore): they
        // would make the guard drop this version's events as applied.
        await sql`delete from projection_stream_revisions where projection = ${projection.name} and version = ${version}`.execute(trx);
        await trx
          .insertInto('projection_registry')
          .values({ name: projection.name, version, code_version: projection.version, status: 'building', lanes: deps.lanes, tables: JSON.stringify(tables), revision_guard: true })
          .execute();
        await sql`insert into projection_rebuilds (projection, version, commit, prepare) values (${projection.name}, ${version}, ${s.commit}, ${s.prepare})
          on conflict (projection, version) do update set commit = excluded.commit, prepare = excluded.prepare, events_done = 0, started_at = now(), updated_at = now(), finished_at = null`.execute(trx);
      });
    }
    const tables = physicalTables(projection, version);
    const guarded = { name: projection.name, version, revisionGuard: building ? building.revisionGuard : true };
    // Not switchable until this run has finished its bulk batches and finishing step again.
    await sql`update projection_rebuilds set built_at = null where projection = ${projection.name} and version = ${version}`.execute(db);
    const total = eventStore.countAfter ? await eventStore.countAfter(START, prefixes) : null;
    if (total !== null) await sql`update projection_rebuilds set events_total = ${total} where projection = ${projection.name} and version = ${version}`.execute(db);
    const started = Date.now();
    const doneAtStart = done;
    const report = (phase: RebuildProgress['phase']) => {
      const seconds = (Date.now() - started) / 1000;
      const rate = seconds > 0 ? (done - doneAtStart) / seconds : 0;
      const eventsTotal = total === null ? null : Math.max(total, done);
      const etaSeconds = eventsTotal === null || rate <= 0 ? null : (eventsTotal - done) / rate;
      options.onProgress?.({ projection: projection.name, version, phase, eventsDone: done, eventsTotal, rate, etaSeconds });
    };
    report('building');
    const onRead = (n: number) => {
      done += n;
      report('building');
    };
    const pass = { database, eventStore, projection, version, tables, guarded, prefixes, batchSize, from: checkpoint, resumed: resumedFrom !== null, onRead };
    let applied: number;
    if (projection.bulkRun) {
      const bulk = projection.bulkRun(database);
      try {
        ({ applied } = await bulkSegments({ ...pass, resumed: resumedFrom !== null }, bulk, Math.max(1, options.segmentEvents ?? DEFAULT_SEGMENT_EVENTS)));
      } finally {
        await bulk.close?.();
      }
    } else {
      applied = await bulkBatches(pass, partitions);
    }
    report('finishing');
    if (projection.finishBulk) await projection.finishBulk(database, tables);
    await analyzeVersion(db, tables);
    // Everything of the finishing step is written and committed here, but not yet marked: a kill now
    // must leave a version that cannot be switched, and the next run must do the step again.
    await failpoint('rebuild.finished');
    await sql`update projection_rebuilds set built_at = now() where projection = ${projection.name} and version = ${version}`.execute(db);
    let switched = false;
    let caughtUp = 0;
    if (options.switch !== false) {
      report('switching');
      // Under this rebuild's lock already.
      caughtUp = await switchLocked(deps, projection.name, version);
      switched = true;
    }
    await refreshCounts(deps, projection.name, version);
    report('done');
    return { projection: projection.name, version, eventsApplied: applied + caughtUp, switched, resumedFrom };
  } finally {
    await lock.release();
  }
}

/**
 * The bulk run of a projection without `bulkRun`: every batch through `apply` (mode `bulk`), which
 * loads and upserts the rows the batch touches. Returns the events applied.
 */
async function bulkBatches(run: BulkPass, partitions: number): Promise<number> {
  const { database, eventStore, projection, tables, guarded, prefixes, batchSize } = run;
  const db = database.db;
  let checkpoint = run.from;
  let applied = 0;
  // Read outside the transaction: on PGlite the one connection is the transaction's.
  const read = (after: LogPosition) => eventStore.readAll({ after, streamPrefixes: prefixes, limit: batchSize, metadata: 'projected' });
  let next: Promise<ProjectedEvent[]> | null = null;
  for (;;) {
    let events = next ? await next : await read(checkpoint);
    // A read-ahead ran while this rebuild's own transaction was open, which holds the store's
    // visibility horizon back: a short batch may only mean that, so read it again before ending.
    if (next && events.length < batchSize) events = await read(checkpoint);
    next = null;
    const last = events.at(-1);
    if (!last) break;
    if (events.length === batchSize) {
      // Read-ahead: the next batch is read (on another connection) while this one is applied. It
      // starts after this batch's last event, which does not depend on the apply.
      next = read(last.position);
      next.catch(() => {}); // awaited below; if the apply fails first, its rejection is not unhandled
    }
    // The batch's users are split into partitions applied side by side, each in its own transaction
    // on its own connection, so PostgreSQL works on one while Node folds another. A user's events
    // stay in one partition, in log order. The checkpoint moves only once every partition has
    // committed; a rebuild killed in between re-applies the batch on resume, which the projections'
    // revision guards turn into no-ops for the partitions that had committed.
    // Every partition settles before a failure is thrown: the rebuild's lock must not be released
    // while a partition's transaction is still running.
    await settleAll(
      partitionByUser(events, partitions).map((part) =>
        db.transaction().execute(async (trx) => {
          // A partition re-applied after a kill finds its events applied already: the guard drops them.
          const fresh = await guardRevisions(trx, guarded, part);
          if (fresh.length) await projection.apply({ trx, tables, mode: 'bulk' }, fresh);
        }),
      ),
    );
    await recordCheckpoint(db, run, last.position, events.length);
    checkpoint = last.position;
    applied += events.length;
    run.onRead(events.length);
    if (events.length < batchSize) break;
  }
  return applied;
}

/**
 * Planner statistics for what a rebuild wrote: the version's tables and the stream guard, whose rows
 * (one per stream) it just bulk-inserted. Without them the planner keeps the figures of the empty
 * tables until autovacuum's next analyze (never, where autovacuum is off): measured after a rebuild of
 * 1,000,000 events, the guard's lookup of a lane batch's streams was a scan of all 438,000 guard rows
 * (72 ms instead of 0.15 ms), and live lane batches took 150 ms each, so the lanes fell behind at 1,000
 * events a second.
 */
async function analyzeVersion(db: Kysely<any>, tables: Record<string, string>): Promise<void> {
  // Each table on its own connection, side by side (sampling waits on reads as much as on the CPU).
  await settleAll([...Object.values(tables), 'projection_stream_revisions'].map((t) => sql`analyze ${sql.table(t)}`.execute(db)));
}

async function refreshCounts(deps: RuntimeDeps, name: string, version: number): Promise<void> {
  const projection = deps.projections.find((p) => p.name === name);
  const row = (await readRegistry(deps.database.db, name)).find((r) => r.version === version);
  if (!projection?.countRows || !row) return;
  const counts = await projection.countRows(deps.database.db, row.tables);
  await sql`update projection_registry set counts = ${JSON.stringify(counts)}::jsonb, updated_at = now() where name = ${name} and version = ${version}`.execute(deps.database.db);
}

/** Splits a batch by user into at most `n` non-empty parts, each in log order. */
function partitionByUser<E extends ProjectedEvent>(events: readonly E[], n: number): Array<readonly E[]> {
  if (n <= 1) return [events];
  const parts: E[][] = Array.from({ length: n }, () => []);
  for (const e of events) parts[laneOf(e.metadata.userId, n)]!.push(e);
  return parts.filter((p) => p.length > 0);
}

/**
 * Reads a range of the log (exclusive after, inclusive to), all of it (at most `max` events), in log
 * order, each event with only the metadata a projection reads: what every caller hands to projections.
 * (A heavy user's 155,000 events: their whole metadata would be as much JSON again to print and parse.)
 */
export async function readRange(eventStore: EventStore, after: LogPosition, prefixes: string[], to?: LogPosition, max = Number.POSITIVE_INFINITY): Promise<ProjectedEvent[]> {
  const out: ProjectedEvent[] = [];
  let cursor = after;
  for (;;) {
    const batch = await eventStore.readAll({ after: cursor, streamPrefixes: prefixes, limit: 5000, metadata: 'projected' });
    for (const e of batch) {
      if (to && comparePositions(e.position, to) > 0) return out;
      out.push(e);
      if (out.length >= max) return out;
    }
    const last = batch.at(-1);
    if (!last || batch.length < 5000) return out;
    cursor = last.position;
  }
}

/**
 * Makes `version` the live one, in ONE transaction under the exclusive switch lock (lane batches in
 * flight finish first; new ones wait and then see the new registry). The target is first brought up
 * to M, the furthest position any lane of the current live version (or the target) has reached, and
 * every lane checkpoint of the target is set to M: a lane then skips what the switch already applied
 * and applies everything after it. Works for a freshly built version and for a rollback to a retired
 * one. Returns the number of events applied during the catch-up.
 */
export interface SwitchOptions {
  /** Events per catch-up transaction, and at most in the switch transaction itself (default 5,000). */
  catchUpBatch?: number;
}

export async function switchVersion(deps: RuntimeDeps, name: string, version: number, options: SwitchOptions = {}): Promise<number> {
  // Under the rebuild lock: a rebuild's bulk writes and its finishing step (which empties tables) must
  // never run against a version that is live.
  return withRebuildLock(deps, name, 'switch', () => switchLocked(deps, name, version, options));
}

async function switchLocked(deps: RuntimeDeps, name: string, version: number, options: SwitchOptions = {}): Promise<number> {
  const limit = Math.max(1, options.catchUpBatch ?? CATCH_UP_LIMIT);
  const { database, eventStore } = deps;
  const projection = deps.projections.find((p) => p.name === name);
  if (!projection) throw new Error(`Unknown projection ${name}`);
  const prefixes = [...projection.streamPrefixes];
  // A retired version may be far behind (rolled back to weeks later): bring it near the head first in
  // bounded batches, each its own transaction (it is not live, and the rebuild lock keeps every other
  // writer away), so the switch transaction below only reads and applies the last few events.
  const target = (await readRegistry(database.db, name)).find((r) => r.version === version);
  if (!target) throw new Error(`${name} has no version ${version}`);
  if (target.status === 'live') return 0;
  if (target.status === 'building') await assertBuilt(database.db, name, version);
  let applied = await catchUpTarget(deps, projection, version, limit);
  for (let attempt = 0; ; attempt++) {
    // Pre-read what the catch-up may need (outside the transaction: PGlite has one connection),
    // then check under the lock that it covers M; retry in the rare case lanes moved past it.
    const head = await eventStore.head();
    const before = await targetCheckpoints(deps, name, version);
    const from = [...before.values()].reduce((a, b) => minPosition(a, b));
    const events = await readRange(eventStore, from, prefixes, undefined, limit + 1);
    if (events.length > limit) {
      // The lanes ran far ahead meanwhile: catch up in batches again rather than in this transaction.
      applied += await catchUpTarget(deps, projection, version, limit);
      continue;
    }
    const covered = maxPosition(head ?? START, events.at(-1)?.position ?? START);
    const result = await database.db.transaction().execute(async (trx) => {
      await lockSwitchExclusive(trx);
      const rows = await readRegistry(trx, name);
      const target = rows.find((r) => r.version === version);
      if (!target) throw new Error(`${name} has no version ${version}`);
      if (target.status === 'live') return { applied: 0 };
      if (target.status === 'building') await assertBuilt(trx, name, version);
      const current = rows.find((r) => r.status === 'live');
      const t = await targetCheckpoints(deps, name, version, trx);
      const dispatcher = await readDispatcher(trx);
      // The count the dispatcher routes with now (during a lane-count drain still the old one, which
      // the drain re-keys afterwards), not this process's PROJECTOR_LANES.
      const laneCount = dispatcher.lanes ?? deps.lanes;
      let m = [...t.values()].reduce((a, b) => maxPosition(a, b), START);
      if (current) for (const p of (await readCheckpoints(trx, name, current.version)).values()) m = maxPosition(m, p);
      // Events up to the dispatcher's checkpoint were handed out already (a new read model would never
      // get them from a lane): the switch applies them itself.
      m = maxPosition(m, dispatcher.checkpoint);
      if (comparePositions(m, covered) > 0) return null;
      // The target's checkpoints are keyed with the lane count they were written with (its registry
      // row's), which may not be today's.
      const behind = (e: ProjectedEvent) => {
        const cp = checkpointOf(t, target, e);
        return comparePositions(e.position, cp) > 0 && comparePositions(e.position, m) <= 0 && matchesPrefixes(e.streamId, prefixes);
      };
      const catchUp = events.filter(behind);
      const refusal = catchUpRefusal(name, version, target.codeVersion, projection.version);
      if (catchUp.length && refusal) {
        throw new Error(refusal);
      }
      const unapplied = await guardRevisions(trx, target, catchUp);
      if (unapplied.length) await projection.apply({ trx, tables: target.tables, mode: 'rebuild' }, unapplied);
      await writeLaneCheckpoints(trx, name, version, laneCount, m);
      const mp = posParams(m);
      if (current) await sql`update projection_registry set status = 'retired', retired_at = now(), updated_at = now() where name = ${name} and version = ${current.version}`.execute(trx);
      await sql`update projection_registry set status = 'live', live_since = now(), retired_at = null, lanes = ${laneCount}, updated_at = now() where name = ${name} and version = ${version}`.execute(trx);
      await sql`update projection_rebuilds set finished_at = now(), commit = ${mp.commit}, prepare = ${mp.prepare}, updated_at = now() where projection = ${name} and version = ${version}`.execute(trx);
      return { applied: unapplied.length };
    });
    if (result) return applied + result.applied;
    if (attempt > 20) throw new Error(`Could not switch ${name}: lanes keep moving past the catch-up read`);
  }
}

async function assertBuilt(db: Kysely<any>, name: string, version: number): Promise<void> {
  const built = await sql<{ built: boolean }>`select built_at is not null as built from projection_rebuilds where projection = ${name} and version = ${version}`.execute(db);
  if (!built.rows[0]?.built) throw new UnfinishedBuildError(name, version);
}

/** Events a switch reads and applies inside its one transaction at most; more are caught up in batches first. */
const CATCH_UP_LIMIT = 5000;

/**
 * A version's checkpoint for an event's user: its rebuild's (-1), or its lane's by the version's own lane
 * count; a lane without a row has applied nothing.
 */
export function checkpointOf(t: Map<number, LogPosition>, target: RegistryRow, e: ProjectedEvent): LogPosition {
  return t.get(-1) ?? t.get(laneOf(e.metadata.userId, target.lanes)) ?? START;
}

/**
 * Applies the log to a version that is not live (retired, or built) up to about the head, in batches
 * of `batchSize`, one transaction each together with its checkpoints: a building version's rebuild
 * checkpoint, or a retired version's lane checkpoints (mapped with the lane count they were written
 * with, then each moved to at least the batch's end, since everything up to it is applied for every user).
 * Streams the log instead of holding it in memory; a failure leaves a consistent checkpoint behind.
 */
async function catchUpTarget(deps: RuntimeDeps, projection: Projection, version: number, batchSize = CATCH_UP_LIMIT): Promise<number> {
  const { database, eventStore } = deps;
  const prefixes = [...projection.streamPrefixes];
  let applied = 0;
  for (;;) {
    const before = await targetCheckpoints(deps, projection.name, version);
    const from = [...before.values()].reduce((a, b) => minPosition(a, b));
    const events = await eventStore.readAll({ after: from, streamPrefixes: prefixes, limit: batchSize, metadata: 'projected' });
    const last = events.at(-1);
    if (!last) return applied;
    const done = await database.db.transaction().execute(async (trx) => {
      const target = (await readRegistry(trx, projection.name)).find((r) => r.version === version);
      if (!target) throw new Error(`${projection.name} has no version ${version}`);
      if (target.status === 'live') return null;
      const t = await targetCheckpoints(deps, projection.name, version, trx);
      const fresh = events.filter((e) => comparePositions(e.position, checkpointOf(t, target, e)) > 0 && matchesPrefixes(e.streamId, prefixes));
      const refusal = catchUpRefusal(projection.name, version, target.codeVersion, projection.version);
      if (fresh.length && refusal) {
        throw new Error(refusal);
      }
      const unapplied = await guardRevisions(trx, target, fresh);
      if (unapplied.length) await projection.apply({ trx, tables: target.tables, mode: 'rebuild' }, unapplied);
      const p = posParams(last.position);
      if (target.status === 'building') {
        await sql`update projection_rebuilds set commit = ${p.commit}, prepare = ${p.prepare}, updated_at = now() where projection = ${projection.name} and version = ${version}`.execute(trx);
      } else {
        // Each lane to max(its own checkpoint, the batch's end): everything up to the batch's end is
        // applied for every user now, but a lane further ahead vouches only for its own users.
        await sql`delete from projection_checkpoints where projection = ${projection.name} and version = ${version}`.execute(trx);
        for (let lane = 0; lane < target.lanes; lane++) {
          const at = posParams(maxPosition(t.get(-1) ?? t.get(lane) ?? START, last.position));
          await sql`insert into projection_checkpoints (projection, version, lane, commit, prepare) values (${projection.name}, ${version}, ${lane}, ${at.commit}, ${at.prepare})`.execute(trx);
        }
      }
      return unapplied.length;
    });
    if (done === null) return applied;
    applied += done;
    if (events.length < batchSize) return applied;
  }
}

/**
 * A building version's checkpoint is its rebuild's (key -1: all lanes); a retired one's are per lane, one
 * for each lane of its lane count. A lane without a row has applied nothing to the version: START. (Its
 * users are not at another lane's position: the first projector made a version live on an empty log
 * without checkpoint rows until this release, and a lane whose first batch never applied, its projector
 * killed first, kept none; counted at the lowest lane, a rollback's catch-up skipped those users'
 * events, silently when none came after them.)
 */
async function targetCheckpoints(deps: RuntimeDeps, name: string, version: number, db: Kysely<any> = deps.database.db): Promise<Map<number, LogPosition>> {
  const row = (await readRegistry(db, name)).find((r) => r.version === version);
  if (!row) throw new Error(`${name} has no version ${version}`);
  if (row.status === 'building') {
    const r = await sql<any>`select commit::text as commit, prepare::text as prepare from projection_rebuilds where projection = ${name} and version = ${version}`.execute(db);
    return new Map([[-1, r.rows[0] ? rowPosition(r.rows[0]) : START]]);
  }
  const cps = await readCheckpoints(db, name, version);
  for (let lane = 0; lane < row.lanes; lane++) if (!cps.has(lane)) cps.set(lane, START);
  return cps;
}

export interface RollbackOptions extends SwitchOptions {
  /** The version to roll back to, as the operator chose it: refused unless it is the most recently retired one. */
  to?: number;
  /** The live version the rollback is to replace: refused when another one is live. */
  from?: number;
}

/** The version a rollback goes back to: the most recently retired one. */
export const rollbackTarget = (rows: readonly RegistryRow[]): RegistryRow | undefined =>
  rows.filter((r) => r.status === 'retired').sort((a, b) => (b.retiredAt?.getTime() ?? 0) - (a.retiredAt?.getTime() ?? 0) || b.version - a.version)[0];

/**
 * Switches back to the most recently retired version (still present until `retire`). With `to` (and
 * `from`), only if that is still the version a rollback goes back to (and the live one): checked under
 * the locks, so of two operators rolling back from what both saw, one rolls back and the other is
 * refused (StaleVersionError) instead of rolling the first one's rollback back again.
 */
export async function rollback(deps: RuntimeDeps, name: string, options: RollbackOptions = {}): Promise<{ from: number | null; to: number }> {
  return withRebuildLock(deps, name, 'rollback', async () => {
    const rows = await readRegistry(deps.database.db, name);
    const retired = rollbackTarget(rows);
    const live = rows.find((r) => r.status === 'live');
    const { to, from: expected } = options;
    if (expected !== undefined && live?.version !== expected) {
      throw new StaleVersionError(`${name} is no longer at v${expected}: ${live ? `v${live.version} is live now` : 'no version is live now'}.`);
    }
    if (to !== undefined && retired?.version !== to) {
      const named = rows.find((r) => r.version === to);
      throw new StaleVersionError(
        !named
          ? `${name} has no v${to} to roll back to now: it was retired for good (or never built).`
          : named.status === 'live'
            ? `${name} v${to} is live already.`
            : named.status === 'building'
              ? `${name} v${to} is building, not retired: a rollback goes back to the most recently retired version.`
              : `${name} no longer rolls back to v${to}: v${retired!.version} was retired after it.`,
      );
    }
    if (!retired) throw new Error(`${name} has no retired version to roll back to`);
    await switchLocked(deps, name, retired.version, options);
    return { from: live?.version ?? null, to: retired.version };
  });
}

async function dropVersion(db: Kysely<any>, row: RegistryRow): Promise<void> {
  for (const table of Object.values(row.tables)) await sql`drop table if exists ${sql.table(table)}`.execute(db);
  await db.transaction().execute(async (trx) => {
    await sql`delete from projection_checkpoints where projection = ${row.name} and version = ${row.version}`.execute(trx);
    await sql`delete from projection_stream_revisions where projection = ${row.name} and version = ${row.version}`.execute(trx);
    await sql`delete from projection_rebuilds where projection = ${row.name} and version = ${row.version}`.execute(trx);
    await sql`delete from projection_registry where name = ${row.name} and version = ${row.version}`.execute(trx);
  });
}

/** Drops the tables of a projection's retired versions (or one of them). After this, no rollback to them. */
export async function retire(deps: RuntimeDeps, name: string, version?: number): Promise<number[]> {
  // Under the rebuild lock: a rollback to the version being dropped waits for it (or the other way round).
  return withRebuildLock(deps, name, 'retire', async () => {
    const rows = (await readRegistry(deps.database.db, name)).filter((r) => r.status === 'retired' && (version === undefined || r.version === version));
    if (version !== undefined && !rows.length) throw new Error(`${name} v${version} is not a retired version`);
    for (const row of rows) await dropVersion(deps.database.db, row);
    return rows.map((r) => r.version);
  });
}

/**
 * Abandons the building version (drops its tables); null when none is building. With `version`, only
 * that one: checked under the locks, so a build that was switched live, abandoned or replaced by another
 * since the operator chose it is refused (StaleVersionError), never dropped in its place.
 */
export async function abandon(deps: RuntimeDeps, name: string, version?: number): Promise<number | null> {
  return withRebuildLock(deps, name, 'abandon', async () => {
    const rows = await readRegistry(deps.database.db, name);
    const row = rows.find((r) => r.status === 'building');
    if (version !== undefined && row?.version !== version) {
      const named = rows.find((r) => r.version === version);
      throw new StaleVersionError(
        row
          ? `${name} is building v${row.version} now, not v${version}.`
          : `${name} v${version} is no longer building: ${named ? `it is ${named.status} now` : 'it is gone (abandoned, or retired for good)'}.`,
      );
    }
    if (!row) return null;
    await dropVersion(deps.database.db, row);
    return row.version;
  });
}

/** One user's streams, by the projection's prefixes: `trade-` -> `trade-<userId>.` (journal stream naming). */
export const userPrefixes = (projection: Projection, userId: string) => projection.streamPrefixes.map((p) => `${p}${userId}.`);

/**
 * Recomputes one user's rows in the live version, in one transaction. The user's lane is locked first
 * (`lockCheckpoint`: the lane's lock, then its checkpoint), so the lane worker waits at it until the
 * transaction commits and then continues after it: the user's events up to the checkpoint are exactly
 * what there is to apply, nothing is applied twice or missed, and the user's order holds. Those events
 * are read (on the store's own connections) while the transaction reads the user's rows. A projection
 * with `recomputeUser` gets them whole stream by whole stream (`readByStream`) and compares the rows
 * they give with the live ones as they come, writing only what differs while the rest is read; so does
 * the stream guard: a user whose rows were right costs reads only, and the result says what was wrong.
 * Any other projection has the user's rows and guard rows deleted (`deleteUser`) and the events applied
 * in log order in mode `user`.
 *
 * PGlite has one connection, which the transaction holds: a read beside it would wait for it forever.
 * There the events are read before the transaction, which starts over if the lane has moved past the
 * read meanwhile, up to 21 times (as every database did before).
 */
async function rebuildUser(deps: RuntimeDeps, projection: Projection, userId: string, batch?: number): Promise<RebuildResult> {
  const { database, eventStore } = deps;
  const prefixes = userPrefixes(projection, userId);
  const mine = (events: ProjectedEvent[]) => events.filter((e) => e.metadata.userId === userId);
  const readUser = async (upTo?: LogPosition) => mine(await readRange(eventStore, START, prefixes, upTo));
  const recompute = (source: UserEvents) =>
    bulkTransaction(database, async ({ trx, load }) => {
      await lockSwitchShared(trx);
      const live = runnable([projection], await readRegistry(trx, projection.name))[0];
      if (!live) throw new Error(`${projection.name} has no live version built by the running code (v${projection.version}); rebuild it first`);
      // The user's lane by the count the live version's checkpoints are keyed with (its registry row's;
      // under the shared switch lock, a lane-count change cannot re-key them meanwhile). Not this
      // process's PROJECTOR_LANES, nor the dispatcher's count: before the first projector recorded one,
      // a recompute with another count locked a lane the version has no checkpoint for (made at START)
      // and deleted every row of the user's.
      const cp = await lockCheckpoint(trx, live.row.name, live.row.version, laneOf(userId, live.row.lanes));
      if (projection.recomputeUser) {
        // Each stream's last revision (the guard's rows) taken as the streams go by.
        const revisions = new LastRevisions(live.row);
        const streams = async function* () {
          for await (const batch of source.byStream(cp)) {
            const ours = mine(batch);
            revisions.add(ours);
            if (ours.length) yield ours;
          }
        };
        const changes = await projection.recomputeUser({ trx, load, tables: live.row.tables, mode: 'rebuild' }, userId, streams());
        changes.stream_revisions = await replaceStreamRevisions(trx, live.row, prefixes, revisions.last);
        return { projection: projection.name, version: live.row.version, eventsApplied: revisions.events, switched: false, resumedFrom: null, changes };
      }
      const ctx = { trx, tables: live.row.tables, mode: 'user' as const };
      const [events] = await Promise.all([
        source.inLogOrder(cp),
        (async () => {
          await projection.deleteUser(ctx, userId);
          // The user's lineages start over in the guard too.
          for (const prefix of prefixes) {
            await sql`delete from projection_stream_revisions where projection = ${live.row.name} and version = ${live.row.version} and left(stream_id, ${prefix.length}) = ${prefix}`.execute(trx);
          }
        })(),
      ]);
      const upTo = await guardRevisions(trx, { ...live.row, revisionGuard: true }, events);
      if (upTo.length) await projection.apply(ctx, upTo);
      return { projection: projection.name, version: live.row.version, eventsApplied: upTo.length, switched: false, resumedFrom: null };
    });
  // Every event up to the checkpoint is visible: the lane applied it.
  if (database.kind !== 'pglite') {
    return recompute({ inLogOrder: (cp) => readUser(cp), byStream: (cp) => readByStream(eventStore, { streamPrefixes: prefixes, upTo: cp, ...(batch ? { batch } : {}) }) });
  }
  for (let attempt = 0; ; attempt++) {
    const head = await eventStore.head();
    const events = await readUser();
    const covered = maxPosition(head ?? START, events.at(-1)?.position ?? START);
    const upTo = (cp: LogPosition) => {
      if (comparePositions(cp, covered) > 0) throw new LaneMovedOn();
      return events.filter((e) => comparePositions(e.position, cp) <= 0);
    };
    try {
      return await recompute({
        inLogOrder: async (cp) => upTo(cp),
        byStream: async function* (cp) {
          const byStream = groupByStream(upTo(cp));
          if (byStream.length) yield byStream;
        },
      });
    } catch (error) {
      if (!(error instanceof LaneMovedOn)) throw error;
      if (attempt >= 20) throw new Error(`Could not rebuild ${projection.name} for user ${userId}: the lane keeps moving past the read`);
    }
  }
}

/** A one-user recompute's events up to the lane's checkpoint: in log order, or whole streams a batch at a time. */
interface UserEvents {
  inLogOrder(checkpoint: LogPosition): Promise<ProjectedEvent[]>;
  byStream(checkpoint: LogPosition): AsyncIterable<ProjectedEvent[]>;
}

/** The lane applied events after a one-user recompute's read: its transaction rolls back and it reads again. */
class LaneMovedOn extends Error {}

export interface TableDiff {
  table: string;
  live: string;
  other: string;
  rowsLive: number;
  rowsOther: number;
  /** Rows present in one version and not in the other (whole-row comparison). */
  onlyInLive: number;
  onlyInOther: number;
  sampleOnlyInLive: unknown[];
  sampleOnlyInOther: unknown[];
  /** Sums of numeric columns that differ (amounts: the projection's category columns are not summed). */
  totals: Array<{ column: string; live: number; other: number }>;
  /** Category columns (`Projection.categoryColumns`) whose rows per value differ: value -> rows (`null` for no value). */
  categories: Array<{ column: string; live: Record<string, number>; other: Record<string, number> }>;
  /** Set when the shapes differ so rows cannot be compared whole. */
  shapeChanged?: string;
}

/**
 * What a new version changes before it goes live: per table, rows only in one version and numeric
 * column totals that differ. Compares the live version with the building one (or `otherVersion`).
 */
/** The version `diff` compares with the live one: the one named, else the one building. */
export const versionToCompare = (rows: readonly RegistryRow[], version?: number): RegistryRow | undefined =>
  version !== undefined ? rows.find((r) => r.version === version) : rows.find((r) => r.status === 'building');

export async function diff(deps: RuntimeDeps, name: string, otherVersion?: number): Promise<TableDiff[]> {
  const db = deps.database.db;
  const rows = await readRegistry(db, name);
  const live = rows.find((r) => r.status === 'live');
  const other = versionToCompare(rows, otherVersion);
  if (!live) throw new Error(`${name} has no live version`);
  if (!other) throw new Error(`${name} has no ${otherVersion !== undefined ? `version ${otherVersion}` : 'building version'} to compare with`);
  const categoryColumns = deps.projections.find((p) => p.name === name)?.categoryColumns ?? {};
  const out: TableDiff[] = [];
  for (const [logical, a] of Object.entries(live.tables)) {
    const b = other.tables[logical];
    if (!b) continue;
    const colsA = await columns(db, a);
    const colsB = await columns(db, b);
    const count = async (t: string) => Number((await sql<{ n: number }>`select count(*)::int as n from ${sql.table(t)}`.execute(db)).rows[0]?.n ?? 0);
    const d: TableDiff = { table: logical, live: a, other: b, rowsLive: await count(a), rowsOther: await count(b), onlyInLive: 0, onlyInOther: 0, sampleOnlyInLive: [], sampleOnlyInOther: [], totals: [], categories: [] };
    const shared = colsA.filter((c) => colsB.some((x) => x.name === c.name));
    if (colsA.length !== colsB.length || shared.length !== colsA.length) {
      d.shapeChanged = `columns ${colsA.map((c) => c.name).join(',')} vs ${colsB.map((c) => c.name).join(',')}`;
    }
    // json has no equality operator: compare it as jsonb (same value, any key order or spacing).
    const list = sql.join(shared.map((c) => (c.json ? sql`${sql.ref(c.name)}::jsonb as ${sql.ref(c.name)}` : sql.ref(c.name))));
    const only = async (x: string, y: string) => {
      const n = await sql<{ n: number }>`select count(*)::int as n from (select ${list} from ${sql.table(x)} except all select ${list} from ${sql.table(y)}) d`.execute(db);
      const sample = await sql<any>`select ${list} from ${sql.table(x)} except all select ${list} from ${sql.table(y)} limit 20`.execute(db);
      return [Number(n.rows[0]?.n ?? 0), sample.rows] as const;
    };
    if (shared.length) {
      [d.onlyInLive, d.sampleOnlyInLive] = await only(a, b);
      [d.onlyInOther, d.sampleOnlyInOther] = await only(b, a);
    }
    const categories = new Set(categoryColumns[logical] ?? []);
    for (const c of shared.filter((c) => categories.has(c.name))) {
      // A code's rows per value (QA: "total status: 4646 -> 66253" summed trade status codes).
      const perValue = async (t: string) =>
        Object.fromEntries(
          (await sql<{ v: string | null; n: number }>`select ${sql.ref(c.name)}::text as v, count(*)::int as n from ${sql.table(t)} group by 1 order by 1`.execute(db)).rows.map((r) => [
            r.v ?? 'null',
            Number(r.n),
          ]),
        );
      const [x, y] = [await perValue(a), await perValue(b)];
      if (JSON.stringify(x) !== JSON.stringify(y)) d.categories.push({ column: c.name, live: x, other: y });
    }
    for (const c of shared.filter((c) => c.numeric && !categories.has(c.name))) {
      // Summed as numeric: a float sum depends on the rows' physical order, which two versions built
      // differently (lane batches, bulk) do not share, and would report equal rows as a change.
      const sum = async (t: string) => Number((await sql<{ s: number | null }>`select coalesce(sum(${sql.ref(c.name)}::numeric), 0)::float8 as s from ${sql.table(t)}`.execute(db)).rows[0]?.s ?? 0);
      const [x, y] = [await sum(a), await sum(b)];
      if (x !== y) d.totals.push({ column: c.name, live: x, other: y });
    }
    out.push(d);
  }
  return out;
}

async function columns(db: Kysely<any>, table: string): Promise<Array<{ name: string; numeric: boolean; json: boolean }>> {
  const r = await sql<{ column_name: string; data_type: string }>`select column_name, data_type from information_schema.columns
    where table_schema = current_schema() and table_name = ${table} order by ordinal_position`.execute(db);
  const numeric = new Set(['smallint', 'integer', 'bigint', 'numeric', 'real', 'double precision']);
  return r.rows.map((c) => ({ name: c.column_name, numeric: numeric.has(c.data_type), json: c.data_type === 'json' }));
}
