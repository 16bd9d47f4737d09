import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { EventStore } from './port.ts';

/** Chooses the adapter: EventStoreDB when EVENTSTORE_URL is set, else PostgreSQL in the same database. */
export async function createEventStore(_config: Config, _database: Database): Promise<EventStore> {
  throw new Error('event store adapters not built yet');
}
