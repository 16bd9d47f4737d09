import { describeRowChanges, STALE_CHOICE_RESOLUTION, type DiffResponse, type RebuildState } from '@oj/contracts/operations';
import type { Projection } from '@oj/projections/runtime/projection';
import { readRebuilds, readRegistry, type RegistryRow } from '@oj/projections/runtime/registry';
import { abandon, diff, eventsAfterVersion, OperatorCommandBusyError, RebuildLockedError, retire, rollback, StaleVersionError, switchVersion, UnfinishedBuildError, versionToCompare, type RuntimeDeps } from '@oj/projections/runtime/rebuild';
import { sql } from 'kysely';
import { diffFigures } from '@oj/projections/runtime/diff-figures';
import { AppError } from '../app/errors.ts';
import { isFinished, type RebuildRunner } from './rebuilds.ts';
import type { ActionInput } from './actions.ts';

/**
 * The console's operator commands over the projector runtime's own functions (rebuild.ts): each one
 * first checks what would make it impossible and answers that as a 4xx with a message saying what to
 * do, then calls the runtime, whose own refusals (thrown as plain errors) are mapped the same way.
 */

const conflict = (message: string, resolution?: string) => new AppError('conflict', message, resolution ? { resolution } : {});

export function codeProjection(deps: RuntimeDeps, name: string): Projection {
  const p = deps.projections.find((x) => x.name === name);
  if (!p) throw new AppError('not_found', `Unknown projection ${name}.`, { detail: { known: deps.projections.map((x) => x.name) } });
  return p;
}

async function versions(deps: RuntimeDeps, name: string): Promise<RegistryRow[]> {
  codeProjection(deps, name);
  return readRegistry(deps.database.db, name);
}

/** The runtime's refusals are plain errors with operator-facing messages: those become 409s. */
const RUNTIME_REFUSALS = [/cannot catch up/, /has no version/, /no retired version/, /is not a retired version/, /keeps moving/, /keep moving/, /has no live version/, /no building version/, /not finished/, /not built/];
export function mapRuntimeError(error: unknown): never {
  // The operator's choice was made from a state that changed since: said in the message itself, since
  // that is what the console shows under the dialog.
  if (error instanceof StaleVersionError) throw conflict(`${error.message} ${STALE_CHOICE_RESOLUTION}`, STALE_CHOICE_RESOLUTION);
  if (error instanceof OperatorCommandBusyError) throw conflict(error.message, 'Wait for it to finish, look at the versions again, then try again.');
  if (error instanceof RebuildLockedError) throw conflict(error.message, 'Wait for the running rebuild to finish, then try again.');
  if (error instanceof UnfinishedBuildError) throw conflict(error.message, 'Rebuild it again from this page: it resumes from its checkpoint.');
  if (error instanceof Error && error.constructor === Error && RUNTIME_REFUSALS.some((r) => r.test(error.message))) throw conflict(error.message);
  throw error;
}

/**
 * A rebuild of `name` that this console runs now. One running anywhere else holds the projection's
 * rebuild lock, which the runtime's command takes itself and refuses on (RebuildLockedError). Probing
 * that lock here instead would read another operator's switch or rollback, which holds it for a moment,
 * as a rebuild running.
 */
async function assertNoRebuildRunning(runner: RebuildRunner, name: string, what: string): Promise<void> {
  const active = (await runner.list()).find((s) => s.projection === name && !s.userId && !isFinished(s));
  if (active) throw conflict(`A rebuild of ${name} is running${active.version ? ` (v${active.version}, ${active.phase})` : ''}: ${what} once it has finished.`, 'Follow its progress on this page.');
}

/** A switch to the live version changes nothing and is refused, by the console and the CLI alike. */
export const alreadyLive = (name: string, version: number): string => `${name} v${version} is already live.`;

const liveNow = (rows: RegistryRow[], version: number) => {
  const before = rows.find((r) => r.status === 'live');
  return before && before.version !== version ? `; v${before.version} is retired, kept for a rollback` : '';
};

