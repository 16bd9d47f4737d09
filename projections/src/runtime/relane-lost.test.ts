import { describe, expect, it } from 'vitest';
import { START, comparePositions } from '@oj/infra/eventstore/port';
import { countingProjection, expectedCounts } from './test-projection.ts';
import { readCheckpoints, readDispatcher, readRegistry } from './registry.ts';
import { runtimeTestBed } from './testing.ts';

/**
 * Old-lane batches lost from Redis (restarted empty, or emptied as the restore procedure says) while
 * the next start changes the lane count: the drain waits for the old lanes to apply what was handed
 * to them, which nothing will ever deliver again, so it must hand them their events again too (as the
 * dispatcher does for lost batches once it routes), or every lane stands still for ever.
 */
const projection = countingProjection({ name: 'relane_lost' });

describe('lane count change after old lane batches were lost from Redis', () => {
  const t = runtimeTestBed('relane_lost', {
    projection,
    bullmq: true,
    user: (n) => `rl-${n % 12}`,
    projector: { readBatch: 9, pollMs: 20, rebuilds: false, lostBatchCheckMs: 200 },
  });

  it('hands the old lanes their lost events again, drains, re-keys, and the read model equals the log', async () => {
    // Lane 2 of 3 unworked: its batches wait in Redis, then Redis loses them.
    const first = await t.start({ lanes: 3, workLanes: [0, 1] });
    await t.append(40);
    await t.dispatched();
    await first.stop();
    const live = (await readRegistry(t.database.db, projection.name)).find((r) => r.status === 'live')!;
    const d = await readDispatcher(t.database.db);
    expect(comparePositions((await readCheckpoints(t.database.db, projection.name, live.version)).get(2) ?? START, d.lastDispatched.get(2)!)).toBeLessThan(0);
    const lost = t.laneQueue(2);
    await lost.obliterate({ force: true });
    await lost.close();

    const next = await t.start({ lanes: 2 });
    await t.append(10);
    await next.waitFor(t.last, 30_000);
    expect((await readDispatcher(t.database.db)).lanes).toBe(2);
    expect(await t.current()).toEqual(expectedCounts(await t.wholeLog()));
  }, 60_000);
});
