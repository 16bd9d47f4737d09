import { describe, expect, it } from 'vitest';
import { comparePositions } from '@oj/infra/eventstore/port';
import type { Projection } from './projection.ts';
import { countingProjection, expectedCounts } from './test-projection.ts';
import { readCheckpoints, readRegistry } from './registry.ts';
import { applyLaneBatch, lockCheckpoint } from './apply.ts';
import { laneOf } from './lanes.ts';
import { lockSwitchShared } from './locks.ts';
import { runtimeTestBed, sleep } from './testing.ts';

/**
 * A lane batch is its lane's only writer through the lane's advisory lock, not a row lock on its
 * checkpoint: a row lock gave the transaction an id at its first statement, and the log's readers wait
 * for every transaction older than an event (infra/src/eventstore/postgres.ts), so each batch held the
 * dispatcher back for its whole length.
 */
const LANES = 2;
const projection = countingProjection({ name: 'lane_lock_counts' });
const users = ['ll-0', 'll-1', 'll-2', 'll-3', 'll-4', 'll-5'];

describe('the lane lock', () => {
  const t = runtimeTestBed('lane_lock', { projection, lanes: LANES, user: (n) => users[n % users.length]!, projector: { pollMs: 10 } });

  /** The live version, each lane's checkpoint, and the log's events after them (the projector stopped). */
  const pending = async () => {
    const live = (await readRegistry(t.database.db, projection.name)).find((r) => r.status === 'live')!;
    const cps = await readCheckpoints(t.database.db, projection.name, live.version);
    const events = (await t.wholeLog()).filter((e) => comparePositions(e.position, cps.get(laneOf(e.metadata.userId, LANES))!) > 0);
    return { live, cps, events };
  };
  /** The projection, with its apply held at the start until `release` (the batch's reads and locks done). */
  const gated = () => {
    let entered!: () => void;
    let release!: () => void;
    const inApply = new Promise<void>((r) => (entered = r));
    const gate = new Promise<void>((r) => (release = r));
    const p: Projection = {
      ...projection,
      async apply(ctx, events) {
        entered();
        await gate;
        return projection.apply(ctx, events);
      },
    };
    return { projection: p, inApply, release };
  };

  it('holds back no reader of the log until it writes', async () => {
    const p = await t.start();
    await t.append(6);
    await p.waitFor(t.last, 30_000);
    await p.stop();
    await t.append(6);
    const { cps, events } = await pending();
    const lane = laneOf(events[0]!.metadata.userId, LANES);
    const g = gated();
    const batch = applyLaneBatch(t.database.db, [g.projection], { lane, prev: cps.get(lane)!, events: events.filter((e) => laneOf(e.metadata.userId, LANES) === lane) });
    await g.inApply;
    // The batch holds its locks and has read its checkpoint, registry and guard rows; an append now
    // is seen by the log's readers at once (with a row lock on the checkpoint it stayed held back).
    await t.append(1);
    expect(await t.store.headAndHeld()).toEqual({ head: t.last, held: false });
    g.release();
    await batch;
    const again = await t.start();
    await again.waitFor(t.last, 30_000);
    expect(await t.current()).toEqual(expectedCounts(await t.wholeLog()));
    await again.stop();
  }, 60_000);

  it("waits for a transaction that holds its lane's lock (a one-user recompute's), while the other lanes go on", async () => {
    await t.append(12);
    const { live, cps, events } = await pending();
    const ofLane = (lane: number) => events.filter((e) => laneOf(e.metadata.userId, LANES) === lane);
    expect(ofLane(0).length && ofLane(1).length).toBeGreaterThan(0);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    // What a one-user recompute of a user of lane 0 takes first.
    const recompute = t.database.db.transaction().execute(async (trx) => {
      await lockSwitchShared(trx);
      await lockCheckpoint(trx, live.name, live.version, 0);
      locked();
      await released;
    });
    await isLocked;
    let lane0Done = false;
    const lane0 = applyLaneBatch(t.database.db, [projection], { lane: 0, prev: cps.get(0)!, events: ofLane(0) }).then(() => (lane0Done = true));
    await applyLaneBatch(t.database.db, [projection], { lane: 1, prev: cps.get(1)!, events: ofLane(1) });
    await sleep(300);
    expect(lane0Done).toBe(false);
    release();
    await recompute;
    await lane0;
    expect(await t.current()).toEqual(expectedCounts(await t.wholeLog()));
  }, 60_000);
});