export async function switchTo(deps: RuntimeDeps, runner: RebuildRunner, name: string, version: number): Promise<string> {
  const rows = await versions(deps, name);
  const target = rows.find((r) => r.version === version);
  if (!target) throw new AppError('not_found', `${name} has no version ${version}.`);
  if (target.status === 'live') throw conflict(alreadyLive(name, version));
  await assertNoRebuildRunning(runner, name, 'switch');
  if (target.status === 'building') {
    const progress = (await readRebuilds(deps.database.db)).find((r) => r.projection === name && r.version === version);
    // The rebuild marks the end of its bulk run and finishing step (built_at); until then the version
    // lacks what only that step computes (e.g. the daily premium records).
    const built = await sql<{ built: boolean }>`select built_at is not null as built from projection_rebuilds where projection = ${name} and version = ${version}`.execute(deps.database.db);
    const last = (await runner.list()).find((s) => s.projection === name && !s.userId && s.version === version);
    if (last?.phase === 'failed') throw conflict(`${name} v${version} is not fully built: its rebuild failed (${last.error}).`, 'Fix the cause and rebuild: it resumes from its checkpoint.');
    if (!progress || !built.rows[0]?.built) {
      throw conflict(
        progress && progress.eventsTotal !== null && progress.eventsDone >= progress.eventsTotal
          ? `${name} v${version} is not fully built: its rebuild stopped before its finishing step.`
          : `${name} v${version} is not fully built: its rebuild stopped at ${progress?.eventsDone ?? 0} of ${progress?.eventsTotal ?? '?'} events.`,
        'Rebuild it again: it resumes from its checkpoint, then switch.',
      );
    }
  }
  // switchVersion catches the target up (in batches, then in its switch transaction) before it flips.
  await switchVersion(deps, name, version).catch(mapRuntimeError);
  return `${name} v${version} is live${target.status === 'retired' ? ' again' : ''}${liveNow(rows, version)}.`;
}

/** What became of a version the registry no longer holds, as far as the database knows. */
export type VersionFate = 'never built' | 'abandoned' | 'retired for good' | 'gone';

export async function fateOf(db: RuntimeDeps['database']['db'], name: string, version: number): Promise<VersionFate> {
  // Version numbers are handed out once each (projection_versions_issued): above the last one, never built.
  const issued = await sql<{ last: number }>`select last_version as last from projection_versions_issued where name = ${name}`.execute(db);
  const last = issued.rows[0]?.last;
  if (last === undefined || version > Number(last)) return 'never built';
  // The operator log says which command dropped it, when one did (console and CLI alike).
  const dropped = await sql<{ action: string }>`select action from operator_actions
    where projection = ${name} and version = ${version} and outcome = 'ok' and action in ('abandon', 'retire')
    order by at desc, id desc limit 1`.execute(db);
  const action = dropped.rows[0]?.action;
  return action === 'abandon' ? 'abandoned' : action === 'retire' ? 'retired for good' : 'gone';
}

/**
 * A rollback or abandon that named a version the registry no longer has: the runtime can only guess
 * ("abandoned, or retired for good", "retired for good (or never built)"), so the refusal is said again
 * from what is known (QA: v204 named before it existed read "it is gone"; an abandoned v205 read "retired
 * for good"). Any other error is given back as it is.
 */
export async function explainGone(deps: RuntimeDeps, name: string, version: number | undefined, command: 'rollback' | 'abandon', error: unknown): Promise<unknown> {
  if (!(error instanceof StaleVersionError) || version === undefined) return error;
  if ((await readRegistry(deps.database.db, name)).some((r) => r.version === version)) return error;
  const fate = await fateOf(deps.database.db, name, version);
  if (fate === 'gone') return error;
  const said =
    fate === 'never built' ? `${name} has no v${version}: it was never built.`
    : command === 'rollback' ? `${name} has no v${version} to roll back to now: it was ${fate}.`
    : `${name} v${version} is no longer building: it was ${fate}.`;
  return new StaleVersionError(said);
}

/**
 * Rolls back to `to`, the version the operator chose, replacing `from` when given. The runtime checks
 * both under the projection's locks, so the check and the switch cannot be split by another operator's.
 */
export async function rollBack(deps: RuntimeDeps, runner: RebuildRunner, name: string, to: number, from?: number): Promise<{ message: string; version: number }> {
  await versions(deps, name);
  await assertNoRebuildRunning(runner, name, 'roll back');
  const r = await rollback(deps, name, { to, ...(from !== undefined ? { from } : {}) }).catch(async (e: unknown) => mapRuntimeError(await explainGone(deps, name, to, 'rollback', e)));
  return { message: `${name} rolled back from v${r.from ?? '-'} to v${r.to}.`, version: r.to };
}

