import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { migrateToLatest } from '@oj/infra/db/migrate';
import { migrations as storeMigrations } from '@oj/infra/eventstore/migrations';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { START, comparePositions, type LogPosition, type StoredEvent } from '@oj/infra/eventstore/port';
import { migrations } from './migrations.ts';
import { countingProjection, expectedCounts, readCounts } from './test-projection.ts';
import { liveTables } from './registry.ts';
import { rebuild } from './rebuild.ts';

/**
 * A version number can be handed out again: docs/operations.md has operators delete the registry rows
 * of a read model removed from the code, and a version is numbered from the registry. Guard rows of
 * the earlier version under that number must not survive into the new one: the revision guard would
 * take its events for applied ones and drop them (a read model missing rows, silently).
 */
const projection = countingProjection({ name: 'stale_guard' });

describe('a new version under a number used before', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;
  let last: LogPosition = START;
  beforeAll(async () => {
    database = await createTestDatabase('stale_guard_rows');
    await migrateToLatest(database.db, [storeMigrations, migrations]);
    store = new PostgresEventStore(database);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('starts with no guard rows of the earlier version', async () => {
    for (let n = 0; n < 12; n++) {
      const user = `sg-${n % 3}`;
      const r = await store.append(
        `trade-${user}.l${n % 2}`,
        [{ id: randomUUID(), type: `E${n}`, schemaVersion: 1, data: {}, metadata: { userId: user, actor: { id: user, role: 'trader' }, correlationId: 'c', causationId: null, idempotencyKey: null, recordedAt: new Date().toISOString(), businessDate: '2026-11-20' } }],
        'any',
      );
      last = r.position;
    }
    let log: StoredEvent[];
    do log = await store.readAll({ streamPrefixes: ['trade-'], limit: 1000 });
    while (comparePositions(log.at(-1)?.position ?? START, last) < 0);
    // What an earlier version under the same number left behind once its registry row was deleted by hand.
    await sql`insert into projection_stream_revisions (projection, version, stream_id, revision)
      values (${projection.name}, ${projection.version}, ${'trade-sg-0.l0'}, 1), (${projection.name}, ${projection.version}, ${'trade-sg-1.l1'}, 0)`.execute(database.db);

    const [built] = await rebuild({ database, eventStore: store, projections: [projection], lanes: 2 }, projection.name);
    expect(built!.version).toBe(projection.version);
    expect(await readCounts(database.db, await liveTables(database.db, projection.name))).toEqual(expectedCounts(log));
  });
});
