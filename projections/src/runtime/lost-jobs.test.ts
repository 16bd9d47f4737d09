import { describe, expect, it } from 'vitest';
import { countingProjection, expectedCounts } from './test-projection.ts';
import { runtimeTestBed } from './testing.ts';

/**
 * Lane batches lost from Redis (a restart without persistence, FLUSHALL, eviction) after the
 * dispatcher handed them out: the dispatcher notices lanes that are behind, do not move and have
 * nothing queued to continue them, and hands them their events again from their checkpoints. Without
 * that, the lanes wait for the lost batches for ever.
 */
const LANES = 3;

describe('lane batches lost from Redis', () => {
  const t = runtimeTestBed('projector_lost_jobs', {
    projection: countingProjection({ name: 'lost_counts' }),
    lanes: LANES,
    bullmq: true,
    user: (n) => `lost-${n % 9}`,
    projector: { readBatch: 7, pollMs: 20, rebuilds: false, lostBatchCheckMs: 200 },
  });

  it('hands the lanes their events again from their checkpoints, and the read model equals the log', async () => {
    // Dispatch only: the batches wait in the lanes' queues, then Redis loses them.
    const dispatcher = await t.start({ work: false });
    await t.append(40, 0);
    await t.dispatched();
    for (let lane = 0; lane < LANES; lane++) {
      const queue = t.laneQueue(lane);
      expect(await queue.count()).toBeGreaterThan(0);
      await queue.obliterate({ force: true });
      await queue.close();
    }
    // Workers only (the dispatcher keeps its lock): they find nothing queued until the lost batches come back.
    const workers = await t.start({ dispatch: false });
    await t.append(5, 100);
    await workers.waitFor(t.last, 30_000);
    expect(await t.current()).toEqual(expectedCounts(await t.wholeLog()));
    await dispatcher.stop();
    await workers.stop();
  }, 120_000);
});
