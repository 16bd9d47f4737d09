import { sql, type Kysely } from 'kysely';
import { codeVersionLabel } from '@oj/contracts/operations';
import { START, comparePositions, positionToString, type EventStore, type LogPosition } from '@oj/infra/eventstore/port';
import type { Projection } from './projection.ts';
import { laneOf, matchesPrefixes, maxPosition, minPosition, posParams, rowPosition } from './lanes.ts';

export type VersionStatus = 'live' | 'building' | 'retired';

export interface RegistryRow {
  name: string;
  version: number;
  codeVersion: number;
  status: VersionStatus;
  lanes: number;
  /** Logical -> physical table names of this version. */
  tables: Record<string, string>;
  counts: Record<string, number>;
  createdAt: Date;
  updatedAt: Date;
  liveSince: Date | null;
  retiredAt: Date | null;
  /** Built with the per-lineage guard from its first event (a stream with no guard row starts at revision 0). */
  revisionGuard: boolean;
}

export class ProjectionNotLiveError extends Error {
  constructor(name: string) {
    super(`Read model ${name} has no live version yet: the projector builds it on start (or run \`npm run projections -- rebuild ${name}\`).`);
    this.name = 'ProjectionNotLiveError';
  }
}

const parseJson = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

/** A registry row as read (`select *` of projection_registry). */
export function registryRow(r: any): RegistryRow {
  return {
    name: r.name,
    version: Number(r.version),
    codeVersion: Number(r.code_version),
    status: r.status,
    lanes: Number(r.lanes),
    tables: parseJson(r.tables),
    counts: parseJson(r.counts) ?? {},
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    liveSince: r.live_since ?? null,
    retiredAt: r.retired_at ?? null,
    revisionGuard: r.revision_guard === true,
  };
}

/**
 * Physical table names of a read model's live version, by logical name. Query code calls this on
 * every request: it is one read on the partial unique index `(name) where status = 'live'`, so a
 * switch (another process, another transaction) is visible to the very next query without any cache
 * to invalidate.
 */
export async function liveTables(db: Kysely<any>, projectionName: string): Promise<Record<string, string>> {
  const row = await db.selectFrom('projection_registry').select('tables').where('name', '=', projectionName).where('status', '=', 'live').executeTakeFirst();
  if (!row) throw new ProjectionNotLiveError(projectionName);
  return parseJson(row.tables);
}

export async function readRegistry(db: Kysely<any>, name?: string): Promise<RegistryRow[]> {
  let q = db.selectFrom('projection_registry').selectAll().orderBy('name').orderBy('version');
  if (name) q = q.where('name', '=', name);
  return (await q.execute()).map(registryRow);
}

/**
 * Hands out a read model's next version number and records it: one above both the registry's highest and
 * every number handed out before (`projection_versions_issued`), so a number is never handed out twice,
 * even after its version was abandoned or dropped; `first` (the code's version) when none was. Called
 * under the projection's rebuild lock, so two callers cannot take the same number.
 */
export async function issueVersion(db: Kysely<any>, name: string, first: number): Promise<number> {
  const r = await sql<{ version: number }>`
    insert into projection_versions_issued (name, last_version)
    values (${name}, coalesce(greatest(
      (select max(version) + 1 from projection_registry where name = ${name}),
      (select last_version + 1 from projection_versions_issued where name = ${name})), ${first}))
    on conflict (name) do update set last_version = excluded.last_version
    returning last_version as version`.execute(db);
  return Number(r.rows[0]!.version);
}

export async function liveRow(db: Kysely<any>, name: string): Promise<RegistryRow | undefined> {
  return (await readRegistry(db, name)).find((r) => r.status === 'live');
}

/** Checkpoints of one version, by lane. */
export async function readCheckpoints(db: Kysely<any>, name: string, version: number): Promise<Map<number, LogPosition>> {
  const rows = await sql<{ lane: number; commit: string; prepare: string }>`
    select lane, commit::text as commit, prepare::text as prepare from projection_checkpoints
    where projection = ${name} and version = ${version}`.execute(db);
  return new Map(rows.rows.map((r) => [Number(r.lane), rowPosition(r)]));
}

export interface DispatcherState {
  checkpoint: LogPosition;
  lanes: number | null;
  /** The term of the dispatcher elected last (0 before any election). */
  term: number;
  /** Per lane: last position handed to it. */
  lastDispatched: Map<number, LogPosition>;
}

/**
 * How many lanes may hold work of a dispatcher state: its recorded count (`fallback` before any), and
 * every lane something was handed to beyond it (one a release left behind before the lane rows were
 * re-keyed).
 */
export const lanesHandedOut = (state: DispatcherState, fallback: number): number => Math.max(state.lanes ?? fallback, ...[...state.lastDispatched.keys()].map((l) => l + 1));

