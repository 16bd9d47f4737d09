import { userStreamPrefix } from '@oj/contracts/journal-events';
import type { LineageState } from '@oj/contracts/lineage-fold';
import { compareKeys, type BulkTransaction } from '@oj/infra/db/bulk';
import type { ProjectedEvent } from '@oj/infra/eventstore/port';
import type { BulkRun, BulkSegment } from '../runtime/projection.ts';
import { splitRow } from '../split-history/tables.ts';
import { applyTradeEvents } from './apply.ts';
import { addTradeCounts, tradeColumns, tradeRowOf, type TradesTable } from './tables.ts';
import { foldEvent, lineageOfStream } from './user-rows.ts';

const lineageColumns = ['lid', 'user_id', 'rev', 'has_roll'] as const;
const splitColumns = ['auid', 'user_id', 'lid', 'trades', 'su', 'gene', 'created_at'] as const;

/**
 * The trades projection's bulk run: each segment's lineages folded in memory with the projection's own
 * fold and appended once (trade, lineage and split rows through COPY, counts added); lineages begun in
 * an earlier segment are continued by `applyTradeEvents` (mode `bulk`). The day records are left to the
 * finishing step (`finishBulk`), which computes them from the rows in worker threads while PostgreSQL
 * builds the list indexes.
 */
export class TradesBulkRun implements BulkRun {
  segment(): BulkSegment {
    return new TradesBulkSegment();
  }
}

/**
 * A segment of the trades projection's bulk run: the lineages that begin in it, folded in memory, then
 * appended once each. Trade rows are computed while they are written (a generator the COPY pulls from),
 * so Node computes the next chunk while PostgreSQL takes the last one, and the segment's rows never all
 * exist at once. The day records are left to the finishing step, as `apply` leaves them in mode `bulk`.
 */
class TradesBulkSegment implements BulkSegment {
  readonly #lineages = new Map<string, LineageState>();

  add(events: readonly ProjectedEvent[]): void {
    for (const e of events) {
      const userId = e.metadata.userId;
      // As `apply`: a stream outside its user's prefix is not a journal lineage of that user.
      if (!e.streamId.startsWith(userStreamPrefix(userId))) continue;
      let state = this.#lineages.get(e.streamId);
      if (!state) this.#lineages.set(e.streamId, (state = lineageOfStream(userId, e.streamId)));
      foldEvent(state, e);
    }
  }

  async write(t: BulkTransaction, tables: Record<string, string>, continued: readonly ProjectedEvent[]): Promise<void> {
    // In the order of the tables' keys (user, then lineage; a lineage's trades by uid): each row goes
    // into the primary key's index next to the last one instead of at a random leaf (PostgreSQL took
    // 3.7 s for the run's 621,149 trade rows in log order, 2.3 s in key order).
    const lineages = [...this.#lineages.values()].sort((a, b) => compareKeys(a.userId, b.userId) || compareKeys(a.lineageId, b.lineageId));
    this.#lineages.clear();
    const counts = new Map<string, { u: string; list: number; d: number }>();
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
    await t.load(tables.trades!, tradeColumns, tradeRows());
    await t.load(
      tables.trade_lineages!,
      lineageColumns,
      lineages.map((l) => ({ lid: l.lineageId, user_id: l.userId, rev: l.revision, has_roll: l.hasRollHistory })),
    );
    await t.load(tables.split_history!, splitColumns, lineages.flatMap((l) => l.splits.map(splitRow)));
    await addTradeCounts(t.trx, tables.trade_counts!, [...counts.values()]);
    if (continued.length) await applyTradeEvents({ trx: t.trx, tables, mode: 'bulk' }, continued);
  }
}