export async function retireVersions(deps: RuntimeDeps, name: string, version?: number): Promise<{ message: string; versions: number[] }> {
  const rows = await versions(deps, name);
  if (version !== undefined) {
    const row = rows.find((r) => r.version === version);
    if (!row) throw new AppError('not_found', `${name} has no version ${version}.`);
    if (row.status !== 'retired') throw conflict(`${name} v${version} is ${row.status}: only a retired version can be retired.`);
  } else if (!rows.some((r) => r.status === 'retired')) throw conflict(`${name} has no retired version to retire.`);
  const dropped = await retire(deps, name, version).catch(mapRuntimeError);
  return { message: `Retired ${name} ${dropped.map((v) => `v${v}`).join(', ')}: tables dropped, no rollback to ${dropped.length === 1 ? 'it' : 'them'}.`, versions: dropped };
}

/** Abandons `version`, the build the operator chose: refused (409) under the runtime's locks when it is no longer the one building. */
export async function abandonBuild(deps: RuntimeDeps, runner: RebuildRunner, name: string, version: number): Promise<{ message: string; version: number }> {
  await versions(deps, name);
  await assertNoRebuildRunning(runner, name, 'abandon it');
  const v = await abandon(deps, name, version).catch(async (e: unknown) => mapRuntimeError(await explainGone(deps, name, version, 'abandon', e)));
  if (v === null) throw conflict(`${name} has no building version to abandon.`);
  return { message: `Abandoned ${name} v${v}: its tables are dropped.`, version: v };
}

/** Whole-row diff (runtime) and per-figure deltas by key (diff-figures) of a version against live. */
export async function diffVersions(deps: RuntimeDeps, name: string, version?: number): Promise<DiffResponse> {
  const rows = await versions(deps, name);
  const live = rows.find((r) => r.status === 'live');
  if (!live) throw conflict(`${name} has no live version to compare with.`);
  const other = versionToCompare(rows, version);
  if (!other) {
    if (version !== undefined) throw new AppError('not_found', `${name} has no version ${version}.`);
    throw conflict(`${name} has no building version to compare with.`, 'Rebuild it without switching first, or pick a retired version.');
  }
  if (other.version === live.version) throw conflict(`${name} v${other.version} is the live version: pick another version to compare with it.`);
  const tables = await diff(deps, name, other.version).catch(mapRuntimeError);
  const otherBehind = await eventsAfterVersion(deps, codeProjection(deps, name), other);
  const { keyed, figures } = await diffFigures(deps.database.db, live.tables, other.tables, { categoryColumns: codeProjection(deps, name).categoryColumns ?? {} });
  const identical = tables.every((t) => !t.onlyInLive && !t.onlyInOther && !t.totals.length && !t.categories.length && !t.shapeChanged && t.rowsLive === t.rowsOther);
  // Sample rows go to a browser as JSON: bigint and Date values are made plain.
  const plain = (rows: unknown[]) => JSON.parse(JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))) as Array<Record<string, unknown>>;
  return {
    projection: name,
    live: { version: live.version, codeVersion: live.codeVersion },
    other: { version: other.version, codeVersion: other.codeVersion, status: other.status },
    identical,
    otherBehind,
    tables: tables.map((t) => ({ ...t, sampleOnlyInLive: plain(t.sampleOnlyInLive), sampleOnlyInOther: plain(t.sampleOnlyInOther) })),
    keyed,
    figures: figures.map((f) => ({ ...f, samples: plain(f.samples) as typeof f.samples })),
  };
}

/**
 * The operator log's line for a rebuild request. A request that finds the same job queued or running
 * follows it, and that job's own options apply (docs/operations.md): the line describes the job from
 * its state, never from the request (QA: "(switches when built)" for a running job started without
 * switching, which would not switch), and says so when the request asked otherwise.
 */
export function rebuildMessage(state: RebuildState, request: { existing: boolean; switchRequested: boolean; unknownUser: boolean }): string {
  const what = state.userId
    ? `Rebuild of ${state.projection} for user ${state.userEmail ? `${state.userEmail} (${state.userId})` : state.userId}`
    : `Rebuild of ${state.projection}${state.version ? ` v${state.version}` : ''}${state.switch ? ' (switches when built)' : ' beside the live version'}`;
  const unknown = request.unknownUser ? ' No user account has this id.' : '';
  if (request.existing) {
    const differs = !state.userId && state.switch !== request.switchRequested;
    const options = differs ? ` Its own options apply: it ${state.switch ? 'switches' : 'does not switch'} when built.` : '';
    return `${what}: already ${state.phase === 'queued' ? 'queued' : 'running'}, following it.${options}${unknown}`;
  }
  if (state.phase === 'done') return `${what}: done (${state.eventsDone} events)${state.changes ? `; ${describeRowChanges(state.changes)}` : ''}.${unknown}`;
  return `${what}: ${state.phase === 'queued' ? 'queued' : 'started'}.${unknown}`;
}

