import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { openDatabase } from '@oj/infra/db/database';
import { createEventStore } from '@oj/infra/eventstore/create';
import { loadConfig } from '@oj/infra/config';
import { createLogger } from '@oj/infra/logger';
import { requireRedisUrl } from '@oj/infra/testing/env';
import { allProjections } from './catalogue.ts';
import { startProjector } from './runtime/projector.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { claimDataDir } from './runtime/data-dir-lock.ts';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { upcastJournalEvent } from '@oj/infra/eventstore/create';
import { smallJournal } from './trades/testing.ts';
import { tradesProjection } from './trades/projection.ts';
import { hostname, userInfo } from 'node:os';
import { sql } from 'kysely';

const run = promisify(execFile);
const cli = join(import.meta.dirname, 'cli.ts');

async function projections(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', NODE_ENV: 'test', ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('projections CLI', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'oj-cli-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses the embedded data directory while another process holds it, and says so', async () => {
    const claim = claimDataDir(dataDir);
    try {
      const res = await projections(['status'], { DATA_DIR: dataDir });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(`The embedded database in ${dataDir} is in use by process ${process.pid}`);
      expect(res.stderr).toContain('stop that process first');
    } finally {
      claim.release();
    }
  });

  it('prints its usage for --help, -h and help, and one line with the usage for an unknown option, never a stack trace (QA)', async () => {
    const help = await projections(['--help'], { DATA_DIR: dataDir });
    expect([help.code, help.stderr]).toEqual([0, '']);
    expect(help.stdout).toMatch(/^Usage: npm run projections/);
    for (const ask of ['-h', 'help']) {
      const again = await projections([ask], { DATA_DIR: dataDir });
      expect([again.code, again.stdout], ask).toEqual([0, help.stdout]);
    }
    for (const args of [['--bogus'], ['status', '--bogus']]) {
      const bogus = await projections(args, { DATA_DIR: dataDir });
      expect([bogus.code, bogus.stdout, bogus.stderr], args.join(' ')).toEqual([2, '', `Unknown option '--bogus'\n\n${help.stdout}`]);
    }
  });

  it('answers usage errors with exit code 2', async () => {
    const res = await projections(['frobnicate'], { DATA_DIR: dataDir });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('Unknown command frobnicate');
    expect(res.stderr).toContain('Usage: npm run projections');
    for (const flag of ['--segment-events', '--batch-size']) {
      const bad = await projections(['rebuild', 'trades', flag, '0'], { DATA_DIR: dataDir });
      expect(bad.code, flag).toBe(2);
      expect(bad.stderr).toContain(`${flag} needs a whole number of events above 0`);
    }
  });
});

