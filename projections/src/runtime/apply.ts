import { sql, type Kysely, type RawBuilder } from 'kysely';
import { codeVersionLabel } from '@oj/contracts/operations';
import { START, comparePositions, positionToString, type LogPosition, type ProjectedEvent } from '@oj/infra/eventstore/port';
import type { Projection } from './projection.ts';
import { lockLane, lockSwitchSharedAndLane } from './locks.ts';
import { matchesPrefixes, maxPosition, posParams, rowPosition } from './lanes.ts';
import { registryRow, runnable, type RegistryRow } from './registry.ts';
import type { RowChanges } from './row-diff.ts';

/** A batch of one lane's events, in log order, with the position last handed to that lane before it. */
export interface LaneBatch {
  lane: number;
  prev: LogPosition;
  /** Read with only the metadata a projection reads (`ProjectedEvent`). */
  events: readonly ProjectedEvent[];
}

/**
 * Thrown when a batch follows events the lane has not applied yet (its `prev` is beyond the lane's
 * checkpoint): an earlier job is still pending or being retried. The job fails and is retried, so a
 * lane never applies a user's events out of order even though BullMQ reorders retried jobs.
 */
export class LaneGapError extends Error {
  constructor(projection: string, lane: number, prev: LogPosition, checkpoint: LogPosition) {
    super(`Lane ${lane} of ${projection}: batch follows ${positionToString(prev)} but the checkpoint is ${positionToString(checkpoint)}; an earlier batch is not applied yet`);
    this.name = 'LaneGapError';
  }
}

/**
 * Thrown when the registry's live version of a read model is not one this worker's code can apply
 * (built by other formulas, or a read model the code does not have): a rolled-back deploy, or old and
 * new workers side by side. The batch is refused, not acknowledged: another worker (or this one once
 * code and data agree again) applies it, so nothing is lost.
 */
export class ProjectionVersionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProjectionVersionError';
  }
}

/** Live versions this code must apply; throws ProjectionVersionError for any it cannot. */
export function applicableLive(projections: readonly Projection[], rows: readonly RegistryRow[]): Array<{ projection: Projection; row: RegistryRow }> {
  for (const row of rows.filter((r) => r.status === 'live')) {
    const code = projections.find((p) => p.name === row.name);
    if (!code) {
      throw new ProjectionVersionError(
        `Read model ${row.name} v${row.version} is live but this worker's code does not have it: refusing the lane batch (not acknowledged) until a worker running code with ${row.name} takes it`,
      );
    }
    if (code.version !== row.codeVersion) {
      throw new ProjectionVersionError(
        `Read model ${row.name} v${row.version} is live, built by ${codeVersionLabel(row.codeVersion)}, but this worker runs ${codeVersionLabel(code.version)}: refusing the lane batch (not acknowledged) until code and data agree (deploy the code of v${row.codeVersion}, or rebuild and switch with this code)`,
      );
    }
  }
  return runnable(projections, rows);
}

/**
 * Thrown when an event is not the next revision of its stream in a version: an earlier event of that
 * lineage was never applied there (a misrouted or reordered batch, a stale dispatcher's). Applying it
 * would leave a hole nobody sees; refusing it stops the lane, loudly (error log, stuck-lane alert).
 */
export class StreamRevisionError extends Error {
  constructor(projection: string, version: number, streamId: string, expected: number, actual: number) {
    super(`${projection} v${version}: stream ${streamId} expects revision ${expected} next but the batch brings ${actual}; an earlier event of this lineage was not applied`);
    this.name = 'StreamRevisionError';
  }
}

/**
 * The guard rows of some streams of a version. A lane batch names a few streams among a version's hundreds
 * of thousands: each is looked up by the whole primary key (the LIMIT keeps the planner from turning the
 * lookups into one join). With `stream_id = any(...)` and no statistics on the table (autovacuum off, or
 * not run yet), the planner scanned every guard row of the version for each batch: 93 ms at 56,000 rows in
 * the soak, more with every lineage. A rebuild's batch of thousands of streams is one set-wise read.
 */
export function guardRowsOf(version: { name: string; version: number }, ids: readonly string[]): RawBuilder<{ stream_id: string; revision: number }> {
  return ids.length <= 1000
    ? sql`select r.stream_id, r.revision from unnest(${[...ids]}::text[]) as s(id)
        cross join lateral (select stream_id, revision from projection_stream_revisions
          where projection = ${version.name} and version = ${version.version} and stream_id = s.id limit 1) r`
    : sql`select stream_id, revision from projection_stream_revisions
        where projection = ${version.name} and version = ${version.version} and stream_id = any(${[...ids]})`;
}

/**
 * The per-lineage guard, for every path that writes a version (lane batches, rebuild batches,
 * catch-ups, one-user rebuilds): drops events already applied (revision at or below the stream's
 * last), throws StreamRevisionError for a gap, records the new last revisions, and returns what is
 * left to apply, in order. Runs in the caller's transaction, so guard rows and read model rows commit
 * together.
 */