/**
 * The operator log's entry for how a rebuild ended (built beside live, switched live, one user's rows
 * recomputed, or failed), or null while it runs. Its own entry, after the one of the request: the log is
 * append-only, and a rebuild ends long after it was asked for (or, in services mode, on a projector).
 * The ref names this run of this rebuild (its id and start), so every console that sees the end, and
 * the CLI that follows it, append it once between them.
 */
export function rebuildEnd(state: RebuildState): (ActionInput & { ref: string }) | null {
  if (state.phase !== 'done' && state.phase !== 'failed') return null;
  const what = state.userId
    ? `Rebuild of ${state.projection} for user ${state.userEmail ? `${state.userEmail} (${state.userId})` : state.userId}`
    : `Rebuild of ${state.projection}${state.version ? ` v${state.version}` : ''}`;
  const by = state.requestedBy ? ` (asked for by ${state.requestedBy})` : '';
  const ended =
    state.phase === 'failed'
      ? `failed: ${state.error ?? 'no reason given'}`
      : state.userId
        ? `done (${state.eventsDone} events): ${state.changes ? describeRowChanges(state.changes) : 'recomputed'}`
        : state.switch
          ? `built and switched: now live (${state.eventsDone} events)`
          : `built beside the live version, not switched: compare, then switch or abandon it (${state.eventsDone} events)`;
  return {
    action: state.userId ? 'rebuild-user' : 'rebuild',
    projection: state.projection,
    version: state.version,
    userId: state.userId,
    outcome: state.phase === 'failed' ? 'failed' : 'ok',
    message: `${what}${by} ended: ${ended}.`,
    ref: `${state.id}@${state.startedAt}:end`,
  };
}

/** Checks a rebuild request before it is queued: the projection exists and, for one user, has a live version built by this code. */
export async function checkRebuild(deps: RuntimeDeps, name: string, userId?: string): Promise<void> {
  const projection = codeProjection(deps, name);
  if (!userId) return;
  const live = (await readRegistry(deps.database.db, name)).find((r) => r.status === 'live');
  if (!live || live.codeVersion !== projection.version) {
    throw conflict(`${name} has no live version built by the running code (v${projection.version}): rebuild the whole projection first.`);
  }
}


/**
 * Embedded mode runs the console's rebuilds in the gateway process, so a restart stops them. At start,
 * a build the console started (its last action on that read model is that rebuild) and that did not
 * finish is resumed from its checkpoint. It never switches by itself after a restart: the operator
 * compares first. (With REDIS_URL the rebuild is a BullMQ job, which the next projector resumes.)
 */
export async function interruptedBuilds(deps: RuntimeDeps): Promise<Array<{ projection: string; requestedBy: string }>> {
  const out: Array<{ projection: string; requestedBy: string }> = [];
  const db = deps.database.db;
  for (const p of deps.projections) {
    const building = (await readRegistry(db, p.name)).find((r) => r.status === 'building');
    if (!building || building.codeVersion !== p.version) continue;
    const built = await sql<{ built: boolean }>`select built_at is not null as built from projection_rebuilds where projection = ${p.name} and version = ${building.version}`.execute(db);
    if (built.rows[0]?.built) continue;
    // The console's own requests: a rebuild's end (the system's entry) is not one, and a CLI rebuild
    // stopped half-way is the CLI's to run again (docs/operations.md), not the console's to resume.
    const last = await sql<{ action: string; outcome: string; actor_email: string; actor_role: string }>`select action, outcome, actor_email, actor_role from operator_actions
      where projection = ${p.name} and action in ('rebuild', 'switch', 'rollback', 'retire', 'abandon') and outcome in ('ok', 'queued') and actor_role <> 'system'
      order by at desc, id desc limit 1`.execute(db);
    const a = last.rows[0];
    if (a?.action === 'rebuild' && a.actor_role !== 'CLI') out.push({ projection: p.name, requestedBy: `${a.actor_email} (resumed after a restart)` });
  }
  return out;
}
