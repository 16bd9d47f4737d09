import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDatabaseUrl } from '@oj/infra/testing/env';
import type { ProjectorHandle } from '@oj/projections/runtime/projector';
import { createStack, kill, killSpawned, MixedLoad, proveNothingLost, spawnProjector, startCatchUpProjector, untilLive, type Stack } from './harness.ts';

/**
 * Fault: PostgreSQL connections are killed (`pg_terminate_backend`) again and again while commands are
 * group-committed and the projector (its own process, lanes in process) applies lane batches. A killed
 * connection is a transaction that never committed: the command is refused with a 503 and appends
 * nothing, or it succeeds whole; a lane batch is applied again from its checkpoint.
 */
let stack: Stack;
let projector: ProjectorHandle | undefined;
let child: ChildProcess | undefined;
let admin: pg.Client;

beforeAll(async () => {
  stack = await createStack('fault_pg_terminate');
  admin = new pg.Client({ connectionString: requireDatabaseUrl() });
  await admin.connect();
}, 60_000);

afterAll(async () => {
  if (child) await kill(child);
  await killSpawned();
  await projector?.stop();
  await admin?.end();
  await stack?.close();
}, 60_000);

describe('PostgreSQL connections killed during group commits and lane batches', () => {
  it('answers 503 or succeeds whole, and loses nothing', async () => {
    const load = new MixedLoad(stack, 29);
    await load.addTraders(6);
    child = spawnProjector(stack);
    await untilLive(stack);
    const database = new URL(stack.t.db.url).pathname.slice(1);
    let killed = 0;
    let running = true;
    const killer = (async () => {
      while (running) {
        await new Promise((r) => setTimeout(r, 150));
        const r = await admin.query('select count(pg_terminate_backend(pid)) as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [database]);
        killed += Number(r.rows[0]?.n ?? 0);
      }
    })();
    await load.run(200, 4);
    running = false;
    await killer;
    expect(killed).toBeGreaterThan(10);
    // The projector process lived through it (a broken connection is an error it retries, not a crash).
    expect({ exitCode: child.exitCode, signal: child.signalCode }).toEqual({ exitCode: null, signal: null });
    await load.recover();
    await kill(child);
    child = undefined;
    projector = await startCatchUpProjector(stack);
    // Killed connections are the one fault here that makes the database unreachable for a moment.
    await proveNothingLost(stack, load, projector, { allowed5xx: [503] });
    // The fault did reach the commands: some were answered 503 and settled by the client's retry.
    expect(load.sent.filter((s) => s.command && s.status === 503).length).toBeGreaterThan(0);
  }, 300_000);
});
