import { describe, expect, it } from 'vitest';
import { START, positionToString } from '@oj/infra/eventstore/port';
import { countingProjection, expectedCounts } from './test-projection.ts';
import { laneOf } from './lanes.ts';
import { capturingLogger, runtimeTestBed } from './testing.ts';

/**
 * A lane batch that follows batches its lane has not applied (they are held by a dead projector until
 * BullMQ's stalled check returns them, or wait in retry delays) reads their events from the log and
 * applies them in front of its own, in one transaction: the lane catches up at once instead of
 * bouncing every later batch as a gap (QA: after a projector was killed under steady writes, lane 0
 * fell further behind for minutes). Here the lane's first batch never comes back, and the lost-batch
 * recovery is slowed to 10 minutes, so only the gap fill can move the lane.
 */
const LANES = 2;

describe('a lane batch after a gap', () => {
  const t = runtimeTestBed('projector_gap_fill', {
    projection: countingProjection({ name: 'gap_counts' }),
    lanes: LANES,
    bullmq: true,
    user: (n) => `gap-${n % 6}`,
    projector: { readBatch: 5, pollMs: 10, rebuilds: false, lostBatchCheckMs: 600_000 },
  });

  it('applies the missing batches from the log, and the read model equals the log', async () => {
    // Dispatch only: lane 0's batches wait in its queue; its first one is then gone (held by a dead worker).
    const dispatcher = await t.start({ work: false });
    await t.append(30, 0);
    await t.dispatched();
    const log = await t.wholeLog();
    expect(log.filter((e) => laneOf(e.metadata.userId, LANES) === 0).length).toBeGreaterThan(5);
    const queue = t.laneQueue(0);
    const first = (await queue.getWaiting(0, 1000)).find((j) => j.data.prev === positionToString(START))!;
    expect(first).toBeDefined();
    await first.remove();
    await queue.close();

    const { logger, lines } = capturingLogger();
    const workers = await t.start({ dispatch: false, logger });
    await t.append(10, 100);
    await workers.waitFor(t.last, 30_000);
    expect(await t.current()).toEqual(expectedCounts(await t.wholeLog()));
    expect(lines.some((l) => l.msg.startsWith('lane gap filled from the log') && l.lane === 0)).toBe(true);
    await dispatcher.stop();
    await workers.stop();
  }, 120_000);
});
