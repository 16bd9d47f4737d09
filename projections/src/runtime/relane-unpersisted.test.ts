import { describe, expect, it } from 'vitest';
import { START, comparePositions } from '@oj/infra/eventstore/port';
import { countingProjection, expectedCounts } from './test-projection.ts';
import { readDispatcher } from './registry.ts';
import { applyLaneBatch } from './apply.ts';
import { laneOf } from './lanes.ts';
import { runtimeTestBed } from './testing.ts';

/**
 * A dispatcher killed between queueing a read's lane batches and recording that read leaves batches in
 * the lanes beyond the recorded dispatcher position D. If one lane applies its batch and another does
 * not before the next start changes the lane count, the re-keyed lanes must not start past what every
 * old lane applied: the other lane's users' events after D would never be applied (a silent hole).
 */
const projection = countingProjection({ name: 'relane_unpersisted' });
const users = Array.from({ length: 24 }, (_, i) => `ru-${i}`);

describe('lane count change after a dispatcher crashed before recording a read', () => {
  const t = runtimeTestBed('relane_unpersisted', {
    projection,
    user: (n) => users[(n * 5) % users.length]!,
    projector: { readBatch: 50, pollMs: 10 },
  });

  it('re-keys the lanes at the recorded position, not at a lane that ran ahead of it', async () => {
    const p = await t.start({ lanes: 2 });
    await t.append(30);
    await p.waitFor(t.last, 30_000);
    await p.stop();
    const recorded = await readDispatcher(t.database.db);
    expect(recorded.lanes).toBe(2);

    // The killed dispatcher's read: events after D, queued for lanes 0 and 1, D not moved. Lane 0's
    // worker applies its batch; lane 1's batch is still waiting (or lost with Redis).
    await t.append(20);
    const after = (await t.wholeLog()).filter((e) => comparePositions(e.position, recorded.checkpoint) > 0);
    const lane0 = after.filter((e) => laneOf(e.metadata.userId, 2) === 0);
    const lane1 = after.filter((e) => laneOf(e.metadata.userId, 2) === 1);
    expect(lane0.length).toBeGreaterThan(0);
    expect(lane1.length).toBeGreaterThan(0);
    // Lane 1 has events before lane 0's last one: re-keying at lane 0's position would skip them.
    expect(comparePositions(lane1[0]!.position, lane0.at(-1)!.position)).toBeLessThan(0);
    await applyLaneBatch(t.database.db, [projection], { lane: 0, prev: recorded.lastDispatched.get(0) ?? START, events: lane0 });

    // Next start with 3 lanes: the old lanes look drained (each is at least at what D handed it).
    const wide = await t.start({ lanes: 3 });
    try {
      await t.append(5);
      await wide.waitFor(t.last, 30_000);
      expect(await t.current()).toEqual(expectedCounts(await t.wholeLog()));
    } finally {
      await wide.stop();
    }
  }, 60_000);
});
