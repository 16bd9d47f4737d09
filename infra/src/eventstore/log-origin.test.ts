import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../db/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../testing/postgres.ts';
import { NEWEST_IN_LOG, logOrigin } from './log-origin.ts';
import { migrations } from './migrations.ts';

/**
 * The newest transaction id of the log is the largest as a number. Sorted as text, '9' comes after
 * '1000000000': a log copied from a cluster ahead of this one, whose ids cross a power of ten, would
 * have looked local (its foreign rows invisible, new appends sorting before them), and every start-up
 * scanned the whole log to find it.
 */
describe('logOrigin (PostgreSQL)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('log_origin');
    await migrateToLatest(database.db, [migrations]);
  });
  afterAll(async () => database?.drop());

  const insertAt = (commit: bigint, streamId: string) =>
    sql`insert into events (transaction_id, stream_id, revision, event_id, type, schema_version, data, metadata)
      values (${commit.toString()}::xid8, ${streamId}, 0, ${randomUUID()}, 'T', 1, '{}', '{}')`.execute(database.db);

  it('an empty log is local', async () => {
    expect(await logOrigin(database.db)).toMatchObject({ newest: null, foreign: false });
  });

  it('takes the largest id as a number, not as text', async () => {
    const { next } = await logOrigin(database.db);
    // One id below this server's horizon whose text sorts last ('9'), one above it with a leading 1.
    const ahead = 10n ** BigInt(next.toString().length + 1);
    await insertAt(9n, 'a-1');
    expect(await logOrigin(database.db)).toMatchObject({ newest: 9n, foreign: false });
    await insertAt(ahead, 'a-2');
    const origin = await logOrigin(database.db);
    expect(origin.newest).toBe(ahead);
    expect(origin.foreign).toBe(true);
  });

  it('reads one entry of the log-order index backwards, not the whole log', async () => {
    const plan = await sql<{ 'QUERY PLAN': string }>`explain ${NEWEST_IN_LOG}`.execute(database.db);
    const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toMatch(/Index (Only )?Scan Backward using events_log_order_idx/);
    expect(text).not.toMatch(/Sort|Seq Scan/);
  });
});