export async function readDispatcher(db: Kysely<any>): Promise<DispatcherState> {
  const d = await sql<{ commit: string; prepare: string; lanes: number; term: string }>`
    select commit::text as commit, prepare::text as prepare, lanes, term::text as term from projector_dispatcher where id = 'main'`.execute(db);
  const l = await sql<{ lane: number; commit: string; prepare: string }>`
    select lane, commit::text as commit, prepare::text as prepare from projector_lanes`.execute(db);
  const row = d.rows[0];
  return {
    checkpoint: row ? rowPosition(row) : START,
    lanes: row ? Number(row.lanes) : null,
    term: row ? Number(row.term) : 0,
    lastDispatched: new Map(l.rows.map((r) => [Number(r.lane), rowPosition(r)])),
  };
}

/** Thrown when a dispatcher's term is no longer the current one: another dispatcher was elected since. */
export class DispatcherFencedError extends Error {
  constructor(term: number, current: number) {
    super(`This dispatcher's term ${term} ended (term ${current} was elected since): its write is refused and it steps down`);
    this.name = 'DispatcherFencedError';
  }
}

/** Takes the next dispatcher term (creating the row on a first start): called once per election. */
export async function claimTerm(db: Kysely<any>, lanes: number): Promise<number> {
  const s = posParams(START);
  // The first dispatcher of a deployment records the lane count the live versions' checkpoints are keyed
  // by, not its own: a rebuild run before any projector (the CLI with another PROJECTOR_LANES) keys them
  // by the CLI's count. Recorded as its own, the change would go unseen (no re-keying), and a lane the
  // versions have no checkpoint for would count as having applied nothing: a one-user recompute then
  // deleted that user's rows, and the lane was handed the whole log again. Recorded as theirs, the
  // dispatcher re-keys them to its own count before its first read (`relane`), as after any change.
  const r = await sql<{ term: string }>`insert into projector_dispatcher (id, commit, prepare, lanes, term)
    values ('main', ${s.commit}, ${s.prepare}, coalesce((select max(lanes) from projection_registry where status = 'live' and lanes <> ${lanes}), ${lanes}), 1)
    on conflict (id) do update set term = projector_dispatcher.term + 1, updated_at = now() returning term::text as term`.execute(db);
  return Number(r.rows[0]!.term);
}

/** Locks the dispatcher row in the open transaction and throws DispatcherFencedError unless it holds `term`. */
export async function checkTerm(trx: Kysely<any>, term: number): Promise<void> {
  const r = await sql<{ term: string }>`select term::text as term from projector_dispatcher where id = 'main' for update`.execute(trx);
  const current = Number(r.rows[0]?.term ?? 0);
  if (current !== term) throw new DispatcherFencedError(term, current);
}

/**
 * Records a dispatched read: the dispatcher's checkpoint and each lane's last position, only while the
 * row still holds `term` (fencing: a leader that lost its lock without noticing cannot move positions
 * backwards behind a newer leader's). One statement, so one round trip and one transaction: its update
 * checks the term itself (a row another leader is changing is waited for and read again, as `for update`
 * did), and the lanes are written only if it did.
 */
export async function recordDispatch(db: Kysely<any>, term: number, lanes: number, checkpoint: LogPosition, dispatched: ReadonlyMap<number, LogPosition>): Promise<void> {
  const c = posParams(checkpoint);
  const handed = [...dispatched].map(([lane, p]) => ({ lane, ...posParams(p) }));
  const r = await sql<{ recorded: boolean }>`
    with d as (
      update projector_dispatcher set commit = ${c.commit}, prepare = ${c.prepare}, lanes = ${lanes}, updated_at = now()
      where id = 'main' and term = ${term} returning id
    ), l as (
      insert into projector_lanes (lane, commit, prepare)
      select x.lane, x.commit, x.prepare
      from unnest(${handed.map((h) => h.lane)}::int[], ${handed.map((h) => h.commit)}::numeric[], ${handed.map((h) => h.prepare)}::numeric[]) as x(lane, commit, prepare)
      where exists (select from d)
      on conflict (lane) do update set commit = excluded.commit, prepare = excluded.prepare, updated_at = now()
    )
    select exists (select from d) as recorded`.execute(db);
  if (r.rows[0]?.recorded) return;
  const now = await sql<{ term: string }>`select term::text as term from projector_dispatcher where id = 'main'`.execute(db);
  throw new DispatcherFencedError(term, Number(now.rows[0]?.term ?? 0));
}

