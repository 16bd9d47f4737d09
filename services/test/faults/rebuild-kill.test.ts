import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smallJournal } from '@oj/projections/trades/testing';
import type { ProjectorHandle } from '@oj/projections/runtime/projector';
import { createStack, dumpLive, kill, MixedLoad, proveNothingLost, REPO_ROOT, settle, startCatchUpProjector, untilLive, type Stack } from './harness.ts';

/**
 * Fault: a rebuild process (`npm run projections -- rebuild trades`) is killed with SIGKILL in its bulk
 * phase, a second one as its finishing phase (the daily premium records) begins, and a third at the end
 * of that phase, with everything written but the version not yet marked built (a failpoint holds it
 * there: a kill timed from outside would hit that window only by luck), while trade commands keep
 * flowing. The live read models stay what they were (the API never serves a half-built version), the
 * half-finished version cannot be switched to, and the next rebuild resumes and switches to read models
 * equal to a clean rebuild.
 */
let stack: Stack;
let projector: ProjectorHandle | undefined;

function spawnRebuild(env: Record<string, string> = {}): { child: ChildProcess; phases: () => string } {
  // Small batches and segments: the log is written in many segments, so a kill finds one half done.
  const child = spawn(process.execPath, ['projections/src/cli.ts', 'rebuild', 'trades', '--batch-size', '200', '--segment-events', '400'], {
    cwd: REPO_ROOT,
    env: { ...stack.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let text = '';
  child.stderr?.on('data', (chunk: Buffer) => void (text += chunk.toString()));
  return { child, phases: () => text };
}

async function appendJournal(events: ReturnType<typeof smallJournal>['events']): Promise<void> {
  for (const e of events) {
    const { streamId, revision, position: _p, ...event } = e;
    await stack.store.append(streamId, [{ ...event, id: crypto.randomUUID() }], revision === 0 ? 'no_stream' : revision - 1);
  }
}

beforeAll(async () => {
  stack = await createStack('fault_rebuild_kill');
  projector = await startCatchUpProjector(stack);
  await untilLive(stack);
  // A log long enough for a rebuild to be caught in each phase.
  for (let i = 0; i < 60; i++) await appendJournal(smallJournal(`rebuild-kill-a${i}`, `rebuild-kill-b${i}`).events);
  await settle(stack, projector);
}, 180_000);

afterAll(async () => {
  await projector?.stop();
  await stack?.close();
}, 60_000);

describe('a rebuild killed in its bulk phase and in its finishing phase', () => {
  it('leaves the live read models untouched, then resumes to a clean result', async () => {
    const load = new MixedLoad(stack, 53);
    await load.addTraders(4);
    const flowing = load.run(120, 2);

    const liveVersion = async () => (await sql<{ version: number }>`select version from projection_registry where name = 'trades' and status = 'live'`.execute(stack.t.db.db)).rows[0]?.version;
    const before = await liveVersion();

    // 1. Killed in the bulk phase, once it has written part of the next version.
    const bulk = spawnRebuild();
    for (let i = 0; i < 1200; i++) {
      const r = await sql<{ done: number }>`select coalesce(max(events_done), 0)::int as done from projection_rebuilds where projection = 'trades' and finished_at is null`.execute(stack.t.db.db);
      if (Number(r.rows[0]?.done) > 0 || bulk.child.exitCode !== null) break;
      await new Promise((res) => setTimeout(res, 25));
    }
    expect(bulk.child.exitCode, 'the rebuild was still running when killed').toBeNull();
    await kill(bulk.child);
    expect(await liveVersion()).toBe(before);

    // 2. Resumed, and killed again as soon as it says it is finishing.
    let finishing: ReturnType<typeof spawnRebuild> | undefined;
    for (let attempt = 0; attempt < 50 && !finishing; attempt++) {
      const run = spawnRebuild();
      const exited = once(run.child, 'exit');
      for (;;) {
        if (/ finishing /.test(run.phases())) {
          await kill(run.child);
          finishing = run;
          break;
        }
        if (run.child.exitCode !== null) break;
        await new Promise((res) => setTimeout(res, 5));
      }
      await exited.catch(() => undefined);
      // Another rebuild's lock (the killed one's session, until the server notices) refuses a run: try again.
      if (!finishing) await new Promise((res) => setTimeout(res, 200));
    }
    expect(finishing, 'a rebuild was caught in its finishing phase').toBeDefined();
    expect(finishing!.phases()).not.toMatch(/ switching | done /);
    expect(await liveVersion(), 'a rebuild killed before its switch changed nothing live').toBe(before);

    // 3. Resumed, and killed with its finishing step written and committed but not yet marked built.
    let held: ReturnType<typeof spawnRebuild> | undefined;
    for (let attempt = 0; attempt < 50 && !held; attempt++) {
      const run = spawnRebuild({ OJ_FAILPOINTS: 'rebuild.finished' });
      const exited = once(run.child, 'exit');
      for (;;) {
        if (run.phases().includes('failpoint rebuild.finished reached')) {
          held = run;
          break;
        }
        if (run.child.exitCode !== null) break;
        await new Promise((res) => setTimeout(res, 20));
      }
      if (!held) {
        await exited.catch(() => undefined);
        await new Promise((res) => setTimeout(res, 200));
      }
    }
    expect(held, 'a rebuild reached the end of its finishing step').toBeDefined();
    const building = (
      await sql<{ version: number; tables: Record<string, string>; built_at: Date | null }>`
        select r.version, r.tables, b.built_at from projection_registry r join projection_rebuilds b on b.projection = r.name and b.version = r.version
        where r.name = 'trades' and r.status = 'building'`.execute(stack.t.db.db)
    ).rows[0];
    expect(building, 'the version being built').toBeDefined();
    const days = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(building!.tables.daily_premium!)}`.execute(stack.t.db.db);
    expect(days.rows[0]!.n, 'the held rebuild had written its day records').toBeGreaterThan(0);
    await kill(held!.child);
    expect(building!.built_at, 'not marked built before the failpoint').toBeNull();
    expect(await liveVersion(), 'a rebuild killed before it was marked built changed nothing live').toBe(before);
    // An operator who switches to it now is refused: its finishing step must run again first.
    const switchTo = async (version: number) => {
      const child = spawn(process.execPath, ['projections/src/cli.ts', 'switch', 'trades', String(version)], { cwd: REPO_ROOT, env: stack.env, stdio: ['ignore', 'pipe', 'pipe'] });
      let said = '';
      child.stdout?.on('data', (c: Buffer) => void (said += c.toString()));
      child.stderr?.on('data', (c: Buffer) => void (said += c.toString()));
      const [code] = (await once(child, 'exit')) as [number | null];
      return { code, said };
    };
    let refused = await switchTo(building!.version);
    // The killed rebuild's lock lasts until the server notices its session is gone.
    for (let i = 0; i < 20 && refused.said.includes('advisory lock held'); i++) {
      await new Promise((res) => setTimeout(res, 250));
      refused = await switchTo(building!.version);
    }
    expect(refused.said).toContain(`trades v${building!.version} has not finished building`);
    expect(refused.code).not.toBe(0);
    expect(await liveVersion()).toBe(before);

    await flowing;
    // 3. The proof: commands once each, and a rebuild that resumes to read models equal to the live ones.
    await proveNothingLost(stack, load, projector);
    expect(await liveVersion()).not.toBe(before);
    expect((await dumpLive(stack)).daily_premium?.length ?? 1).toBeGreaterThan(0);
  }, 300_000);
});
