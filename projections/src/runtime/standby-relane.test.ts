import { describe, expect, it } from 'vitest';
import { countingProjection, expectedCounts } from './test-projection.ts';
import { readDispatcher } from './registry.ts';
import { laneOf } from './lanes.ts';
import { capturingLogger, runtimeTestBed, sleep } from './testing.ts';

const projection = countingProjection({ name: 'standby_counts' });
const users = Array.from({ length: 20 }, (_, i) => `sb-${i}`);

/**
 * Found by the model-based test of the projector's operations (operations-model.test.ts): a standby
 * picked the lanes it works once, at its start. Another release then moved the deployment to 5 lanes
 * and died with batches queued on lanes 1 to 4; elected, the standby (1 lane) waited for those lanes to
 * drain back to 1, and nothing worked them: no read model moved again until a restart. An elected
 * dispatcher now works every old lane it waits on.
 */
describe('a standby started before a lane-count change, elected after it', () => {
  const t = runtimeTestBed('standby_relane', { projection, lanes: 1, bullmq: true, user: (n) => users[n % users.length]!, projector: { readBatch: 7, pollMs: 20, rebuilds: false } });

  it('works the old lanes it drains, and routes with its own count after', async () => {
    const p1 = await t.start({ lanes: 1 });
    await t.append(10);
    await p1.waitFor(t.last, 20_000);
    // A standby of the same release (1 lane), started now: it works lane 0 only.
    const { logger, lines } = capturingLogger('info');
    const standby = await t.start({ lanes: 1, logger });
    expect(standby.isLeader()).toBe(false);
    // A release with 5 lanes replaces the leader and is elected; it works lane 0 only here, standing for
    // "it died before applying what it handed to lanes 1 to 4". Started before the leader stops and
    // trying for the lead every 10 ms, it is elected before the standby's next try (every 2 s): started
    // after, a slow start under load let the standby win, and the test failed.
    const p5 = await t.start({ lanes: 5, workLanes: [0], electionMs: 10 });
    expect(p5.isLeader()).toBe(false);
    await p1.stop();
    for (let i = 0; i < 100 && !p5.isLeader(); i++) await sleep(20);
    expect(p5.isLeader()).toBe(true);
    for (let i = 0; i < 200 && (await readDispatcher(t.database.db)).lanes !== 5; i++) await sleep(20);
    expect((await readDispatcher(t.database.db)).lanes).toBe(5);
    await t.append(20);
    await t.dispatched();
    expect((await t.wholeLog()).some((e) => laneOf(e.metadata.userId, 5) !== 0), 'batches on lanes 1 to 4').toBe(true);
    // The 5-lane release goes (rolled back): the standby takes over, drains lanes 1 to 4, and re-keys to 1.
    await p5.stop();
    try {
      await standby.waitFor(t.last, 20_000);
      expect(standby.isLeader()).toBe(true);
      expect(await t.current()).toEqual(expectedCounts(await t.wholeLog()));
      for (let i = 0; i < 200 && (await readDispatcher(t.database.db)).lanes !== 1; i++) await sleep(20);
      expect((await readDispatcher(t.database.db)).lanes).toBe(1);
      expect(lines.some((l) => /old lanes drained/.test(String(l.msg)))).toBe(true);
      // Still routing with one lane afterwards.
      await t.append(5, 30);
      await standby.waitFor(t.last, 20_000);
      expect(await t.current()).toEqual(expectedCounts(await t.wholeLog()));
    } finally {
      await standby.stop();
    }
  }, 90_000);
});
