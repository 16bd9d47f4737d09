import { describe, expect, it } from 'vitest';
import { Worker, type Job } from 'bullmq';
import { Registry } from 'prom-client';
import { requireRedisUrl } from '@oj/infra/testing/env';
import { START, positionToString } from '@oj/infra/eventstore/port';
import { countingProjection, expectedCounts } from './test-projection.ts';
import { laneQueueName, laneWorkerOptions, redisConnection } from './projector.ts';
import { laneOf } from './lanes.ts';
import { capturingLogger, runtimeTestBed, tradeEvent, until } from './testing.ts';

/**
 * A lane batch whose worker dies twice (a projector killed while applying it, then the next one
 * killed too) must not fail for good: a lane never gives up on a batch, or every later batch of the
 * lane would fail behind it forever.
 */
const LANES = 2;
const LOCK_MS = 1000;
const projection = countingProjection({ name: 'stall_counts' });

describe('a lane batch whose worker dies twice', () => {
  const t = runtimeTestBed('projector_stalled_lane', {
    projection,
    lanes: LANES,
    bullmq: true,
    user: (n) => `st-${n % 6}`,
    projector: { readBatch: 5, pollMs: 10, rebuilds: false, laneLockMs: LOCK_MS },
  });

  /**
   * A projector's lane worker that takes the lane's first batch and dies while applying it: its job
   * lock is no longer renewed (closed without waiting, as a killed process). Other batches it meets
   * first are refused, as a gap would be. Resolves once it is dead.
   */
  async function dieOn(lane: number, firstJobId: string): Promise<void> {
    let took!: () => void;
    const taken = new Promise<void>((r) => (took = r));
    const doomed = new Worker(
      laneQueueName(lane),
      async (job: Job) => {
        if (job.id !== firstJobId) throw new Error('not this one yet');
        took();
        return new Promise(() => {}); // dies while applying
      },
      { connection: redisConnection(requireRedisUrl()), prefix: t.prefix, ...laneWorkerOptions(LOCK_MS) },
    );
    doomed.on('error', () => undefined);
    await taken;
    await doomed.close(true);
  }

  it('is retried until it applies, and the lane goes on', async () => {
    // Dispatch only: lane 0's batches wait in its queue.
    const dispatcher = await t.start({ work: false });
    await t.append(30, 0);
    await t.dispatched();
    const log = await t.wholeLog();
    expect(log.filter((e) => laneOf(e.metadata.userId, LANES) === 0).length).toBeGreaterThan(5);
    const queue = t.laneQueue(0);
    const first = (await queue.getWaiting(0, 1000)).find((j) => j.data.prev === positionToString(START))!;
    await queue.close();
    expect(first).toBeDefined();

    await dieOn(0, first.id!);
    await dieOn(0, first.id!);

    // A healthy projector: the batch that killed two workers is applied, then the rest of the lane.
    const healthy = await t.start({ logger: capturingLogger().logger });
    await t.append(10, 100);
    await healthy.waitFor(t.last, 30_000);
    expect(await t.current()).toEqual(expectedCounts(await t.wholeLog()));
    await dispatcher.stop();
    await healthy.stop();
  }, 120_000);

  it('a lane that keeps failing is an alert: oj_projector_lane_stuck is 1 and an error is logged, until it applies again', async () => {
    let broken = true;
    const failing = {
      ...projection,
      async apply(ctx: Parameters<typeof projection.apply>[0], events: Parameters<typeof projection.apply>[1]) {
        if (broken && events.some((e) => e.type === 'Poison')) throw new Error('handler bug');
        return projection.apply(ctx, events);
      },
    };
    const { logger, lines } = capturingLogger();
    const metrics = new Registry();
    const p = await t.start({ projections: [failing], metrics, stuckAfterMs: 300, logger });
    const user = 'st-0';
    const lane = laneOf(user, LANES);
    t.last = (await t.store.append(`trade-${user}.poison`, [tradeEvent(user, 'Poison')], 'any')).position;
    const stuckLine = () => lines.find((l) => l.level >= 50 && /lane stuck/.test(l.msg) && l.lane === lane);
    await until(() => !!stuckLine(), { everyMs: 20 });
    expect(await metrics.metrics()).toContain(`oj_projector_lane_stuck{lane="${lane}"} 1`);
    broken = false;
    await p.waitFor(t.last, 30_000);
    // The gauge is cleared by the lane's worker once its batch's transaction has returned, a moment
    // after the checkpoint that waitFor reads becomes visible: wait for it, but not for long.
    const cleared = `oj_projector_lane_stuck{lane="${lane}"} 0`;
    await until(async () => (await metrics.metrics()).includes(cleared), { what: 'the stuck gauge back to 0', timeoutMs: 5_000 });
    expect(await t.current()).toEqual(expectedCounts(await t.wholeLog()));
    await p.stop();
  }, 60_000);
});