export async function guardRevisions<E extends ProjectedEvent>(
  trx: Kysely<any>,
  version: { name: string; version: number; revisionGuard: boolean },
  events: readonly E[],
): Promise<E[]> {
  const { fresh, last } = await checkRevisions(trx, version, events);
  await writeRevisions(trx, version, last);
  return fresh;
}

/**
 * The guard's read and check alone: what is left to apply, and each stream's new last revision, for the
 * caller to record in the same transaction (a lane batch records them with its checkpoint, one statement).
 */
export async function checkRevisions<E extends ProjectedEvent>(
  trx: Kysely<any>,
  version: { name: string; version: number; revisionGuard: boolean },
  events: readonly E[],
): Promise<{ fresh: E[]; last: Array<[string, number]> }> {
  if (!events.length) return { fresh: [], last: [] };
  const ids = [...new Set(events.map((e) => e.streamId))];
  const known = await guardRowsOf(version, ids).execute(trx);
  const last = new Map(known.rows.map((r) => [r.stream_id, Number(r.revision)]));
  const changed = new Map<string, number>();
  const fresh: E[] = [];
  for (const e of events) {
    const l = last.get(e.streamId);
    // Revisions are applied contiguously, so one at or below the last is applied already.
    if (l !== undefined && e.revision <= l) continue;
    const expected = l !== undefined ? l + 1 : version.revisionGuard ? 0 : e.revision;
    if (e.revision !== expected) throw new StreamRevisionError(version.name, version.version, e.streamId, expected, e.revision);
    last.set(e.streamId, e.revision);
    changed.set(e.streamId, e.revision);
    fresh.push(e);
  }
  return { fresh, last: [...changed] };
}

/** Records streams' last applied revisions. */
async function writeRevisions(trx: Kysely<any>, version: { name: string; version: number }, entries: ReadonlyArray<readonly [string, number]>): Promise<void> {
  // Two array parameters per statement, not four parameters per row: a one-user recompute of 250,000
  // events records some 100,000 lineages.
  for (let i = 0; i < entries.length; i += 50_000) {
    await revisionsUpsert(version, entries.slice(i, i + 50_000)).execute(trx);
  }
}

/** The guard rows' upsert of some streams' last revisions, as a statement or a part of one (a data-modifying CTE). */
const revisionsUpsert = (version: { name: string; version: number }, entries: ReadonlyArray<readonly [string, number]>): RawBuilder<unknown> =>
  sql`insert into projection_stream_revisions (projection, version, stream_id, revision)
    select ${version.name}, ${version.version}, s, r from unnest(${entries.map((c) => c[0])}::text[], ${entries.map((c) => c[1])}::int[]) as x(s, r)
    on conflict (projection, version, stream_id) do update set revision = excluded.revision`;

/**
 * Each stream's last revision in a one-user recompute's events (all of the user's events up to the
 * lane's checkpoint, so every stream from revision 0, with no gap: StreamRevisionError for a gap), as
 * they go by: the events may come a batch at a time, each stream's in revision order.
 */
export class LastRevisions {
  readonly last = new Map<string, number>();
  events = 0;
  readonly #version: { name: string; version: number };

  constructor(version: { name: string; version: number }) {
    this.#version = version;
  }