describe('projections CLI on the embedded PGlite (no DATABASE_URL, no REDIS_URL)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'oj-cli-pglite-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('status, rebuild all and one user, diff, switch and retire on the data directory', { timeout: 240_000 }, async () => {
    const env = { DATA_DIR: dataDir, PROJECTOR_LANES: '2' };
    // The first command migrates the fresh data directory; then the small journal goes into its store
    // (this process holds the directory only while it appends, as `npm start` would).
    const first = await projections(['status'], env);
    expect(first.code).toBe(0);
    // It says so: a mistyped DATA_DIR would otherwise read as a journal with nothing built.
    expect(first.stderr).toContain(`DATA_DIR ${dataDir} held no journal: a new, empty one was started there.`);
    expect((await projections(['status'], env)).stderr).not.toContain('held no journal');
    const claim = claimDataDir(dataDir);
    const db = await openDatabase({ dataDir: `${dataDir}/pg` });
    try {
      const store = new PostgresEventStore(db, { upcast: upcastJournalEvent });
      for (const e of smallJournal('user-1', 'user-2').events) {
        const { streamId, revision, position: _p, ...event } = e;
        await store.append(streamId, [{ ...event, id: crypto.randomUUID() }], revision === 0 ? 'no_stream' : revision - 1);
      }
      await store.close();
    } finally {
      await db.close();
      claim.release();
    }
    const events = smallJournal().events.length;
    const built = await projections(['rebuild', 'all'], env);
    expect(built.code, built.stderr).toBe(0);
    expect(built.stdout).toMatch(new RegExp(`trades v\\d+: ${events} events applied, now live`));
    const status = JSON.parse((await projections(['status', '--json'], env)).stdout);
    const trades = status.projections.find((p: { name: string }) => p.name === 'trades');
    // The small journal's rows: 11 trades (A, A2, A3, A4, B1, B2, C, D, E, F of user-1 and X of user-2),
    // 8 lineages (G deleted included), 1 split, 10 + 1 daily records.
    expect(trades.versions.find((v: { status: string }) => v.status === 'live').counts).toMatchObject({ trades: 11, trade_lineages: 8, split_history: 1, daily_premium: 11 });
    const one = await projections(['rebuild', 'trades', '--user', 'user-1'], env);
    expect(one.code, one.stderr).toBe(0);
    // Its rows were just rebuilt: the recompute finds nothing to write, and says so.
    expect(one.stdout).toMatch(/trades v\d+: recomputed user user-1 \(\d+ events\): every row was right, nothing written/);
    // A mistyped id reads no event, and says so; an e-mail is refused before anything is opened (QA 71:
    // both read "(0 events): every row was right", exit 0).
    const nobody = await projections(['rebuild', 'trades', '--user', 'user-9'], env);
    expect(nobody.code, nobody.stderr).toBe(0);
    expect(nobody.stdout).toMatch(/recomputed user user-9 \(0 events\).*No event in the journal is this user's: if you expected some, check the id/);
    const email = await projections(['rebuild', 'trades', '--user', 'user-1@example.com'], env);
    expect([email.code, email.stderr.split('\n')[0]]).toEqual([2, "--user takes a user's id, not an e-mail: `npm run audit -- find user-1@example.com --as <staff e-mail>` gives it (the Operations page's Rebuild one user takes either)"]);
    const again = await projections(['rebuild', 'trades', '--no-switch'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('left building');
    const diff = await projections(['diff', 'trades'], env);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout.trim().split('\n').every((l) => l.endsWith(': identical'))).toBe(true);
    const versions = JSON.parse((await projections(['status', '--json'], env)).stdout).projections.find((p: { name: string }) => p.name === 'trades').versions;
    const building = versions.find((v: { status: string }) => v.status === 'building').version;
    // A finished build left for diff and switch is not a rebuild in progress (QA: "in progress/stopped … (resume: …)").
    const waiting = await projections(['status'], env);
    expect(waiting.stdout).toContain(`  v${building} built, not switched: compare with \`diff trades\`, then \`switch trades ${building}\``);
    expect(waiting.stdout).not.toContain('in progress/stopped');
    expect((await projections(['switch', 'trades', String(building)], env)).stdout).toContain(`trades v${building} is live`);
    expect((await projections(['retire', 'trades'], env)).stdout).toMatch(/trades: dropped v\d+/);
  });

  it('logs what it did in the operator log as the CLI, refuses a switch to the live version as the console does, prints formulas as the screens number them and says what became of a version (QA)', { timeout: 240_000 }, async () => {
    const env = { DATA_DIR: dataDir, PROJECTOR_LANES: '2' };
    const code = tradesProjection.version;
    // "formulas v203" was the code version: trades numbers it formulas x 100 + shape.
    const status = await projections(['status'], env);
    expect(status.stdout).toMatch(new RegExp(`  v\\d+ live +formulas v${Math.floor(code / 100)} \\(code v${code}\\) tables`));
    const versions = async () => JSON.parse((await projections(['status', '--json'], env)).stdout).projections.find((p: { name: string }) => p.name === 'trades').versions as Array<{ version: number; status: string }>;
    const live = (await versions()).find((v) => v.status === 'live')!.version;
    const again = await projections(['switch', 'trades', String(live)], env);
    expect([again.code, again.stdout, again.stderr]).toEqual([1, '', `trades v${live} is already live.\n`]);
    const never = live + 50;
    const unbuilt = await projections(['abandon', 'trades', '--version', String(never)], env);
    expect([unbuilt.code, unbuilt.stderr]).toEqual([1, `trades has no v${never}: it was never built.\n`]);
    expect((await projections(['rebuild', 'trades', '--no-switch'], env)).code).toBe(0);
    const building = (await versions()).find((v) => v.status === 'building')!.version;
    expect((await projections(['abandon', 'trades'], env)).stdout).toBe(`trades: dropped building v${building}\n`);
    const back = await projections(['rollback', 'trades', '--version', String(building)], env);
    expect([back.code, back.stderr]).toEqual([1, `trades has no v${building} to roll back to now: it was abandoned.\n`]);
    // A projection the code does not have is refused (the console answers 404), not logged as failed (QA 71).
    const unknown = await projections(['rebuild', 'nosuch'], env);
    expect([unknown.code, unknown.stderr]).toEqual([1, 'Unknown projection nosuch. Known: trades\n']);

    const claim = claimDataDir(dataDir);
    const db = await openDatabase({ dataDir: `${dataDir}/pg` });
    try {
      const { rows } = await sql<{ actor_id: string; actor_email: string; actor_role: string; action: string; version: number | null; outcome: string; message: string }>`
        select actor_id, actor_email, actor_role, action, version, outcome, message from operator_actions order by at, id`.execute(db.db);
      const who = `${userInfo().username}@${hostname()}`;
      expect(rows.every((r) => r.actor_role === 'CLI' && r.actor_email === `CLI (${who})` && r.actor_id === `cli:${who}`)).toBe(true);
      // The first test's commands (each rebuild started, then ended; status and diff change nothing), then this one's.
      expect(rows.map((r) => [r.action, r.outcome])).toEqual([
        ['rebuild', 'ok'], ['rebuild', 'ok'], ['rebuild-user', 'ok'], ['rebuild-user', 'ok'], ['rebuild-user', 'ok'], ['rebuild-user', 'ok'], ['rebuild', 'ok'], ['rebuild', 'ok'], ['switch', 'ok'], ['retire', 'ok'],
        ['switch', 'refused'], ['abandon', 'refused'], ['rebuild', 'ok'], ['rebuild', 'ok'], ['abandon', 'ok'], ['rollback', 'refused'], ['rebuild', 'refused'],
      ]);
      expect(rows[10]!.message).toBe(`trades v${live} is already live.`);
      expect(rows[11]!.message).toBe(`trades has no v${never}: it was never built.`);
      expect(rows.at(-1)!.message).toBe('Unknown projection nosuch. Known: trades');
      expect(rows.slice(-5, -1).map((r) => [r.version, r.message])).toEqual([
        [building, 'Rebuild of trades (CLI, no switch): started.'],
        [building, expect.stringMatching(new RegExp(`^Rebuild of trades v${building} \\(asked for by CLI \\(.+\\)\\) ended: built beside the live version, not switched`))],
        [building, `trades: dropped building v${building}`],
        [building, `trades has no v${building} to roll back to now: it was abandoned.`],
      ]);
    } finally {
      await db.close();
      claim.release();
    }
  });
});

describe('projections CLI on PostgreSQL (services mode)', () => {
  let database: TestDatabase;
  let dataDir: string;
  beforeAll(async () => {
    database = await createTestDatabase('projections_cli');
    dataDir = await mkdtemp(join(tmpdir(), 'oj-cli-'));
  });
  afterAll(async () => {
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('rebuilds every read model with progress on stderr, then shows status, diff and retire', async () => {
    const env = { DATABASE_URL: database.url, DATA_DIR: dataDir, PROJECTOR_LANES: '2' };
    const first = await projections(['rebuild', 'all'], env);
    expect(first.stderr, first.stderr).toMatch(/events +\d+ ev\/s +ETA/);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/v\d+: 0 events applied, now live/);
    const again = await projections(['rebuild', 'all', '--no-switch'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('left building');
    const status = await projections(['status', '--json'], env);
    expect(status.code).toBe(0);
    const parsed = JSON.parse(status.stdout);
    for (const p of parsed.projections) expect(p.versions.map((v: { status: string }) => v.status)).toEqual(['live', 'building']);
    const name = parsed.projections[0].name as string;
    const diff = await projections(['diff', name], env);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('identical');
    expect(diff.stdout).not.toContain('came after it');
    // Events after the build: diff says the build stops where it was built (QA: the CLI said nothing, the console did).
    const store = new PostgresEventStore(database, { upcast: upcastJournalEvent });
    const journal = smallJournal('late-1', 'late-2').events;
    for (const e of journal) {
      const { streamId, revision, position: _p, ...event } = e;
      await store.append(streamId, [{ ...event, id: crypto.randomUUID() }], revision === 0 ? 'no_stream' : revision - 1);
    }
    await store.close();
    const building = parsed.projections.find((p: { name: string }) => p.name === 'trades').versions[1].version;
    const late = await projections(['diff', 'trades'], env);
    expect(late.code, late.stderr).toBe(0);
    expect(late.stdout.split('\n')[0]).toBe(`v${building} stops where it was built: ${journal.length} events came after it; rows they touch differ from live until it is caught up (a switch catches up first).`);
    const lateJson = await projections(['diff', 'trades', '--json'], env);
    expect(Array.isArray(JSON.parse(lateJson.stdout))).toBe(true);
    expect(lateJson.stderr).toContain(`${journal.length} events came after it`);
    const switched = await projections(['switch', name, String(parsed.projections[0].versions[1].version)], env);
    expect(switched.stdout).toContain('is live');
    const retired = await projections(['retire', name], env);
    expect(retired.stdout).toMatch(/dropped v\d+/);
  }, 120_000);
});

describe('projections CLI with Redis: the rebuild is a job of the projector', () => {
  let database: TestDatabase;
  let dataDir: string;
  const prefix = `ojtest-${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    database = await createTestDatabase('projections_cli_job');
    dataDir = await mkdtemp(join(tmpdir(), 'oj-cli-'));
  });
  afterAll(async () => {
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
    const redis = new Redis(requireRedisUrl());
    try {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
    } finally {
      await redis.quit();
    }
  });

  it('warns when no projector picks the job up, then follows it to the end once one runs', async () => {
    const env = { DATABASE_URL: database.url, DATA_DIR: dataDir, PROJECTOR_LANES: '2', REDIS_URL: requireRedisUrl(), BULLMQ_PREFIX: prefix, REBUILD_PICKUP_WARN_MS: '300' };
    // The projector's tables and the store exist before the projector starts (as `npm run projector` migrates first).
    const migrated = await projections(['status'], { ...env, REDIS_URL: '' });
    expect(migrated.code, migrated.stderr).toBe(0);
    const child = spawn(process.execPath, [cli, 'rebuild', 'all'], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', NODE_ENV: 'test', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await new Promise<void>((resolve) => {
      child.stderr.on('data', (d) => {
        stderr += d;
        if (stderr.includes('No projector picked up')) resolve();
      });
      child.on('exit', () => resolve());
    });
    expect(stderr).toContain('no projector is running? Start `npm run projector`, or pass --here to run it in this process');
    // The projector finds the CLI's job through the same BULLMQ_PREFIX setting.
    const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, DATABASE_URL: database.url, REDIS_URL: requireRedisUrl(), PROJECTOR_LANES: '2', BULLMQ_PREFIX: prefix });
    const db = await openDatabase({ url: database.url, poolSize: 4 });
    const eventStore = await createEventStore(config, db);
    const projector = await startProjector({ config, database: db, eventStore, logger: createLogger('silent'), metrics: new Registry(), projections: allProjections });
    try {
      expect(await exited, stderr).toBe(0);
      expect(stdout).toMatch(/v\d+: 0 events applied, now live/);
      expect(stderr).toMatch(/Queued rebuild job rebuild-all/);
    } finally {
      await projector.stop();
      await eventStore.close();
      await db.close();
    }
  });
});
