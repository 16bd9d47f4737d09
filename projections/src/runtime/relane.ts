import { sql, type Kysely } from 'kysely';
import { START, comparePositions, positionToString, type EventStore, type LogPosition } from '@oj/infra/eventstore/port';
import type { Projection } from './projection.ts';
import { guardRevisions } from './apply.ts';
import { checkpointOf, readRange } from './rebuild.ts';
import { matchesPrefixes, maxPosition, minPosition, posParams } from './lanes.ts';
import { lockSwitchExclusive } from './locks.ts';
import { checkTerm, readCheckpoints, readDispatcher, readRegistry, runnable, writeLaneCheckpoints, type DispatcherState, type RegistryRow } from './registry.ts';

export interface RelaneDeps {
  db: Kysely<any>;
  eventStore: EventStore;
  /** The running code's read models: a live version built by them is caught up before it is re-keyed. */
  projections: readonly Projection[];
}

/**
 * Changes the lane count the dispatcher routes with, if the lanes of the recorded count are drained:
 * every live version has applied everything handed to every lane (`projector_lanes`). Then every event
 * up to the dispatcher's checkpoint D is applied for every user. A lane may stand past D: a dispatcher
 * killed between queueing a read and recording it leaves that read's batches applied by the lanes that
 * had events in it, and not by the others. Re-keyed at D, a user of such a lane would have rows ahead of
 * their new lane's checkpoint (a one-user recompute, which rebuilds the user's rows as of that checkpoint,
 * then deleted their trades until the lane moved on). So, in ONE transaction, under the exclusive switch
 * lock (no lane batch in flight, no switch), each live version built by the running code is first caught
 * up to M, the furthest of D and its lanes (each event of (D, M] applied unless its lane is past it), and
 * its checkpoints are replaced by one per new lane at M; the lane rows are replaced by one per new lane at
 * D (the dispatcher hands out from D again; every lane skips what is at or below its checkpoint), and the
 * new count is recorded, in the dispatcher and in each live version's registry row (the count its
 * checkpoints are keyed with).
 *
 * A live version the running code cannot apply (other formulas) is re-keyed without a catch-up, at a
 * position every old lane reached (never past a lane that lacks events): its lanes are refused batches
 * until code and data agree anyway, and its stream guard skips what a lane applied twice. Every live
 * version counts: its lanes must not be re-keyed behind its back.
 *
 * Returns false, recording nothing, while a lane is not drained, or when a lane moved after the events
 * were read (the caller tries again).
 */
export async function relane(deps: RelaneDeps, lanes: number, term?: number): Promise<boolean> {
  const { db, eventStore, projections } = deps;
  // The events a catch-up may need, read first (outside the transaction: PGlite has one connection).
  const seen = await lanePositions(db);
  const upTo = seen.versions.map((v) => v.upTo).reduce(maxPosition, seen.state.checkpoint);
  // From the lowest position a version's lane may lack events after (never below D): with every lane at
  // M (after a switch), nothing is read.
  const from = seen.versions.map((v) => v.from).reduce(minPosition, upTo);
  const prefixes = [...new Set(projections.flatMap((p) => p.streamPrefixes))];
  const events = comparePositions(upTo, from) > 0 ? await readRange(eventStore, from, prefixes, upTo) : [];
  return db.transaction().execute(async (trx) => {
    await lockSwitchExclusive(trx);
    if (term !== undefined) await checkTerm(trx, term);
    const now = await lanePositions(trx);
    // A lane moved since the read (it was not drained then): the read may not cover what it needs.
    if (now.fingerprint !== seen.fingerprint) return false;
    const { state } = now;
    for (const { cps } of now.versions) {
      // A lane with no checkpoint row has applied nothing to this version.
      for (const [lane, last] of state.lastDispatched) {
        if (comparePositions(cps.get(lane) ?? START, last) < 0) return false;
      }
    }
    for (const { row, cps, upTo: m } of now.versions) {
      const projection = runnable(projections, [row])[0]?.projection;
      let at = m;
      if (projection) {
        const behind = events.filter((e) => comparePositions(e.position, m) <= 0 && comparePositions(e.position, checkpointOf(cps, row, e)) > 0 && matchesPrefixes(e.streamId, projection.streamPrefixes));
        const fresh = await guardRevisions(trx, row, behind);
        if (fresh.length) await projection.apply({ trx, tables: row.tables, mode: 'live' }, fresh);
      } else {
        const reached = oldLanes(row, cps, state).map((lane) => cps.get(lane) ?? START);
        at = maxPosition(state.checkpoint, reached.reduce(minPosition, m));
      }
      await writeLaneCheckpoints(trx, row.name, row.version, lanes, at);
    }
    await sql`update projection_registry set lanes = ${lanes}, updated_at = now() where status = 'live'`.execute(trx);
    await sql`delete from projector_lanes`.execute(trx);
    const d = posParams(state.checkpoint);
    for (let lane = 0; lane < lanes; lane++) {
      await sql`insert into projector_lanes (lane, commit, prepare) values (${lane}, ${d.commit}, ${d.prepare})`.execute(trx);
    }
    await sql`insert into projector_dispatcher (id, commit, prepare, lanes) values ('main', ${d.commit}, ${d.prepare}, ${lanes})
      on conflict (id) do update set lanes = excluded.lanes, updated_at = now()`.execute(trx);
    return true;
  });
}

/** The lanes of a live version's old count: those it has rows for, those handed work, and those of the recorded count. */
const oldLanes = (row: RegistryRow, cps: ReadonlyMap<number, LogPosition>, state: DispatcherState): number[] => [
  ...new Set([...cps.keys(), ...state.lastDispatched.keys(), ...Array.from({ length: Math.max(row.lanes, state.lanes ?? 0) }, (_, i) => i)]),
];

/**
 * The dispatcher's state and, for each live version, its checkpoints, the lowest position past D any
 * of its old lanes may lack events after (`from`), and M (`upTo`); with a fingerprint of all of it.
 */
async function lanePositions(db: Kysely<any>) {
  const state = await readDispatcher(db);
  const versions = [];
  for (const row of (await readRegistry(db)).filter((r) => r.status === 'live')) {
    const cps = await readCheckpoints(db, row.name, row.version);
    const upTo = [...cps.values()].reduce(maxPosition, state.checkpoint);
    // Old lane i may lack its users' events after max(its checkpoint, D) (everything up to D is applied).
    const from = oldLanes(row, cps, state).map((lane) => maxPosition(cps.get(lane) ?? START, state.checkpoint)).reduce(minPosition, upTo);
    versions.push({ row, cps, from, upTo });
  }
  const fingerprint = JSON.stringify([
    positionToString(state.checkpoint),
    state.lanes,
    [...state.lastDispatched].map(([l, p]) => [l, positionToString(p)]),
    versions.map((v) => [v.row.name, v.row.version, v.row.lanes, [...v.cps].map(([l, p]) => [l, positionToString(p)])]),
  ]);
  return { state, versions, fingerprint };
}
