import { describe, expect, it } from 'vitest';
import { START, comparePositions } from '@oj/infra/eventstore/port';
import { countingProjection, expectedCounts, readCounts } from './test-projection.ts';
import { liveTables, readCheckpoints, readDispatcher, readRegistry } from './registry.ts';
import { applyLaneBatch } from './apply.ts';
import { rebuild, rollback } from './rebuild.ts';
import { laneOf } from './lanes.ts';
import { runtimeTestBed } from './testing.ts';

/**
 * A retired version's lanes may stand far apart (a lane that was stuck, or unworked, when it was
 * retired). A rollback's batched catch-up must move each lane only as far as what it applied: moving
 * every lane to the furthest one skips the lagging lane's events in between.
 */
const LANES = 2;
const projection = countingProjection({ name: 'rollback_spread' });
const users = Array.from({ length: 12 }, (_, i) => `rs-${i}`);

describe('rollback to a version whose lanes stand apart', () => {
  const t = runtimeTestBed('rollback_spread', {
    projection,
    lanes: LANES,
    user: (n) => users[(n * 5) % users.length]!,
    projector: { pollMs: 10 },
  });

  it('catches each lane up from its own checkpoint', async () => {
    let p = await t.start();
    await t.append(20);
    await p.waitFor(t.last, 30_000);
    await p.stop();
    const recorded = await readDispatcher(t.database.db);
    const old = (await readRegistry(t.database.db, projection.name)).find((r) => r.status === 'live')!;

    // Lane 1 of the live version moves on, lane 0 stays behind (stuck): 30 events apart.
    await t.append(30);
    const after = (await t.wholeLog()).filter((e) => comparePositions(e.position, recorded.checkpoint) > 0);
    const lane1 = after.filter((e) => laneOf(e.metadata.userId, LANES) === 1);
    await applyLaneBatch(t.database.db, [projection], { lane: 1, prev: recorded.lastDispatched.get(1) ?? START, events: lane1 });

    // A new version goes live (it has everything); the old one is retired with its lanes apart.
    const [built] = await rebuild(t.deps(), projection.name);
    expect(built!.switched).toBe(true);
    const cps = await readCheckpoints(t.database.db, projection.name, old.version);
    expect(comparePositions(cps.get(0)!, cps.get(1)!)).toBeLessThan(0);

    // Rolled back with a catch-up batch smaller than the distance between its lanes.
    const back = await rollback(t.deps(), projection.name, { catchUpBatch: 4 });
    expect(back.to).toBe(old.version);
    p = await t.start();
    try {
      await t.append(4);
      await p.waitFor(t.last, 30_000);
      expect(await liveTables(t.database.db, projection.name)).toEqual(old.tables);
      expect(await readCounts(t.database.db, old.tables)).toEqual(expectedCounts(await t.wholeLog()));
    } finally {
      await p.stop();
    }
  }, 60_000);
});
