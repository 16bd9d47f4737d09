import { describe, expect, it } from 'vitest';
import { groupByStream, WholeStreams } from './by-stream.ts';
import type { ProjectedEvent } from './port.ts';

/**
 * The regrouping of a read in stream order into batches of whole streams, at every place a read can be
 * cut: the adapters' `readByStream` is the event store's contract ("reads by stream"); here, the cuts.
 */
const ev = (streamId: string, revision: number): ProjectedEvent => ({
  id: `${streamId}@${revision}`,
  type: 'T',
  schemaVersion: 1,
  data: {},
  metadata: { userId: 'u', recordedAt: '2026-12-03T00:00:00.000Z' },
  streamId,
  revision,
  position: { commit: 1n, prepare: BigInt(revision) },
});

/** Streams a (3 events), b (1), c (4), d (2), in stream order. */
const read = [...[0, 1, 2].map((r) => ev('a', r)), ev('b', 0), ...[0, 1, 2, 3].map((r) => ev('c', r)), ...[0, 1].map((r) => ev('d', r))];

describe('WholeStreams', () => {
  it('hands over whole streams whatever the reads are cut at, each stream once and together', () => {
    for (const size of [1, 2, 3, 4, 5, 7, 10, 11]) {
      const streams = new WholeStreams();
      const batches: ProjectedEvent[][] = [];
      for (let i = 0; i < read.length; i += size) batches.push(streams.take(read.slice(i, i + size)));
      batches.push(streams.rest());
      const nonEmpty = batches.filter((b) => b.length > 0);
      expect(nonEmpty.flat().map((e) => e.id)).toEqual(read.map((e) => e.id));
      // No stream in two batches.
      const where = new Map<string, number>();
      nonEmpty.forEach((b, i) => {
        for (const e of b) {
          expect(where.get(e.streamId) ?? i).toBe(i);
          where.set(e.streamId, i);
        }
      });
      // Nothing is held back but the last stream of what was read.
      if (size === 4) expect(batches.map((b) => b.map((e) => e.id))).toEqual([['a@0', 'a@1', 'a@2'], ['b@0'], ['c@0', 'c@1', 'c@2', 'c@3'], ['d@0', 'd@1']]);
    }
  });

  it('holds a stream longer than a read until it ends', () => {
    const streams = new WholeStreams();
    expect(streams.take(read.slice(4, 5))).toEqual([]);
    expect(streams.take(read.slice(5, 6))).toEqual([]);
    expect(streams.take(read.slice(6, 9)).map((e) => e.id)).toEqual(['c@0', 'c@1', 'c@2', 'c@3']);
    expect(streams.rest().map((e) => e.id)).toEqual(['d@0']);
    expect(streams.rest()).toEqual([]);
  });
});

describe('groupByStream', () => {
  it("puts each stream's events together, streams in the order of their first events, each in the order given", () => {
    const log = [ev('b', 0), ev('a', 0), ev('b', 1), ev('c', 0), ev('a', 1), ev('b', 2)];
    expect(groupByStream(log).map((e) => e.id)).toEqual(['b@0', 'b@1', 'b@2', 'a@0', 'a@1', 'c@0']);
  });
});
