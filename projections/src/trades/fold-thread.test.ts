import { describe, expect, it } from 'vitest';
import type { BinaryType } from '@oj/infra/db/copy-binary';
import type { JsonDataEvent } from '@oj/infra/eventstore/port';
import { FoldThread } from './fold-thread.ts';
import { segmentTables, type SegmentTable } from './segment-fold.ts';
import { smallJournal } from './testing.ts';

/**
 * The rebuild's fold worker fails loudly. (That what it folds and encodes is what the projection
 * writes live is `bulk-run.test.ts`: its PostgreSQL rebuilds go through the worker, row by row against
 * the live version, in segments of 1 to 100,000 events.)
 */

const asJson = (events: ReturnType<typeof smallJournal>['events']): JsonDataEvent[] =>
  events.map((e) => ({ ...e, data: JSON.stringify(e.data), metadata: { userId: e.metadata.userId, recordedAt: e.metadata.recordedAt } }));

/** Types for the tables' columns; these tests never get as far as encoding a row. */
const anyTypes = Object.fromEntries(segmentTables.map((t) => [t, [] as BinaryType[]])) as Record<SegmentTable, BinaryType[]>;

async function drain(thread: FoldThread, seg: number): Promise<void> {
  const rows = thread.write(seg, anyTypes);
  for (const name of segmentTables) for await (const _ of rows.table(name));
  await rows.counts();
}

describe('the fold worker', () => {
  it("an event whose data is not JSON fails the segment's write with the parse error, and every later call", async () => {
    const thread = new FoldThread();
    try {
      const events = asJson(smallJournal().events);
      thread.add(0, [...events.slice(0, 3), { ...events[3]!, data: '{"tradeId": ' }, ...events.slice(4)]);
      const failed = await drain(thread, 0).then(() => null, (e: Error) => e);
      expect(failed?.name).toBe('SyntaxError');
      expect(failed?.message).toMatch(/JSON/);
      expect(() => thread.add(1, events)).toThrow(failed!);
    } finally {
      await thread.close();
    }
  });

  it('closed while a segment is being written: the write fails, it does not wait for ever', async () => {
    const thread = new FoldThread();
    thread.add(0, asJson(smallJournal().events));
    const rows = thread.write(0, anyTypes);
    await thread.close();
    await expect((async () => {
      for await (const _ of rows.table('trades'));
    })()).rejects.toThrow("The rebuild's fold worker is closed");
  });
});