  add(events: readonly ProjectedEvent[]): void {
    for (const e of events) {
      const l = this.last.get(e.streamId);
      const expected = l === undefined ? 0 : l + 1;
      if (e.revision !== expected) throw new StreamRevisionError(this.#version.name, this.#version.version, e.streamId, expected, e.revision);
      this.last.set(e.streamId, e.revision);
    }
    this.events += events.length;
  }
}

/**
 * The stream guard of a one-user recompute: each of the user's streams recorded at its last revision
 * (`LastRevisions`), and the guard rows of the user's streams that have no event removed. Only rows that
 * differ are written. Returns what it wrote.
 */
export async function replaceStreamRevisions(
  trx: Kysely<any>,
  version: { name: string; version: number },
  prefixes: readonly string[],
  last: ReadonlyMap<string, number>,
): Promise<RowChanges> {
  const known = new Map<string, number>();
  for (const prefix of prefixes) {
    const r = await sql<{ stream_id: string; revision: number }>`select stream_id, revision from projection_stream_revisions
      where projection = ${version.name} and version = ${version.version} and left(stream_id, ${prefix.length}) = ${prefix}`.execute(trx);
    for (const row of r.rows) known.set(row.stream_id, Number(row.revision));
  }
  const stale = [...known.keys()].filter((s) => !last.has(s));
  const write = [...last].filter(([s, r]) => known.get(s) !== r);
  if (stale.length) {
    await sql`delete from projection_stream_revisions where projection = ${version.name} and version = ${version.version} and stream_id = any(${stale}::text[])`.execute(trx);
  }
  await writeRevisions(trx, version, write);
  const updated = write.filter(([s]) => known.has(s)).length;
  return { inserted: write.length - updated, updated, deleted: stale.length };
}

export interface AppliedCount {
  projection: string;
  version: number;
  applied: number;
}

/**
 * Takes the lane's lock (see lockSwitchSharedAndLane) and reads one lane checkpoint of a version,
 * creating it when missing. For a transaction that holds the switch lock shared.
 */
export async function lockCheckpoint(trx: Kysely<any>, name: string, version: number, lane: number): Promise<LogPosition> {
  await lockLane(trx, lane);
  return readLaneCheckpoint(trx, name, version, lane);
}

/** One lane checkpoint of a version, created when missing; the caller holds the lane's lock. */
async function readLaneCheckpoint(trx: Kysely<any>, name: string, version: number, lane: number): Promise<LogPosition> {
  const read = () => sql<{ commit: string; prepare: string }>`
    select commit::text as commit, prepare::text as prepare from projection_checkpoints
    where projection = ${name} and version = ${version} and lane = ${lane}`.execute(trx);
  let rows = (await read()).rows;
  if (!rows[0]) {
    // A lane added after the version went live starts empty: every event it will receive is new.
    const s = posParams(START);
    await sql`insert into projection_checkpoints (projection, version, lane, commit, prepare)
      values (${name}, ${version}, ${lane}, ${s.commit}, ${s.prepare}) on conflict do nothing`.execute(trx);
    rows = (await read()).rows;
  }
  return rowPosition(rows[0]!);
}

/**
 * A lane batch's last write, one statement: the streams' new last revisions (the guard) and the lane's
 * checkpoint with the events applied.
 */
async function writeLaneBatchEnd(
  trx: Kysely<any>,
  version: { name: string; version: number },
  lane: number,
  revisions: ReadonlyArray<readonly [string, number]>,
  position: LogPosition,
  applied: number,
): Promise<void> {
  const p = posParams(position);
  await sql`with guard as (${revisionsUpsert(version, revisions)})
    update projection_checkpoints set commit = ${p.commit}, prepare = ${p.prepare}, events_applied = events_applied + ${applied}, updated_at = now()
    where projection = ${version.name} and version = ${version.version} and lane = ${lane}`.execute(trx);
}

/** The registry's rows, each with its checkpoint of one lane (null where the lane has none). */
async function readRegistryWithLane(trx: Kysely<any>, lane: number): Promise<Array<{ row: RegistryRow; checkpoint: LogPosition | null }>> {
  const { rows } = await sql<Record<string, unknown> & { cp_commit: string | null; cp_prepare: string | null }>`
    select r.*, c.commit::text as cp_commit, c.prepare::text as cp_prepare from projection_registry r
    left join projection_checkpoints c on c.projection = r.name and c.version = r.version and c.lane = ${lane}
    order by r.name, r.version`.execute(trx);
  return rows.map((r) => ({ row: registryRow(r), checkpoint: r.cp_commit === null ? null : rowPosition({ commit: r.cp_commit, prepare: r.cp_prepare! }) }));
}

/**
 * Applies one lane batch to every live projection, each together with its (projection, version,
 * lane) checkpoint, in ONE transaction. Events at or before a checkpoint are skipped, so a job
 * delivered twice or re-run after a stall changes nothing. The BullMQ lane worker and the in-process
 * runner both call exactly this.
 *
 * Its statements, in order: the switch lock (shared) with the lane's lock; the registry with the lane's
 * checkpoints (after the locks, so it sees every switch committed before them); per live version, the
 * guard's read, the projection's reads and writes, and one write of the guard rows with the checkpoint.
 * Nothing is written before the projection's first write, so the transaction takes its id late and the
 * log's readers, which wait for every transaction older than an event, are held back only that long.
 */
export async function applyLaneBatch(db: Kysely<any>, projections: readonly Projection[], batch: LaneBatch): Promise<AppliedCount[]> {
  const last = batch.events.at(-1);
  if (!last) return [];
  return db.transaction().execute(async (trx) => {
    await lockSwitchSharedAndLane(trx, batch.lane);
    const registry = await readRegistryWithLane(trx, batch.lane);
    // Every live version must be one this code applies: acknowledging a batch that skipped one would
    // leave that version's lane checkpoint behind for good (a hole, then LaneGapError forever).
    const live = applicableLive(projections, registry.map((r) => r.row));
    const out: AppliedCount[] = [];
    for (const { projection, row } of live) {
      const checkpoint = registry.find((r) => r.row === row)!.checkpoint ?? (await readLaneCheckpoint(trx, row.name, row.version, batch.lane));
      if (comparePositions(batch.prev, checkpoint) > 0) throw new LaneGapError(row.name, batch.lane, batch.prev, checkpoint);
      const { fresh, last: revisions } = await checkRevisions(
        trx,
        row,
        batch.events.filter((e) => comparePositions(e.position, checkpoint) > 0 && matchesPrefixes(e.streamId, projection.streamPrefixes)),
      );
      if (fresh.length) await projection.apply({ trx, tables: row.tables, mode: 'live' }, fresh);
      const next = maxPosition(checkpoint, last.position);
      if (comparePositions(next, checkpoint) !== 0) await writeLaneBatchEnd(trx, row, batch.lane, revisions, next, fresh.length);
      out.push({ projection: row.name, version: row.version, applied: fresh.length });
    }
    return out;
  });
}
