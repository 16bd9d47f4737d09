import { describe, expect, it } from 'vitest';
import { logOriginOf } from '@oj/infra/eventstore/log-origin';
import { START, comparePositions, positionToString, type ProjectedEvent } from '@oj/infra/eventstore/port';
import { laneOf, toWire } from './lanes.ts';
import { liveRow, readCheckpoints } from './registry.ts';
import { countingProjection, expectedCounts } from './test-projection.ts';
import { capturingLogger, runtimeTestBed } from './testing.ts';

/**
 * Lane jobs left in Redis across a logical restore (docs/operations.md, "Backup and restore": the
 * database copied with pg_dump into another cluster and restamped, Redis kept). Their events carry the
 * old copy's positions. A job whose `prev` is at or below a lane's checkpoint and whose events sort
 * after it would move the checkpoint to its last position: once the restored cluster's transaction ids
 * grow into the old range, that skips events the lane never applied, silently. So each job carries the
 * log's origin (cluster and database), and a worker drops a job of another origin unapplied; the lane is
 * then behind with nothing queued, and the dispatcher hands it its events again from its checkpoint.
 */
const LANES = 2;
const user = (n: number) => `foreign-${n % 4}`;
const projection = countingProjection({ name: 'foreign_counts' });

describe('lane jobs of another copy of the log', () => {
  const t = runtimeTestBed('projector_foreign_jobs', {
    projection,
    lanes: LANES,
    bullmq: true,
    user,
    projector: { readBatch: 5, pollMs: 20, rebuilds: false, lostBatchCheckMs: 200 },
  });

  it('drops a job queued on another copy, unapplied: no checkpoint moves past events its lane never applied', async () => {
    const first = await t.start();
    await t.append(10, 0);
    await first.waitFor(t.last, 30_000);
    await first.stop();

    // A batch as the old copy's dispatcher made it: the lane's first (prev: the log's start), one of its
    // events at a position of the old cluster, far above the restored log's new transaction ids.
    const lane = laneOf(user(0), LANES);
    const mine = (await t.store.readAll({ after: START, streamPrefixes: ['trade-'], limit: 100, metadata: 'projected' })).filter((e) => laneOf(e.metadata.userId, LANES) === lane);
    const stale: ProjectedEvent = { ...mine.at(-1)!, position: { commit: 9_000_000_000n, prepare: 1n } };
    const queue = t.laneQueue(lane);
    await queue.add('batch', { lane, prev: positionToString(START), events: [toWire(stale)], origin: '7000000000000000000/16384' }, { jobId: 'restored-stale' });

    const { logger, lines } = capturingLogger('info');
    const second = await t.start({ logger });
    await t.append(10, 10);
    await second.waitFor(t.last, 30_000);

    const row = (await liveRow(t.database.db, projection.name))!;
    const checkpoints = await readCheckpoints(t.database.db, row.name, row.version);
    expect(comparePositions(checkpoints.get(lane)!, t.last)).toBeLessThanOrEqual(0);
    expect(await t.current()).toEqual(expectedCounts(await t.wholeLog()));
    expect(await (await queue.getJob('restored-stale'))!.getState()).toBe('completed');
    expect(lines.filter((l) => l.msg.startsWith('lane batch from another copy of the log')).map((l) => [l.lane, l.jobOrigin])).toEqual([[lane, '7000000000000000000/16384']]);
    await second.stop();
    await queue.close();
  }, 120_000);

  it('drops jobs without an origin (queued by an earlier release) and hands their lanes the events again', async () => {
    const origin = await logOriginOf(t.database.db);
    const dispatcher = await t.start({ work: false });
    await t.append(30, 100);
    await t.dispatched();
    let rewritten = 0;
    for (let lane = 0; lane < LANES; lane++) {
      const queue = t.laneQueue(lane);
      for (const job of await queue.getJobs(['waiting', 'delayed', 'prioritized'])) {
        expect(job.data.origin).toBe(origin);
        const { origin: _dropped, ...older } = job.data;
        await job.updateData(older);
        rewritten++;
      }
      await queue.close();
    }
    expect(rewritten).toBeGreaterThan(0);
    const workers = await t.start({ dispatch: false });
    await t.append(4, 200);
    await workers.waitFor(t.last, 30_000);
    expect(await t.current()).toEqual(expectedCounts(await t.wholeLog()));
    await dispatcher.stop();
    await workers.stop();
  }, 120_000);
});
