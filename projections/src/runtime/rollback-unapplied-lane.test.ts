import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { START, comparePositions } from '@oj/infra/eventstore/port';
import { countingProjection, expectedCounts, readCounts } from './test-projection.ts';
import { liveRow, readCheckpoints } from './registry.ts';
import { applyLaneBatch } from './apply.ts';
import { rebuild, rollback } from './rebuild.ts';
import { laneOf } from './lanes.ts';
import { runtimeTestBed, until } from './testing.ts';

/**
 * Found by the model-based test of the projector's operations (operations-model.test.ts, seed
 * 1347492237, path 44): the first projector made its read model live on an empty log with no lane
 * checkpoint rows (a lane's row was made by its first batch). Its leader was killed before one lane's
 * first batch applied; a rebuild went live; a rollback to the first version then took the lane without a
 * row to stand at the version's lowest lane, and its catch-up skipped that lane's users' events up to
 * there: their trades were missing from the read model, with no error when no later event of theirs
 * followed (a revision gap, and a lane that stopped, when one did).
 *
 * Now a version goes live with a row for every lane, and a lane without one (a version made live by an
 * earlier release) counts as having applied nothing.
 */
const LANES = 2;
const projection = countingProjection({ name: 'rollback_unapplied' });
const users = Array.from({ length: 12 }, (_, i) => `ru-${i}`);

describe('rollback to a version with a lane that never applied a batch', () => {
  const t = runtimeTestBed('rollback_unapplied', {
    projection,
    lanes: LANES,
    user: (n) => users[(n * 5) % users.length]!,
    projector: { pollMs: 10 },
  });

  it('goes live with a checkpoint for every lane, and a rollback catches up a lane without one from the start', async () => {
    // The first projector, on an empty log: the version goes live with every lane at START.
    const p = await t.start();
    await until(async () => (await liveRow(t.database.db, projection.name)) !== undefined, { what: 'a live version', timeoutMs: 20_000 });
    await p.stop();
    const first = (await liveRow(t.database.db, projection.name))!;
    expect([...(await readCheckpoints(t.database.db, projection.name, first.version))]).toEqual(Array.from({ length: LANES }, (_, lane) => [lane, START]));

    // As an earlier release left it: lane 0 without a row. Lane 1 applies its events; lane 0's first batch
    // never does (its projector killed first).
    await sql`delete from projection_checkpoints where projection = ${projection.name} and version = ${first.version} and lane = 0`.execute(t.database.db);
    await t.append(20);
    const log = await t.wholeLog();
    expect(new Set(log.map((e) => laneOf(e.metadata.userId, LANES)))).toEqual(new Set([0, 1]));
    await applyLaneBatch(t.database.db, [projection], { lane: 1, prev: START, events: log.filter((e) => laneOf(e.metadata.userId, LANES) === 1) });
    const lane1 = (await readCheckpoints(t.database.db, projection.name, first.version)).get(1)!;
    expect(log.some((e) => laneOf(e.metadata.userId, LANES) === 0 && comparePositions(e.position, lane1) < 0), 'lane 0 has events before lane 1 stands').toBe(true);

    // A rebuild goes live (it has everything), then the operator rolls back to the first version.
    const [built] = await rebuild(t.deps(), projection.name);
    expect(built!.switched).toBe(true);
    const back = await rollback(t.deps(), projection.name, { catchUpBatch: 4 });
    expect(back.to).toBe(first.version);
    expect(await readCounts(t.database.db, first.tables)).toEqual(expectedCounts(log));
  }, 60_000);
});
