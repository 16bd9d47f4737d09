import { describe, expect, it } from 'vitest';
import { START, comparePositions, type LogPosition } from '@oj/infra/eventstore/port';
import { countingProjection, expectedCounts, readCounts } from './test-projection.ts';
import { liveRow, readCheckpoints, readDispatcher } from './registry.ts';
import { applyLaneBatch } from './apply.ts';
import { rebuild } from './rebuild.ts';
import { relane } from './relane.ts';
import { laneOf } from './lanes.ts';
import { runtimeTestBed, tradeEvent } from './testing.ts';

/**
 * Found by the model-based test of the projector's operations (operations-model.test.ts, seed
 * 352516377, path 16, 40 commands a sequence): a dispatcher killed between queueing a read and recording
 * it leaves that read's batches applied by the lanes that had events in it, past the recorded checkpoint
 * D. A lane-count change then re-keyed every new lane at D, so the users of such a lane had rows ahead of
 * their new lane's checkpoint, and a one-user recompute (which rebuilds a user's rows from their events up
 * to that checkpoint) deleted their newest trades, until the lane moved on.
 *
 * Now the change first catches the live version up to the furthest lane, M (applying each event of the
 * old lanes that lack it), and re-keys every new lane at M.
 */
const projection = countingProjection({ name: 'relane_ahead' });
const pool = Array.from({ length: 40 }, (_, i) => `ra-${i}`);
const onLane = (lane: number, n = 2) => pool.filter((u) => laneOf(u, 2) === lane).slice(0, n);
const users = [...onLane(0), ...onLane(1)];

describe('a lane-count change after a dispatcher died before recording a read', () => {
  const t = runtimeTestBed('relane_ahead', { projection, lanes: 2, user: (n) => users[n % users.length]!, projector: { pollMs: 10 } });
  const append = async (user: string, stream: string) => (t.last = (await t.store.append(`trade-${user}.${stream}`, [tradeEvent(user, 'E')], 'any')).position);

  it('catches every lane up to the furthest one and re-keys there, so a one-user recompute changes nothing', async () => {
    // Two lanes, everything dispatched and recorded up to D.
    const p = await t.start();
    await t.append(12);
    await p.waitFor(t.last, 30_000);
    await p.stop();
    const d = await readDispatcher(t.database.db);
    const version = (await liveRow(t.database.db, projection.name))!.version;

    // The killed dispatcher's last read: lane 1's batch applied, lane 0's never queued (it died between
    // the two), so lane 1 stands past D and lane 0 lacks an event before lane 1's position.
    const [a0] = onLane(0);
    const [b0, b1] = onLane(1);
    const read: LogPosition[] = [await append(b0!, 'x'), await append(a0!, 'x'), await append(b1!, 'x'), await append(b0!, 'y')];
    const log = await t.wholeLog();
    const past = log.filter((e) => comparePositions(e.position, d.checkpoint) > 0);
    expect(past.map((e) => e.position)).toEqual(read);
    await applyLaneBatch(t.database.db, [projection], { lane: 1, prev: d.lastDispatched.get(1) ?? START, events: past.filter((e) => laneOf(e.metadata.userId, 2) === 1) });
    const m = (await readCheckpoints(t.database.db, projection.name, version)).get(1)!;
    expect(m).toEqual(read.at(-1));

    // The next projector runs three lanes: the change is recorded once the old lanes are drained.
    expect(await relane({ db: t.database.db, eventStore: t.store, projections: [projection] }, 3)).toBe(true);
    expect([...(await readCheckpoints(t.database.db, projection.name, version))]).toEqual([0, 1, 2].map((lane) => [lane, m]));
    expect(await readCounts(t.database.db, (await liveRow(t.database.db, projection.name))!.tables), 'every event up to M applied once').toEqual(expectedCounts(log));

    // An operator repairs each user before any projector runs again: every row was right, so each stays.
    for (const u of users) await rebuild(t.deps(3), projection.name, { userId: u });
    expect(await readCounts(t.database.db, (await liveRow(t.database.db, projection.name))!.tables)).toEqual(expectedCounts(log));

    // And the read model goes on from there with three lanes.
    const q = await t.start({ lanes: 3 });
    try {
      await t.append(9, 100);
      await q.waitFor(t.last, 30_000);
      expect(await readCounts(t.database.db, (await liveRow(t.database.db, projection.name))!.tables)).toEqual(expectedCounts(await t.wholeLog()));
    } finally {
      await q.stop();
    }
  }, 60_000);
});
