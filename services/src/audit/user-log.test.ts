import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { sql, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '@oj/infra/db/migrate';
import { migrations as eventMigrations } from '@oj/infra/eventstore/migrations';
import type { EventStore } from '@oj/infra/eventstore/port';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { migrations as auditMigrations } from './migrations.ts';
import { createUserLog, forgetCachedLogs } from './user-log.ts';

/**
 * The user-log cache reads only the events after its cached head, and a full read goes in chunks of
 * 50,000. An event committed late (its transaction began first) behind the cached head or behind a
 * chunk's last event is not after it: neither read sees it. The count checked before (taken before the
 * read, with a new append in between) matched the events with the late one missing; a full read was
 * not checked at all.
 */
describe('createUserLog (PostgreSQL): the cached log', () => {
  let database: TestDatabase;
  const store = { kind: 'postgres' } as EventStore;
  const userId = randomUUID();

  beforeAll(async () => {
    database = await createTestDatabase('audit_user_log');
    await migrateToLatest(database.db, [eventMigrations, auditMigrations]);
  });
  afterAll(async () => database?.drop());

  /** One event of `user` named `name`, through the pool or a client holding a transaction open. */
  const insert = async (through: pg.Pool | pg.Client, name: string, user = userId): Promise<void> => {
    await through.query(`insert into events (stream_id, revision, event_id, type, schema_version, data, metadata) values ($1, 0, $2, 'Test', 1, $3, '{}')`, [
      `trade-${user}.${name}`,
      randomUUID(),
      JSON.stringify({ name }),
    ]);
  };
  const names = (events: readonly { data: unknown }[]) => events.map((e) => (e.data as { name: string }).name);

  it('does not answer a history without an event committed late behind the cached head', async () => {
    forgetCachedLogs();
    await insert(database.pool!, 'a');
    // `late` takes its transaction id first and commits after `head` (and after the log is cached).
    const late = new pg.Client({ connectionString: database.url });
    await late.connect();
    try {
      await late.query('begin');
      await insert(late, 'late');
      await insert(database.pool!, 'head');
      expect(names(await createUserLog(store, database.db).all(userId))).toEqual(['a', 'head']);
      await late.query('commit');
    } finally {
      await late.end();
    }

    // Right after the count is read, another event is appended.
    let armed = true;
    const appendAfterCount: KyselyPlugin = {
      transformQuery: (args) => args.node,
      async transformResult(args) {
        const row = args.result.rows[0] as Record<string, unknown> | undefined;
        if (armed && row && 'n' in row) {
          armed = false;
          await insert(database.pool!, 'new');
        }
        return args.result;
      },
    };
    const events = await createUserLog(store, database.db.withPlugin(appendAfterCount)).all(userId);
    expect(armed).toBe(false);
    expect(names(events)).toEqual(['a', 'late', 'head', 'new']);
  });
  it('does not answer a history without an event committed late behind a chunk of a full read', async () => {
    forgetCachedLogs();
    const other = randomUUID();
    const late = new pg.Client({ connectionString: database.url });
    await late.connect();
    try {
      await late.query('begin');
      await insert(late, 'late', other);
      // More events than one chunk of a full read (50,000), committed after `late` took its transaction id.
      await sql`insert into events (stream_id, revision, event_id, type, schema_version, data, metadata)
        select ${`trade-${other}.s`} || i, 0, gen_random_uuid(), 'Test', 1, '{"name":"bulk"}', '{}' from generate_series(1, 50001) as i`.execute(database.db);
      // `late` commits right after the first chunk was read.
      let committed = false;
      const commitAfterFirstChunk: KyselyPlugin = {
        transformQuery: (args) => args.node,
        async transformResult(args) {
          if (!committed && args.result.rows.length === 50_000) {
            committed = true;
            await late.query('commit');
          }
          return args.result;
        },
      };
      const events = await createUserLog(store, database.db.withPlugin(commitAfterFirstChunk)).all(other);
      expect(events.length).toBe(50_002);
      expect(names(events)[0]).toBe('late');
    } finally {
      await late.end();
    }
  });
});
