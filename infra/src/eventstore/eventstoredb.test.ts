import { describe, expect, it } from 'vitest';
import { EventStoreDBClient, UnavailableError } from '@eventstore/db-client';
import { eventStoreContract } from './contract.ts';
import { EventStoreDbEventStore } from './eventstoredb.ts';
import { filteredReadAll, filteredReadRequest } from './eventstoredb-filtered-read.ts';

const url = process.env.EVENTSTORE_URL;

/** Whether a server answers at `url` within a few seconds (a head read). */
async function reachable(url: string): Promise<string | null> {
  const store = EventStoreDbEventStore.connect(url);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([store.head(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no answer within 5 s')), 5000)))]);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
    await store.close().catch(() => {});
  }
}

const unreachable = url ? await reachable(url) : 'EVENTSTORE_URL is not set and no Docker engine started one';

if (url && unreachable === null) {
  // The server's log is shared by every test file of the run: the contract keeps to its own streams.
  eventStoreContract('EventStoreDB', {
    freshLog: false,
    // Event ids dedupe per stream on EventStoreDB: the same id in another stream is another event.
    uniqueIdsAcrossStreams: false,
    open: async (options) => EventStoreDbEventStore.connect(url, options),
  });
} else {
  console.warn(
    `\n!! EventStoreDB contract tests SKIPPED (${unreachable ?? 'unknown'}${url ? `: ${url}` : ''}). ` + 'The EventStoreDB adapter is NOT verified by this run.\n',
  );
  describe.skip(`event store contract: EventStoreDB (skipped: ${unreachable})`, () => {
    it('runs the event store contract against EventStoreDB', () => {});
  });
}

/**
 * What runs without a server: the filtered $all read is the client's own read request with a
 * server-side filter (the client only sends filters on subscriptions), and it goes through the
 * client's own call plumbing.
 */
describe('EventStoreDB filtered $all read (no server needed)', () => {
  it('asks the server to filter by stream prefix, from an inclusive position, for a count', () => {
    const req = filteredReadRequest({ from: { commit: 1234n, prepare: 1200n }, direction: 'forwards', maxCount: 501, streamPrefixes: ['trade-u1.', 'trade-u2.'] }).toObject();
    expect(req.options).toMatchObject({
      all: { position: { commitPosition: '1234', preparePosition: '1200' } },
      readDirection: 0,
      count: '501',
      resolveLinks: false,
      filter: { streamIdentifier: { prefixList: ['trade-u1.', 'trade-u2.'], regex: '' }, count: {} },
    });
    expect(req.options?.noFilter).toBeUndefined();
  });

  it('without prefixes, leaves the server’s own records out by event type; head reads backwards from the end', () => {
    const req = filteredReadRequest({ from: 'end', direction: 'backwards', maxCount: 1 }).toObject();
    expect(req.options).toMatchObject({ all: { end: {} }, readDirection: 1, count: '1', filter: { eventType: { regex: '^[^\\$].*' } } });
  });

  it('goes through the client’s gRPC plumbing: with no server the read fails as a connection error, not a programming error', async () => {
    const client = EventStoreDBClient.connectionString('esdb://127.0.0.1:1?tls=false');
    try {
      const read = filteredReadAll(client, { from: 'start', direction: 'forwards', maxCount: 1 });
      const error = await (async () => {
        try {
          for await (const _ of read) return null;
          return null;
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(UnavailableError);
    } finally {
      await client.dispose();
    }
  }, 30_000);
});
