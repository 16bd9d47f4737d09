import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { postgresCpu, SAMPLER_WORK, workOf, type Activity } from './postgres-cpu.ts';

const client = (query: string, state = 'active'): Activity => ({ pid: 1, backend_type: 'client backend', state, query });

describe('workOf: what a server process was doing', () => {
  it.each([
    ['copy "trades_v103" ("user_id", "uid") from stdin (format binary)', 'COPY into trades'],
    ['COPY projection_stream_revisions (projection, version) FROM STDIN', 'COPY into projection_stream_revisions'],
    ['copy (select stream_id, revision from events e where e.commit > $1 order by commit) to stdout (format binary)', 'COPY out of events'],
    ['copy events to stdout', 'COPY out of events'],
    ['create index if not exists "trades_v103_list" on "trades_v103" (user_id, list)', 'index builds'],
    ['CREATE UNIQUE INDEX x ON y (a)', 'index builds'],
    ['analyze "trades_v103"', 'analyze'],
    ['select uid, user_id from "trades_v103" where user_id = any($1)', 'select from trades'],
    ['with k as (select 1) select * from "daily_premium_v7" d', 'select from daily_premium'],
    ['insert into "trade_counts_v103" (user_id, list, n) values ($1, $2, $3)', 'insert into trade_counts'],
    ['update projection_rebuilds set commit = $1', 'update projection_rebuilds'],
    ['delete from "trade_counts_v103" where n = 0', 'delete from trade_counts'],
    ['begin', 'begin'],
  ])('names %j by its kind and table, without the version suffix: %j', (query, work) => {
    expect(workOf(client(query))).toBe(work);
  });

  it('gives a parallel worker its leader statement, background processes their type, and idle clients "idle"', () => {
    expect(workOf({ pid: 2, backend_type: 'parallel worker', state: 'active', query: 'create index "t_v1_a" on "t_v1" (a)' })).toBe('index builds');
    expect(workOf({ pid: 2, backend_type: 'parallel worker', state: 'active', query: '' })).toBe('parallel workers (statement not shown)');
    expect(workOf({ pid: 3, backend_type: 'checkpointer', state: null, query: '' })).toBe('checkpointer');
    expect(workOf({ pid: 4, backend_type: 'walwriter', state: null, query: null })).toBe('walwriter');
    expect(workOf(client('copy "trades_v1" from stdin', 'idle'))).toBe('idle');
    expect(workOf(client('select 1', 'idle in transaction'))).toBe('idle');
  });

  it("labels the sampler's own statement, so its cost is reported rather than hidden", () => {
    expect(workOf(client('select /* postgres-cpu sampler */ pid, backend_type, state, query from pg_stat_activity'))).toBe(SAMPLER_WORK);
    // Another comment is not taken for the sampler's.
    expect(workOf(client('select /* report */ 1 from "trades_v2"'))).toBe('select from trades');
  });
});

describe('postgresCpu on the test server', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('postgres_cpu');
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("gives a CPU-bound statement's time to that statement's work", async (ctx) => {
    const stop = await postgresCpu(db.db, 50);
    if (!stop) {
      console.warn('SKIPPED: postgresCpu needs the PostgreSQL server on this machine (its processes in /proc); this one is not');
      ctx.skip();
      return;
    }
    // A table of its own, so that no other test's statement has this label.
    const table = `cpu_probe_${randomBytes(4).toString('hex')}`;
    await sql`create table ${sql.table(table)} (id text)`.execute(db.db);
    await sql`insert into ${sql.table(table)} values ('x')`.execute(db.db);
    const started = performance.now();
    await sql`select count(*) from ${sql.table(table)} p, generate_series(1, 1500000) g where md5(g::text || p.id) like 'a%'`.execute(db.db);
    const wall = (performance.now() - started) / 1000;
    const report = await stop();
    const probe = report.byWork.find((w) => w.work === `select from ${table}`);
    expect(probe, JSON.stringify(report.byWork)).toBeDefined();
    const used = probe!.user + probe!.system;
    // One backend, busy through the statement: its CPU is at most the statement's time (plus a tick's
    // rounding), and on a machine where it got at least a fair share of a core, a good part of it.
    expect(used).toBeLessThanOrEqual(wall + 0.05);
    expect(used).toBeGreaterThan(Math.min(0.2, wall / 4));
    expect(report.byWork.some((w) => w.work === SAMPLER_WORK)).toBe(true);
    expect(report.user + report.system).toBeGreaterThanOrEqual(used);
    expect(report.samples).toBeGreaterThan(1);
  });
});