/** Replaces a version's checkpoints with one per lane (0..lanes-1), all at `at`. */
export async function writeLaneCheckpoints(trx: Kysely<any>, name: string, version: number, lanes: number, at: LogPosition): Promise<void> {
  await sql`delete from projection_checkpoints where projection = ${name} and version = ${version}`.execute(trx);
  const p = posParams(at);
  for (let lane = 0; lane < lanes; lane++) {
    await sql`insert into projection_checkpoints (projection, version, lane, commit, prepare) values (${name}, ${version}, ${lane}, ${p.commit}, ${p.prepare})`.execute(trx);
  }
}

/** Live versions whose formulas are the running code's (only those the projector can advance). */
export function runnable(projections: readonly Projection[], rows: readonly RegistryRow[]): Array<{ projection: Projection; row: RegistryRow }> {
  const out: Array<{ projection: Projection; row: RegistryRow }> = [];
  for (const projection of projections) {
    const row = rows.find((r) => r.name === projection.name && r.status === 'live');
    if (row && row.codeVersion === projection.version) out.push({ projection, row });
  }
  return out;
}

export interface LaneLag {
  projection: string;
  version: number;
  lane: number;
  checkpoint: string;
  /** Events of this lane in the log after the checkpoint (counted up to `cap`). */
  behindEvents: number;
  /** Age of the oldest of those events by its recorded-at time; 0 when none. */
  behindSeconds: number;
  capped: boolean;
}

/**
 * Exact lag per projection and lane: reads the log (at most `cap` events, so a far-behind projector
 * reports `capped`) and routes each event as the dispatcher does.
 *
 * Where the read starts. A lane that has applied everything the dispatcher handed it has none of its
 * events between its checkpoint and the dispatcher's checkpoint D (they would have been handed to it),
 * so its count can start at D. Starting at the lowest checkpoint instead would be wrong, not just slow:
 * a lane nobody's events were routed to stays at the start of the log, the capped read then covers only
 * the oldest events, and a lane thousands of events behind was reported caught up. While the lane count
 * changes (the recorded count is not `lanes`), nothing is skipped.
 */
export async function readLag(
  db: Kysely<any>,
  eventStore: EventStore,
  projections: readonly Projection[],
  lanes: number,
  options: { cap?: number; now?: () => number } = {},
): Promise<LaneLag[]> {
  const cap = options.cap ?? 10_000;
  const now = (options.now ?? Date.now)();
  const live = runnable(projections, await readRegistry(db));
  const dispatcher = await readDispatcher(db);
  const entries: Array<LaneLag & { prefixes: readonly string[]; cp: LogPosition; oldest: number | null }> = [];
  let from: LogPosition | null = null;
  for (const { projection, row } of live) {
    const cps = await readCheckpoints(db, row.name, row.version);
    for (let lane = 0; lane < lanes; lane++) {
      const cp = cps.get(lane) ?? START;
      const handed = dispatcher.lastDispatched.get(lane) ?? START;
      const drained = dispatcher.lanes === lanes && comparePositions(cp, handed) >= 0;
      const start = drained ? maxPosition(cp, dispatcher.checkpoint) : cp;
      from = from ? minPosition(from, start) : start;
      entries.push({ projection: row.name, version: row.version, lane, checkpoint: positionToString(cp), behindEvents: 0, behindSeconds: 0, capped: false, prefixes: projection.streamPrefixes, cp, oldest: null });
    }
  }
  if (!from) return [];
  const prefixes = [...new Set(live.flatMap((l) => l.projection.streamPrefixes))];
  let after: LogPosition = from;
  let read = 0;
  while (read < cap) {
    const limit = Math.min(2000, cap - read);
    const batch = await eventStore.readAll({ after, streamPrefixes: prefixes, limit, metadata: 'projected' });
    for (const event of batch) {
      const lane = laneOf(event.metadata.userId, lanes);
      for (const e of entries) {
        if (e.lane !== lane || comparePositions(event.position, e.cp) <= 0 || !matchesPrefixes(event.streamId, e.prefixes)) continue;
        e.behindEvents++;
        const at = Date.parse(event.metadata.recordedAt);
        if (e.oldest === null || at < e.oldest) e.oldest = at;
      }
    }
    read += batch.length;
    const last = batch.at(-1);
    if (!last || batch.length < limit) break;
    after = last.position;
  }
  // A read stopped by the cap counted only part of the log: every count is a lower bound, a 0 too.
  const capped = read >= cap;
  return entries.map(({ prefixes: _p, cp: _c, oldest, ...e }) => ({
    ...e,
    behindSeconds: oldest === null ? 0 : Math.max(0, (now - oldest) / 1000),
    capped,
  }));
}

/**
 * The lag of the lanes the dispatcher routes with (the recorded count), or of `fallback` lanes before any
 * dispatcher ran. For a process that reads lag without working the lanes (a gateway's `/metrics`, the
 * console's sampler): its own PROJECTOR_LANES may differ from the deployment's (QA: after a change from
 * 6 lanes back to 4, a gateway still started with 6 reported a lane 5 that no longer existed, 9.9 h behind,
 * and with 4 against the projectors' 6 it hid lanes 4 and 5).
 */
