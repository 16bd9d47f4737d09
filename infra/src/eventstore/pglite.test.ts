import type { Database } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { createPGliteDatabase } from '../testing/postgres.ts';
import { eventStoreContract } from './contract.ts';
import { migrations } from './migrations.ts';
import { PostgresEventStore } from './postgres.ts';

let database: Database | undefined;
async function opened(): Promise<Database> {
  if (!database) {
    database = await createPGliteDatabase();
    await migrateToLatest(database.db, [migrations]);
  }
  return database;
}

// No out-of-order case here: PGlite has one connection, so one append's transaction ends before the next
// begins and commit order is position order.
eventStoreContract('PostgreSQL (PGlite)', {
  freshLog: true,
  uniqueIdsAcrossStreams: true,
  open: async (options) => new PostgresEventStore(await opened(), { ...options, pollIntervalMs: 200 }),
  teardown: async () => database?.close(),
});
