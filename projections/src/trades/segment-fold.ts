import { userStreamPrefix } from '@oj/contracts/journal-events';
import type { LineageState } from '@oj/contracts/lineage-fold';
import { compareKeys } from '@oj/infra/db/bulk';
import type { JsonDataEvent } from '@oj/infra/eventstore/port';
import type { SplitHistoryTable } from '../split-history/tables.ts';
import { tradeRowOf, type CountDelta, type TradesTable } from './tables.ts';
import { foldEvent, lineageOfStream, lineageRow, splitRows, userColumns, type LineageRow } from './user-rows.ts';

/**
 * The in-memory part of a rebuild segment of the trades projection (`bulk-run.ts`): the lineages that
 * begin in the segment, folded with the projection's own fold, then their rows in the tables' key order.
 * Pure: it runs in the rebuild's fold worker (`fold-worker.ts`) on PostgreSQL and inline on PGlite.
 */

/** What the fold reads of an event (a `JsonDataEvent` without its id and position: what a worker is sent). */
export type FoldEvent = Pick<JsonDataEvent, 'streamId' | 'revision' | 'type' | 'schemaVersion' | 'data' | 'metadata'>;

/** The segment's tables, in the order they are written, and the columns each is written with. */
export const segmentTables = ['trades', 'trade_lineages', 'split_history'] as const;
export type SegmentTable = (typeof segmentTables)[number];
export const segmentColumns: Record<SegmentTable, readonly string[]> = userColumns;

/** A segment's rows, by table. `trades` are computed as they are pulled; `counts` is complete once they all are. */
export interface SegmentRows {
  trades: Iterable<TradesTable>;
  trade_lineages: LineageRow[];
  split_history: SplitHistoryTable[];
  counts(): CountDelta[];
}

export class SegmentFold {
  readonly #lineages = new Map<string, LineageState>();

  /** Folds events (log order) of streams that begin in the segment; each one's data is parsed and upcast here. */
  add(events: Iterable<FoldEvent>): void {
    for (const e of events) {
      const userId = e.metadata.userId;
      // As `apply`: a stream outside its user's prefix is not a journal lineage of that user.
      if (!e.streamId.startsWith(userStreamPrefix(userId))) continue;
      let state = this.#lineages.get(e.streamId);
      if (!state) this.#lineages.set(e.streamId, (state = lineageOfStream(userId, e.streamId)));
      // `foldEvent` upcasts.
      foldEvent(state, { type: e.type, schemaVersion: e.schemaVersion, data: JSON.parse(e.data) as unknown, revision: e.revision, metadata: e.metadata });
    }
  }

  /**
   * The rows of every lineage folded, in the order of the tables' keys (user, then lineage; a
   * lineage's trades by uid): each row goes into the primary key's index next to the last one instead
   * of at a random leaf (PostgreSQL took 3.7 s for a run's 621,149 trade rows in log order, 2.3 s in key
   * order). The fold is emptied: its lineages belong to the rows now.
   */
  rows(): SegmentRows {
    const lineages = [...this.#lineages.values()].sort((a, b) => compareKeys(a.userId, b.userId) || compareKeys(a.lineageId, b.lineageId));
    this.#lineages.clear();
    const counts = new Map<string, CountDelta>();
    function* tradeRows(): Generator<TradesTable> {
      for (const l of lineages) {
        const trades = l.trades.size > 1 ? [...l.trades.values()].sort((a, b) => compareKeys(a.uid, b.uid)) : l.trades.values();
        for (const rec of trades) {
          const row = tradeRowOf(rec);
          const k = `${row.user_id}\u0000${row.list}`;
          const c = counts.get(k);
          if (c) c.d++;
          else counts.set(k, { u: row.user_id, list: row.list, d: 1 });
          yield row;
        }
      }
    }
    return {
      trades: tradeRows(),
      trade_lineages: lineages.map(lineageRow),
      split_history: splitRows(lineages),
      counts: () => [...counts.values()],
    };
  }
}
