import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { migrateToLatest } from '@oj/infra/db/migrate';
import { migrations } from './migrations.ts';
import { guardRowsOf } from './apply.ts';

/**
 * The stream guard is read by every lane batch. In the soak (a version built on an empty log, autovacuum
 * off, so the guard table had no statistics) the planner answered `stream_id = any(...)` by scanning every
 * guard row of the version, 93 ms a batch at 56,000 rows and growing. A batch's lookup must be one index
 * probe per stream whatever the planner knows.
 */
describe('the stream guard lookup of a lane batch', () => {
  let database: TestDatabase;
  const version = { name: 'guard_lookup', version: 3 };
  beforeAll(async () => {
    database = await createTestDatabase('guard_lookup');
    await migrateToLatest(database.db, [migrations]);
    // Analyzed while empty (as after a build on an empty log), then filled.
    await sql`analyze projection_stream_revisions`.execute(database.db);
    await sql`insert into projection_stream_revisions (projection, version, stream_id, revision)
      select ${version.name}, ${version.version}, 'trade-u' || (i % 500) || '.l' || i, i % 7 from generate_series(1, 60000) as g(i)`.execute(database.db);
  });
  afterAll(async () => {
    await database?.drop();
  });

  const ids = ['trade-u1.l1', 'trade-u7.l507', 'trade-u3.l59003', 'trade-u9.missing'];

  it('answers the streams asked for, and only them', async () => {
    const { rows } = await guardRowsOf(version, ids).execute(database.db);
    expect(rows.map((r) => [r.stream_id, Number(r.revision)]).sort()).toEqual([
      ['trade-u1.l1', 1],
      ['trade-u3.l59003', 59003 % 7],
      ['trade-u7.l507', 507 % 7],
    ]);
    const other = await guardRowsOf({ ...version, version: 4 }, ids).execute(database.db);
    expect(other.rows).toEqual([]);
  });

  it('probes the primary key once per stream, scanning no other guard row', async () => {
    const { rows } = await sql<{ 'QUERY PLAN': unknown }>`explain (analyze, format json) ${guardRowsOf(version, ids)}`.execute(database.db);
    const plan = JSON.stringify(rows[0]!['QUERY PLAN']);
    expect(plan).toContain('projection_stream_revisions_pkey');
    expect(plan).toMatch(/"Index Cond":"\(\(projection = [^"]*stream_id = s\.id\)\)"/);
    expect(plan).not.toContain('Seq Scan');
    expect(plan).not.toContain('Rows Removed by Filter');
  });
});
