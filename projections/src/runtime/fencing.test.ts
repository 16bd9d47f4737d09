import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { comparePositions } from '@oj/infra/eventstore/port';
import { countingProjection, expectedCounts, readCounts } from './test-projection.ts';
import { readCheckpoints, readDispatcher, readRegistry } from './registry.ts';
import { applyLaneBatch } from './apply.ts';
import { laneOf } from './lanes.ts';
import { LOCK_DISPATCHER } from './locks.ts';
import { runtimeTestBed, until } from './testing.ts';

/**
 * A dispatcher that lost its advisory lock (its session was cut, as in a network partition) while a
 * new one was elected must not write its stale positions over the new leader's: its writes are fenced
 * by the term each election takes.
 */
const LANES = 2;
const projection = countingProjection({ name: 'fence_counts' });

describe('dispatcher fencing', () => {
  const t = runtimeTestBed('projector_fencing', { projection, lanes: LANES, user: (n) => `f-${n % 5}`, projector: { readBatch: 5, pollMs: 10 } });
  const start = t.start;
  const append = t.append;

  it("a stale leader cannot move the dispatcher's positions backwards", async () => {
    let hold: Promise<void> | null = null;
    let release!: () => void;
    let held!: () => void;
    const paused = new Promise<void>((r) => (held = r));
    const stale = await start({
      beforePersist: async () => {
        if (hold) {
          held();
          await hold;
        }
      },
    });
    await append(10);
    await stale.waitFor(t.last, 30_000);
    // The leader reads the next events, then stops just before recording them...
    hold = new Promise<void>((r) => (release = r));
    await append(5);
    await paused;
    const before = await readDispatcher(t.database.db);
    // ...its lock session is cut (a partition), and another projector is elected and moves on.
    await sql`select pg_terminate_backend(l.pid) from pg_locks l join pg_database d on d.oid = l.database
      where l.locktype = 'advisory' and l.classid = ${LOCK_DISPATCHER} and d.datname = current_database() and l.granted`.execute(t.database.db);
    const next = await start();
    await until(() => next.isLeader());
    await append(10);
    await next.waitFor(t.last, 30_000);
    const advanced = await readDispatcher(t.database.db);
    expect(comparePositions(advanced.checkpoint, before.checkpoint)).toBeGreaterThan(0);

    // The stale leader wakes up and tries to record its old read.
    const hooked = hold;
    hold = null;
    release();
    await hooked;
    // Stopping waits for its dispatch loop, so its write has been tried by then.
    await stale.stop();
    const after = await readDispatcher(t.database.db);
    expect(comparePositions(after.checkpoint, advanced.checkpoint)).toBeGreaterThanOrEqual(0);
    for (const [lane, p] of advanced.lastDispatched) expect(comparePositions(after.lastDispatched.get(lane)!, p)).toBeGreaterThanOrEqual(0);

    await append(5);
    await next.waitFor(t.last, 30_000);
    expect(await t.current()).toEqual(expectedCounts(await t.wholeLog()));
  }, 60_000);

  it('the per-lineage guard demands the next revision: a batch that skips one is refused, not applied', async () => {
    await t.stopAll();
    const p = await start();
    const user = 'f-lineage';
    const stream = `trade-${user}.gap`;
    const event = (i: number) => ({ id: randomUUID(), type: `G${i}`, schemaVersion: 1, data: {}, metadata: { userId: user, actor: { id: user, role: 'trader' as const }, correlationId: 'c', causationId: null, idempotencyKey: null, recordedAt: new Date().toISOString(), businessDate: '2026-11-20' } });
    t.last = (await t.store.append(stream, [event(0), event(1)], 'no_stream')).position;
    await p.waitFor(t.last, 30_000);
    await p.stop();
    t.last = (await t.store.append(stream, [event(2), event(3)], 1)).position;
    const [r2, r3] = (await t.wholeLog()).filter((e) => e.streamId === stream).slice(2);
    expect([r2!.revision, r3!.revision]).toEqual([2, 3]);
    const lane = laneOf(user, LANES);
    const live = (await readRegistry(t.database.db, projection.name)).find((r) => r.status === 'live')!;
    const cp = (await readCheckpoints(t.database.db, projection.name, live.version)).get(lane)!;
    // Revision 3 without 2 (what a misrouted or reordered batch would deliver): an error, not a skip.
    await expect(applyLaneBatch(t.database.db, [projection], { lane, prev: cp, events: [r3!] })).rejects.toMatchObject({ name: 'StreamRevisionError' });
    expect((await readCounts(t.database.db, live.tables)).streams[stream]?.last_revision).toBe(1);
    await applyLaneBatch(t.database.db, [projection], { lane, prev: cp, events: [r2!, r3!] });
    // Delivered again: duplicates change nothing.
    await applyLaneBatch(t.database.db, [projection], { lane, prev: cp, events: [r2!, r3!] });
    const again = await start();
    await again.waitFor(t.last, 30_000);
    expect(await t.current()).toEqual(expectedCounts(await t.wholeLog()));
  }, 60_000);
});