export async function readRoutedLag(db: Kysely<any>, eventStore: EventStore, projections: readonly Projection[], fallback: number, options: { cap?: number; now?: () => number } = {}): Promise<LaneLag[]> {
  return readLag(db, eventStore, projections, await routedLanes(db, fallback), options);
}

/** The lane count the dispatcher routes with (recorded at its election), or `fallback` before any dispatcher ran. */
export async function routedLanes(db: Kysely<any>, fallback: number): Promise<number> {
  return (await readDispatcher(db)).lanes ?? fallback;
}

export interface RebuildProgressRow {
  projection: string;
  version: number;
  checkpoint: string;
  eventsDone: number;
  eventsTotal: number | null;
  startedAt: Date;
  updatedAt: Date;
  /** When its bulk run and finishing step completed (switchable from then on); null while it is not. */
  builtAt: Date | null;
  finishedAt: Date | null;
}

export async function readRebuilds(db: Kysely<any>): Promise<RebuildProgressRow[]> {
  const rows = await sql<any>`
    select projection, version, commit::text as commit, prepare::text as prepare, events_done, events_total, started_at, updated_at, built_at, finished_at
    from projection_rebuilds order by projection, version`.execute(db);
  return rows.rows.map((r) => ({
    projection: r.projection,
    version: Number(r.version),
    checkpoint: positionToString(rowPosition(r)),
    eventsDone: Number(r.events_done),
    eventsTotal: r.events_total === null ? null : Number(r.events_total),
    startedAt: r.started_at,
    updatedAt: r.updated_at,
    builtAt: r.built_at ?? null,
    finishedAt: r.finished_at ?? null,
  }));
}

export interface ProjectionStatus {
  name: string;
  codeVersion: number | null;
  versions: Array<Omit<RegistryRow, 'tables'> & { tables: Record<string, string>; checkpoints: Array<{ lane: number; position: string }> }>;
  rebuilds: RebuildProgressRow[];
  lag: LaneLag[];
  /** Set when the live version was built by other formulas than the running code's: a rebuild is due. */
  warning?: string;
  /**
   * Set when the live version's lag is not measured: the running code does not project it (version skew,
   * or a read model the code does not have), so its lanes apply nothing here and `lag` is empty. Never
   * read as "caught up".
   */
  lagUnknown?: string;
}

/** Everything an operator asks first: versions, statuses, checkpoints, rebuild progress, lag. */
export async function projectionStatus(db: Kysely<any>, eventStore: EventStore, projections: readonly Projection[], lanes: number): Promise<ProjectionStatus[]> {
  const rows = await readRegistry(db);
  const rebuilds = await readRebuilds(db);
  const lag = await readLag(db, eventStore, projections, lanes);
  const names = [...new Set([...projections.map((p) => p.name), ...rows.map((r) => r.name)])].sort();
  const out: ProjectionStatus[] = [];
  for (const name of names) {
    const code = projections.find((p) => p.name === name);
    const versions = [];
    for (const row of rows.filter((r) => r.name === name)) {
      const cps = await readCheckpoints(db, name, row.version);
      versions.push({ ...row, checkpoints: [...cps].sort(([a], [b]) => a - b).map(([lane, p]) => ({ lane, position: positionToString(p) })) });
    }
    const live = versions.find((v) => v.status === 'live');
    const status: ProjectionStatus = { name, codeVersion: code?.version ?? null, versions, rebuilds: rebuilds.filter((r) => r.projection === name), lag: lag.filter((l) => l.projection === name) };
    if (!code) status.warning = 'not in the running code catalogue';
    else if (!live) status.warning = 'no live version';
    else if (live.codeVersion !== code.version) status.warning = `live version was built by ${codeVersionLabel(live.codeVersion)}, the code runs ${codeVersionLabel(code.version)}: run a rebuild`;
    // readLag measures only the versions this code projects (`runnable`): for any other live version an
    // empty lag means "not measured", not "caught up" (QA: version skew printed "lag: caught up").
    if (live && !code) status.lagUnknown = `unknown: the running code has no ${name} read model, so it does not project live v${live.version}`;
    else if (live && code && live.codeVersion !== code.version) {
      status.lagUnknown = `unknown: live v${live.version} was built by ${codeVersionLabel(live.codeVersion)} and the code runs ${codeVersionLabel(code.version)} (version skew), so this code does not project it`;
    } else if (!live && code) {
      // Nothing is projected yet (a journal seeded or restored before any start): not "caught up" (QA 71).
      status.lagUnknown = `none measured: no version is live yet, so no read model shows the journal; the projector builds one at its next start, or run \`rebuild ${name}\``;
    }
    out.push(status);
  }
  return out;
}
