import { describe, expect, it } from 'vitest';
import { START, comparePositions, positionToString } from '@oj/infra/eventstore/port';
import { countingProjection, expectedCounts } from './test-projection.ts';
import { readDispatcher } from './registry.ts';
import { laneOf, toWire } from './lanes.ts';
import { runtimeTestBed, sleep } from './testing.ts';

/**
 * A dispatcher killed between queueing a read's lane batches and recording it leaves batches past the
 * recorded position D in the old lanes' queues. When the next start changes the lane count, those
 * batches must be applied before the lanes are re-keyed: applied after it, an old lane's batch lands
 * on the new lane of the same number, moves its checkpoint past D and makes it skip the events of its
 * new users up to there (a revision gap freezing the lane, or a silent hole).
 */
const users = Array.from({ length: 24 }, (_, i) => `rq-${i}`);

describe('lane count change with old lane batches still queued', () => {
  const t = runtimeTestBed('relane_queued', {
    projection: countingProjection({ name: 'relane_queued' }),
    bullmq: true,
    user: (n) => users[(n * 5) % users.length]!,
    projector: { readBatch: 50, pollMs: 20, rebuilds: false },
  });

  it('applies the old lanes batches before re-keying, and the read model equals the log', async () => {
    const first = await t.start({ lanes: 3 });
    await t.append(40);
    await first.waitFor(t.last, 30_000);
    await first.stop();
    const recorded = await readDispatcher(t.database.db);

    // The killed dispatcher's last read: queued for lanes 0, 1 and 2, D not moved.
    await t.append(30);
    const after = (await t.wholeLog()).filter((e) => comparePositions(e.position, recorded.checkpoint) > 0);
    const old1 = after.filter((e) => laneOf(e.metadata.userId, 3) === 1);
    // New lane 1 (of 2) has users from old lane 2 with events before old lane 1's batch ends.
    expect(after.some((e) => laneOf(e.metadata.userId, 2) === 1 && laneOf(e.metadata.userId, 3) === 2 && comparePositions(e.position, old1.at(-1)!.position) < 0)).toBe(true);
    for (const lane of [0, 1, 2]) {
      const events = after.filter((e) => laneOf(e.metadata.userId, 3) === lane);
      const queue = t.laneQueue(lane);
      await queue.add('batch', { lane, prev: positionToString(recorded.lastDispatched.get(lane) ?? START), events: events.map(toWire) }, { jobId: `l${lane}-${positionToString(events[0]!.position)}-${positionToString(events.at(-1)!.position)}` });
      await queue.close();
    }

    // Restart with 2 lanes; old lanes 1 and 2 are worked by a process that starts a little later.
    const dispatcher = await t.start({ lanes: 2, workLanes: [0] });
    for (let i = 0; i < 30 && (await readDispatcher(t.database.db)).lanes !== 2; i++) await sleep(50);
    await t.start({ lanes: 2, dispatch: false, workLanes: [1, 2] });
    await t.append(5);
    await dispatcher.waitFor(t.last, 30_000);
    expect((await readDispatcher(t.database.db)).lanes).toBe(2);
    expect(await t.current()).toEqual(expectedCounts(await t.wholeLog()));
  }, 60_000);
});
