import { userStreamPrefix } from '@oj/contracts/journal-events';
import type { LineageState } from '@oj/contracts/lineage-fold';
import type { BulkTransaction } from '@oj/infra/db/bulk';
import type { StoredEvent } from '@oj/infra/eventstore/port';
import type { BulkSegment } from '../runtime/projection.ts';
import { splitRow } from '../split-history/tables.ts';
import { addTradeCounts, tradeColumns, tradeRowOf, type TradesTable } from './tables.ts';
import { foldEvent, lineageOfStream } from './user-rows.ts';

const lineageColumns = ['lid', 'user_id', 'rev', 'has_roll'] as const;
const splitColumns = ['auid', 'user_id', 'lid', 'trades', 'su', 'gene', 'created_at'] as const;

/**
 * A segment of a rebuild's bulk run for the trades projection: the lineages that begin in the segment,
 * folded in memory with the projection's own fold (`foldEvent`), then appended once each: trade rows,
 * lineage rows and split records through COPY, trade counts added. The day records are left to
 * `finishBulk`, as `apply` leaves them in mode `bulk`.
 *
 * Rows are computed while they are written (a generator the COPY pulls from), so Node computes the next
 * chunk while PostgreSQL ingests the last one, and the segment's rows never all exist at once.
 */
export class TradesBulkSegment implements BulkSegment {
  readonly #lineages = new Map<string, LineageState>();

  add(events: readonly StoredEvent[]): void {
    for (const e of events) {
      const userId = e.metadata.userId;
      // As `apply`: a stream outside its user's prefix is not a journal lineage of that user.
      if (!e.streamId.startsWith(userStreamPrefix(userId))) continue;
      let state = this.#lineages.get(e.streamId);
      if (!state) this.#lineages.set(e.streamId, (state = lineageOfStream(userId, e.streamId)));
      foldEvent(state, e);
    }
  }

  async write(t: BulkTransaction, tables: Record<string, string>): Promise<void> {
    const lineages = [...this.#lineages.values()];
    this.#lineages.clear();
    const counts = new Map<string, { u: string; list: number; d: number }>();
    function* tradeRows(): Generator<TradesTable> {
      for (const l of lineages) {
        for (const rec of l.trades.values()) {
          const row = tradeRowOf(rec);
          const k = `${row.user_id}\u0000${row.list}`;
          const c = counts.get(k);
          if (c) c.d++;
          else counts.set(k, { u: row.user_id, list: row.list, d: 1 });
          yield row;
        }
      }
    }
    await t.load(tables.trades!, tradeColumns, tradeRows());
    await t.load(
      tables.trade_lineages!,
      lineageColumns,
      lineages.map((l) => ({ lid: l.lineageId, user_id: l.userId, rev: l.revision, has_roll: l.hasRollHistory })),
    );
    await t.load(tables.split_history!, splitColumns, lineages.flatMap((l) => l.splits.map(splitRow)));
    await addTradeCounts(t.trx, tables.trade_counts!, [...counts.values()]);
  }
}
