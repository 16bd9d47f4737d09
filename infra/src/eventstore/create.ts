import { upcast } from '@oj/contracts/events';
import { journalEventVersions, journalUpcasters, type JournalEventType } from '@oj/contracts/journal-events';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { EventStore, ProjectedEvent } from './port.ts';
import { PostgresEventStore } from './postgres.ts';
import { assertLocalLogPositions } from './log-origin.ts';

/**
 * Old schema versions of the journal's events become the current ones on read; the stored events stay
 * as they were decided. Types the journal does not own pass through untouched.
 */
export function upcastJournalEvent<E extends ProjectedEvent>(event: E): E {
  if (!Object.hasOwn(journalEventVersions, event.type)) return event;
  return upcast(journalUpcasters, event, (type) => journalEventVersions[type as JournalEventType]);
}

/** Chooses the adapter: EventStoreDB when EVENTSTORE_URL is set, else PostgreSQL in the same database. */
export async function createEventStore(config: Config, database: Database): Promise<EventStore> {
  if (config.EVENTSTORE_URL) {
    // Loaded only when used: embedded mode never pulls in the gRPC client.
    const { EventStoreDbEventStore } = await import('./eventstoredb.ts');
    return EventStoreDbEventStore.connect(config.EVENTSTORE_URL, { upcast: upcastJournalEvent });
  }
  // A log copied from another cluster would be invisible and new events would sort before it: refuse
  // to start on it (see log-origin.ts; the recovery command is in the error).
  await assertLocalLogPositions(database.db);
  return new PostgresEventStore(database, { upcast: upcastJournalEvent });
}
