import { describe, expect, it } from 'vitest';
import type { JsonDataEvent } from '@oj/infra/eventstore/port';
import { packEvents } from '@oj/infra/eventstore/packed';
import type { PackedRows } from '../runtime/projection.ts';
import { BinaryChunks, type BinaryType } from '@oj/infra/db/copy-binary';
import { FoldThread, WINDOW } from './fold-thread.ts';
import { SegmentFold, segmentColumns, segmentTables, type SegmentTable } from './segment-fold.ts';
import { JournalLog, smallJournal, terms } from './testing.ts';

/**
 * The rebuild's fold worker keeps at most its window of chunks waiting for the COPY, hands every byte over
 * in order, and fails loudly. (That what it folds and encodes is what the projection
 * writes live is `bulk-run.test.ts`: its PostgreSQL rebuilds go through the worker, row by row against
 * the live version, in segments of 1 to 100,000 events.)
 */

const asJson = (events: ReturnType<typeof smallJournal>['events']): JsonDataEvent[] =>
  events.map((e) => ({ ...e, data: JSON.stringify(e.data), metadata: { userId: e.metadata.userId, recordedAt: e.metadata.recordedAt } }));

/** Events as a packed read's rows, every one of them (what the reading thread hands the worker). */
const packed = (events: readonly JsonDataEvent[]): PackedRows => {
  const { bytes, offsets } = packEvents(events);
  return { bytes, offsets };
};

/** Types for the tests below that fail before a row is encoded. */
const anyTypes = Object.fromEntries(segmentTables.map((t) => [t, [] as BinaryType[]])) as Record<SegmentTable, BinaryType[]>;

async function drain(thread: FoldThread, seg: number): Promise<void> {
  const rows = thread.write(seg, anyTypes);
  for (const name of segmentTables) for await (const _ of rows.table(name));
  await rows.counts();
}

/** Waits until `ok()` holds, polling; fails after `ms`. */
async function until(ok: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('the fold worker', () => {
  it(`encodes at most ${WINDOW} chunks ahead of the COPY, and hands every byte over in order`, async () => {
    // 20,000 lineages of one open trade each, with long notes: more than twice the window of 256 KiB chunks.
    const log = new JournalLog();
    for (let i = 0; i < 20_000; i++) {
      log.append(`user-${i % 40}`, `L${i}`, { type: 'TradeOpened', data: { tradeId: `L${i}`, lineageId: `L${i}`, terms: terms({ notes: `lineage ${i}: ${'n'.repeat(400)}` }) } });
    }
    const events = asJson(log.events);
    // Every column as text: what this test reads is the chunks, not a table.
    const types = Object.fromEntries(segmentTables.map((t) => [t, segmentColumns[t].map((): BinaryType => 'text')])) as Record<SegmentTable, BinaryType[]>;
    const thread = new FoldThread();
    try {
      thread.add(0, packed(events.slice(0, 7_000)));
      thread.add(0, packed(events.slice(7_000)));
      const rows = thread.write(0, types);
      // Nothing taken: the worker stops at the window.
      await until(() => thread.waiting(0) === WINDOW);
      await new Promise((r) => setTimeout(r, 300));
      expect(thread.waiting(0)).toBe(WINDOW);
      // One taken: one more comes, and no more than that.
      const trades = rows.table('trades')[Symbol.asyncIterator]();
      const received: Buffer[] = [Buffer.from((await trades.next()).value as Uint8Array)];
      await until(() => thread.waiting(0) === WINDOW);
      await new Promise((r) => setTimeout(r, 300));
      expect(thread.waiting(0)).toBe(WINDOW);
      const byTable: Record<string, Buffer[]> = { trades: received };
      for (let r = await trades.next(); !r.done; r = await trades.next()) {
        received.push(Buffer.from(r.value));
        expect(thread.waiting(0)).toBeLessThanOrEqual(WINDOW);
      }
      for (const name of segmentTables.slice(1)) {
        byTable[name] = [];
        for await (const chunk of rows.table(name)) byTable[name].push(Buffer.from(chunk));
      }
      expect((await rows.counts()).reduce((n, c) => n + c.d, 0)).toBe(20_000);
      expect(received.length).toBeGreaterThan(2 * WINDOW);
      // The same bytes as the fold and the encoding in this thread.
      const fold = new SegmentFold();
      fold.add(events);
      const expected = fold.rows();
      for (const name of segmentTables) {
        const chunks = new BinaryChunks<Record<string, unknown>>(segmentColumns[name], types[name]);
        const bytes = [...chunks.add(expected[name] as Iterable<Record<string, unknown>>), chunks.end()].map((c) => Buffer.from(c.bytes));
        expect(Buffer.concat(byTable[name]!).equals(Buffer.concat(bytes)), name).toBe(true);
      }
    } finally {
      await thread.close();
    }
  });

  it("an event whose data is not JSON fails the segment's write with the parse error, and every later call", async () => {
    const thread = new FoldThread();
    try {
      const events = asJson(smallJournal().events);
      thread.add(0, packed([...events.slice(0, 3), { ...events[3]!, data: '{"tradeId": ' }, ...events.slice(4)]));
      const failed = await drain(thread, 0).then(() => null, (e: Error) => e);
      expect(failed?.name).toBe('SyntaxError');
      expect(failed?.message).toMatch(/JSON/);
      expect(() => thread.add(1, packed(events))).toThrow(failed!);
    } finally {
      await thread.close();
    }
  });

  it('closed while a segment is being written: the write fails, it does not wait for ever', async () => {
    const thread = new FoldThread();
    thread.add(0, packed(asJson(smallJournal().events)));
    const rows = thread.write(0, anyTypes);
    await thread.close();
    await expect((async () => {
      for await (const _ of rows.table('trades'));
    })()).rejects.toThrow("The rebuild's fold worker is closed");
  });
});
