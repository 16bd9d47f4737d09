import { userStreamPrefix } from '@oj/contracts/journal-events';
import type { LineageState } from '@oj/contracts/lineage-fold';
import type { BulkTransaction } from '@oj/infra/db/bulk';
import type { Database } from '@oj/infra/db/database';
import type { StoredEvent } from '@oj/infra/eventstore/port';
import type { BulkRun, BulkSegment } from '../runtime/projection.ts';
import { dayTradeOf, type DayTrade } from '../daily-premium/compute.ts';
import { writeDays } from '../daily-premium/tables.ts';
import { splitRow } from '../split-history/tables.ts';
import { applyTradeEvents } from './apply.ts';
import { addTradeCounts, asTables, tradeColumns, tradeRowOf, type TradesTable } from './tables.ts';
import { foldEvent, lineageOfStream } from './user-rows.ts';

const lineageColumns = ['lid', 'user_id', 'rev', 'has_roll'] as const;
const splitColumns = ['auid', 'user_id', 'lid', 'trades', 'su', 'gene', 'created_at'] as const;

/** Trades a bulk run keeps in its day book at most (about 200 bytes each); past it, the finishing step reads the rows back. */
export const bulkTuning = { dayBookTrades: 2_000_000, dayChunkTrades: 40_000 };

/**
 * The day facts (`DayTrade`) of every trade row a bulk run wrote, by user: what the day records are
 * computed from, kept so that the finishing step does not read 600,000 rows back. Rows rewritten by a
 * later segment replace theirs; removed trades leave. Past `bulkTuning.dayBookTrades` it gives up (the
 * memory would grow with the log) and the finishing step reads the rows back instead.
 */
class DayBook {
  readonly #users = new Map<string, Map<string, DayTrade>>();
  #size = 0;
  overflowed = false;

  set(row: TradesTable): void {
    if (this.overflowed) return;
    let trades = this.#users.get(row.user_id);
    if (!trades) this.#users.set(row.user_id, (trades = new Map()));
    const had = trades.has(row.uid);
    trades.set(row.uid, dayTradeOf(row));
    if (!had && ++this.#size > bulkTuning.dayBookTrades) this.overflow();
  }

  delete(userId: string, uid: string): void {
    if (this.#users.get(userId)?.delete(uid)) this.#size--;
  }

  /** Every user's trades, a few users at a time (about `dayChunkTrades` trades a part). */
  *parts(): Generator<DayTrade[]> {
    let part: DayTrade[] = [];
    for (const trades of this.#users.values()) {
      for (const t of trades.values()) part.push(t);
      if (part.length >= bulkTuning.dayChunkTrades) {
        yield part;
        part = [];
      }
    }
    if (part.length) yield part;
  }

  overflow(): void {
    this.overflowed = true;
    this.#users.clear();
  }
}

/**
 * The trades projection's bulk run: each segment's lineages folded in memory with the projection's own
 * fold and appended once (trade, lineage and split rows through COPY, counts added); lineages begun in
 * an earlier segment are continued by `applyTradeEvents` (mode `bulk`). A run that builds the version
 * from an empty start keeps the day facts of every row it writes (`DayBook`), and writes the day records
 * of its users from them (`finishOwn`).
 */
export class TradesBulkRun implements BulkRun {
  readonly #book: DayBook | null;

  constructor(fromStart: boolean) {
    // A resumed run did not see the rows written before the kill: only the version's rows have them.
    this.#book = fromStart ? new DayBook() : null;
  }

  segment(): BulkSegment {
    return new TradesBulkSegment(this.#book);
  }

  async finishOwn(database: Database, t: Record<string, string>): Promise<boolean> {
    const book = this.#book;
    if (!book || book.overflowed) return false;
    await writeDays(database, asTables(t).daily_premium, book.parts());
    return true;
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
  readonly #book: DayBook | null;

  constructor(book: DayBook | null) {
    this.#book = book;
  }

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

  async write(t: BulkTransaction, tables: Record<string, string>, continued: readonly StoredEvent[]): Promise<void> {
    const lineages = [...this.#lineages.values()];
    this.#lineages.clear();
    const book = this.#book;
    const counts = new Map<string, { u: string; list: number; d: number }>();
    function* tradeRows(): Generator<TradesTable> {
      for (const l of lineages) {
        for (const rec of l.trades.values()) {
          const row = tradeRowOf(rec);
          const k = `${row.user_id}\u0000${row.list}`;
          const c = counts.get(k);
          if (c) c.d++;
          else counts.set(k, { u: row.user_id, list: row.list, d: 1 });
          book?.set(row);
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
    if (continued.length) {
      const written = await applyTradeEvents({ trx: t.trx, tables, mode: 'bulk' }, continued);
      if (book) {
        for (const d of written.deleted) book.delete(d.u, d.id);
        for (const row of written.upserts) book.set(row);
      }
    }
  }
}
