import { beforeAll, describe, expect, it } from 'vitest';
import { countingProjection, expectedCounts, readCounts } from './test-projection.ts';
import type { ProjectorHandle } from './projector.ts';
import { liveTables, readRegistry } from './registry.ts';
import { abandon, rebuild, RebuildLockedError, retire, rollback, StaleVersionError, switchVersion, UnfinishedBuildError } from './rebuild.ts';
import { LOCK_OPERATOR, LOCK_REBUILD, tryLock } from './locks.ts';
import type { Projection } from './projection.ts';
import { runtimeTestBed } from './testing.ts';

/** Switch and rollback never touch a version a rebuild is writing, nor one whose build did not finish. */
const LANES = 2;
const projection = countingProjection({ name: 'guard_counts' });

describe('switch and rollback guards', () => {
  const t = runtimeTestBed('projector_switch_guards', { projection, lanes: LANES, user: (n) => `g-${n % 4}`, projector: { pollMs: 10 } });
  let projector: ProjectorHandle;
  const deps = (projections: Projection[] = [projection]) => ({ ...t.deps(), projections });

  beforeAll(async () => {
    projector = await t.start();
    await t.append(30);
    await projector.waitFor(t.last, 30_000);
  });

  it('refuses to switch a version whose rebuild was killed before the end of its finishing step', async () => {
    let armed = true;
    // The finishing step computes what bulk batches leave out (the daily premium records in the trade
    // read models): killed there, the version lacks those rows.
    const withFinishing: Projection = {
      ...projection,
      async finishBulk() {
        if (armed) throw new Error('killed while finishing');
      },
    };
    await expect(rebuild(deps([withFinishing]), projection.name, { switch: false, batchSize: 7 })).rejects.toThrow('killed while finishing');
    const building = (await readRegistry(t.database.db, projection.name)).find((r) => r.status === 'building')!;
    await expect(switchVersion(deps([withFinishing]), projection.name, building.version)).rejects.toBeInstanceOf(UnfinishedBuildError);
    await expect(switchVersion(deps([withFinishing]), projection.name, building.version)).rejects.toThrow(`run \`npm run projections -- rebuild ${projection.name}\` to finish it`);
    expect((await readRegistry(t.database.db, projection.name)).find((r) => r.status === 'live')!.version).not.toBe(building.version);

    // Resumed, it finishes; then the switch goes through.
    armed = false;
    const [resumed] = await rebuild(deps([withFinishing]), projection.name, { switch: false });
    expect(resumed!.version).toBe(building.version);
    await t.append(5);
    await switchVersion(deps([withFinishing]), projection.name, building.version);
    await projector.waitFor(t.last, 30_000);
    expect(await liveTables(t.database.db, projection.name)).toEqual(building.tables);
    expect(await readCounts(t.database.db, building.tables)).toEqual(expectedCounts(await t.wholeLog()));
  });

  it('refuses switch, rollback and retire while a rebuild of the projection runs (holds its lock)', async () => {
    const [built] = await rebuild(deps(), projection.name, { switch: false });
    const running = await tryLock(t.database, LOCK_REBUILD, projection.name);
    expect(running).not.toBeNull();
    try {
      await expect(switchVersion(deps(), projection.name, built!.version)).rejects.toBeInstanceOf(RebuildLockedError);
      await expect(switchVersion(deps(), projection.name, built!.version)).rejects.toThrow(`Cannot switch ${projection.name}: a rebuild of ${projection.name} is running`);
      await expect(rollback(deps(), projection.name)).rejects.toBeInstanceOf(RebuildLockedError);
      await expect(retire(deps(), projection.name)).rejects.toBeInstanceOf(RebuildLockedError);
    } finally {
      await running!.release();
    }
    const before = (await readRegistry(t.database.db, projection.name)).map((r) => [r.version, r.status]);
    expect(before.some(([v, s]) => v === built!.version && s === 'building')).toBe(true);
    await switchVersion(deps(), projection.name, built!.version);
    await rollback(deps(), projection.name);
    await t.append(5);
    await projector.waitFor(t.last, 30_000);
    expect(await readCounts(t.database.db, await liveTables(t.database.db, projection.name))).toEqual(expectedCounts(await t.wholeLog()));
  });

  it('a rollback to a far-behind version catches up in bounded batches, not the whole log in one transaction', async () => {
    const [fresh] = await rebuild(deps(), projection.name);
    expect(fresh!.switched).toBe(true);
    // The version just retired falls behind by 60 events.
    await t.append(60);
    await projector.waitFor(t.last, 30_000);
    const sizes: number[] = [];
    const recording: Projection = {
      ...projection,
      apply: (ctx, events) => {
        if (ctx.mode === 'rebuild') sizes.push(events.length);
        return projection.apply(ctx, events);
      },
    };
    await rollback(deps([recording]), projection.name, { catchUpBatch: 7 });
    expect(sizes.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(60);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(7);
    await t.append(5);
    await projector.waitFor(t.last, 30_000);
    expect(await readCounts(t.database.db, await liveTables(t.database.db, projection.name))).toEqual(expectedCounts(await t.wholeLog()));
  });
  it('a rollback or abandon that names its version waits for another operator command, then checks what it left', async () => {
    const status = async () => (await readRegistry(t.database.db, projection.name)).map((r) => [r.version, r.status, r.updatedAt.toISOString()]);
    const [built] = await rebuild(deps(), projection.name);
    const live = built!.version;
    const previous = (await readRegistry(t.database.db, projection.name)).filter((r) => r.status === 'retired').sort((a, b) => b.retiredAt!.getTime() - a.retiredAt!.getTime())[0]!.version;
    // Another operator's command holds the operator lock: this rollback waits for it (it does not fail as
    // if a rebuild ran), then finds the registry that command left.
    const other = await tryLock(t.database, LOCK_OPERATOR, projection.name);
    const waiting = rollback(deps(), projection.name, { to: previous, from: live });
    await new Promise((r) => setTimeout(r, 100));
    await other!.release();
    expect(await waiting).toEqual({ from: live, to: previous });
    // The same request again (a second tab): refused, nothing changed.
    const before = await status();
    await expect(rollback(deps(), projection.name, { to: previous, from: live })).rejects.toThrow(new StaleVersionError(`${projection.name} is no longer at v${live}: v${previous} is live now.`));
    await expect(rollback(deps(), projection.name, { to: previous })).rejects.toThrow(`${projection.name} v${previous} is live already.`);
    expect(await status()).toEqual(before);
    // Without a version (the CLI's `rollback <name>`): whatever is previous, as before.
    expect(await rollback(deps(), projection.name)).toEqual({ from: previous, to: live });

    const [next] = await rebuild(deps(), projection.name, { switch: false });
    await expect(abandon(deps(), projection.name, next!.version + 1)).rejects.toBeInstanceOf(StaleVersionError);
    expect(await abandon(deps(), projection.name, next!.version)).toBe(next!.version);
    await expect(abandon(deps(), projection.name, next!.version)).rejects.toThrow(`${projection.name} v${next!.version} is no longer building: it is gone (abandoned, or retired for good).`);
    expect(await abandon(deps(), projection.name)).toBeNull();
    // The next build never takes the abandoned number: an abandon still naming it (a dialog opened before)
    // is refused instead of dropping the new build.
    const [again] = await rebuild(deps(), projection.name, { switch: false });
    expect(again!.version).toBe(next!.version + 1);
    await expect(abandon(deps(), projection.name, next!.version)).rejects.toThrow(`${projection.name} is building v${next!.version + 1} now, not v${next!.version}.`);
    expect((await readRegistry(t.database.db, projection.name)).find((r) => r.status === 'building')!.version).toBe(again!.version);
    expect(await abandon(deps(), projection.name, again!.version)).toBe(again!.version);
    await t.append(5);
    await projector.waitFor(t.last, 30_000);
    expect(await readCounts(t.database.db, await liveTables(t.database.db, projection.name))).toEqual(expectedCounts(await t.wholeLog()));
  });
});
