import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { tradesProjection } from '../trades/projection.ts';
import { smallJournal } from '../trades/testing.ts';
import { laneOf } from './lanes.ts';
import { liveRow, liveTables, readCheckpoints, readDispatcher } from './registry.ts';
import { rebuild } from './rebuild.ts';
import { runtimeTestBed } from './testing.ts';

/**
 * Found by the model-based test of the projector's operations (operations-model.test.ts, seed
 * 2076579763): the read models built by a rebuild before any projector ran (the CLI, with
 * PROJECTOR_LANES=2), then the first projector started with 3 lanes. Its dispatcher recorded 3 as the lane
 * count from the start, so the change went unseen: the live version stayed keyed by 2 lanes, lane 2 had
 * no checkpoint (counted as having applied nothing), and a one-user recompute of a user on lane 2
 * deleted every row of theirs. Now the first dispatcher re-keys the version to its own count before its
 * first read.
 */
describe('the first projector of a deployment, after a rebuild with another lane count', () => {
  const t = runtimeTestBed('first_start_lanes', { projection: tradesProjection, lanes: 2, bullmq: true, user: () => 'x', projector: { readBatch: 7, pollMs: 20, rebuilds: false } });

  it('re-keys the live version to its lanes before its first read, and a one-user recompute then changes nothing', async () => {
    const onLane = (lane: number) => Array.from({ length: 50 }, (_, i) => `user-${i}`).find((u) => laneOf(u, 3) === lane)!;
    const users = [onLane(2), onLane(0)];
    const log = smallJournal(users[0], users[1]);
    for (const e of log.events) {
      t.last = (await t.store.append(e.streamId, [{ id: crypto.randomUUID(), type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata }], 'any')).position;
    }
    // The CLI (PROJECTOR_LANES=2) builds the read models before any projector ran.
    await rebuild(t.deps(2), 'trades', {});
    const built = (await liveRow(t.database.db, 'trades'))!;
    expect(built.lanes).toBe(2);
    const tables = await liveTables(t.database.db, 'trades');
    const rowsOf = async (u: string) => (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(tables.trades!)} where user_id = ${u}`.execute(t.database.db)).rows[0]!.n;
    const before = await Promise.all(users.map(rowsOf));
    expect(before.every((n) => n > 0)).toBe(true);

    // The first projector, PROJECTOR_LANES=3; its lane workers not started, so nothing is applied meanwhile.
    const p = await t.start({ lanes: 3, work: false });
    try {
      await t.dispatched();
      expect((await readDispatcher(t.database.db)).lanes).toBe(3);
      expect((await liveRow(t.database.db, 'trades'))!.lanes, 'the live version re-keyed to the dispatcher').toBe(3);
      expect([...(await readCheckpoints(t.database.db, 'trades', built.version)).keys()].sort()).toEqual([0, 1, 2]);
      // An operator repairs each user: every row was right, so nothing is written.
      for (const u of users) {
        const [result] = await rebuild(t.deps(3), 'trades', { userId: u });
        for (const [table, c] of Object.entries(result!.changes ?? {})) expect(c, `${u} ${table}`).toEqual({ inserted: 0, updated: 0, deleted: 0 });
      }
      expect(await Promise.all(users.map(rowsOf))).toEqual(before);
    } finally {
      await p.stop();
    }
  }, 60_000);
});

describe('a one-user recompute before any projector ran', () => {
  const t = runtimeTestBed('recompute_first', { projection: tradesProjection, lanes: 2, user: () => 'x' });

  /**
   * Found by the model-based test (seed -2058421150, path 253): a one-user recompute run before any
   * projector recorded a lane count, with another count than the live version's (the CLI with
   * PROJECTOR_LANES=3 after a rebuild with 2, or a first projector's start racing it), took the user's
   * lane by its own count: a lane the version had no checkpoint for, made at START, so the recompute
   * deleted every row of the user's.
   */
  it('with another lane count than the live version\'s, finds the user by the version\'s lanes and changes nothing', async () => {
    const user = Array.from({ length: 50 }, (_, i) => `solo-${i}`).find((u) => laneOf(u, 3) === 2)!;
    const log = smallJournal(user, `${user}-b`);
    for (const e of log.events) {
      t.last = (await t.store.append(e.streamId, [{ id: crypto.randomUUID(), type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata }], 'any')).position;
    }
    await rebuild(t.deps(2), 'trades', {});
    const built = (await liveRow(t.database.db, 'trades'))!;
    expect(built.lanes).toBe(2);
    expect(await readDispatcher(t.database.db)).toMatchObject({ lanes: null });
    const tables = await liveTables(t.database.db, 'trades');
    const rowsOf = async (u: string) => (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(tables.trades!)} where user_id = ${u}`.execute(t.database.db)).rows[0]!.n;
    const before = await rowsOf(user);
    expect(before).toBeGreaterThan(0);

    const [result] = await rebuild(t.deps(3), 'trades', { userId: user });
    for (const [table, c] of Object.entries(result!.changes ?? {})) expect(c, table).toEqual({ inserted: 0, updated: 0, deleted: 0 });
    expect(await rowsOf(user)).toBe(before);
    expect([...(await readCheckpoints(t.database.db, 'trades', built.version)).keys()].sort(), 'no checkpoint made for a lane the version does not have').toEqual([0, 1]);
  }, 60_000);
});
