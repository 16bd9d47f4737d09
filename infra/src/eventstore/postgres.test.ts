import { createTestDatabase, type TestDatabase } from '../testing/postgres.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { eventStoreContract } from './contract.ts';
import { migrations } from './migrations.ts';
import { PostgresEventStore } from './postgres.ts';

let database: TestDatabase | undefined;
async function opened(): Promise<TestDatabase> {
  if (!database) {
    database = await createTestDatabase('eventstore');
    await migrateToLatest(database.db, [migrations]);
  }
  return database;
}

eventStoreContract('PostgreSQL (node-postgres)', {
  freshLog: true,
  open: async (options) => new PostgresEventStore(await opened(), { ...options, pollIntervalMs: 200 }),
  openPausing: async (afterInsert) => new PostgresEventStore(await opened(), { afterInsert }),
  teardown: async () => database?.drop(),
});
