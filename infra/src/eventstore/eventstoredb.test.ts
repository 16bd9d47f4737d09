import { describe, it } from 'vitest';
import { eventStoreContract } from './contract.ts';
import { EventStoreDbEventStore } from './eventstoredb.ts';

const url = process.env.EVENTSTORE_URL;

if (url) {
  // The server's log is shared by every test file of the run: the contract keeps to its own streams.
  eventStoreContract('EventStoreDB', {
    freshLog: false,
    open: async (options) => EventStoreDbEventStore.connect(url, options),
  });
} else {
  console.warn(
    '\n!! EventStoreDB contract tests SKIPPED: EVENTSTORE_URL is not set and no Docker engine started one. ' +
      'The EventStoreDB adapter is NOT verified by this run.\n',
  );
  describe.skip('event store contract: EventStoreDB (skipped: no EVENTSTORE_URL and no Docker engine)', () => {
    it('runs the event store contract against EventStoreDB', () => {});
  });
}
