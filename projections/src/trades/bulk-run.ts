import type { BinaryType } from '@oj/infra/db/copy-binary';
import type { BulkTransaction } from '@oj/infra/db/bulk';
import type { Database } from '@oj/infra/db/database';
import type { JsonDataEvent } from '@oj/infra/eventstore/port';
import { unpackFoldEvent } from '@oj/infra/eventstore/packed';
import type { BulkRun, BulkSegment, PackedRows } from '../runtime/projection.ts';
import { applyTradeEvents } from './apply.ts';
import { FoldThread } from './fold-thread.ts';
import { SegmentFold, segmentColumns, segmentTables, type SegmentTable } from './segment-fold.ts';
import { lineageColumns, splitColumns } from './user-rows.ts';
import { addTradeCounts, tradeColumns } from './tables.ts';

/**
 * The trades projection's bulk run: each segment's lineages folded in memory with the projection's own
 * fold (`SegmentFold`) and appended once (trade, lineage and split rows through COPY, counts added);
 * lineages begun in an earlier segment are continued by `applyTradeEvents` (mode `bulk`). On PostgreSQL
 * the fold and the rows' encoding run in a worker thread (`FoldThread`), beside the log's read; on
 * PGlite (no COPY, small logs) inline. The day records are left to the finishing step (`finishBulk`),
 * which computes them from the rows in worker threads while PostgreSQL builds the list indexes.
 */
export class TradesBulkRun implements BulkRun {
  readonly #database: Database;
  #thread: FoldThread | null = null;
  #segments = 0;

  constructor(database: Database) {
    this.#database = database;
  }

  segment(): BulkSegment {
    if (!this.#database.pool) return new InlineSegment();
    // One worker: two, each folding half of the streams, took longer on two cores (42.8 against 34.0 s
    // for a million events), as the two shared the cores with the reading thread and PostgreSQL.
    this.#thread ??= new FoldThread();
    return new WorkerSegment(this.#thread, this.#segments++);
  }

  async close(): Promise<void> {
    await this.#thread?.close();
  }
}

/** A segment folded and encoded in the fold worker; its chunks are copied as they come. */
class WorkerSegment implements BulkSegment {
  readonly #thread: FoldThread;
  readonly #seg: number;

  constructor(thread: FoldThread, seg: number) {
    this.#thread = thread;
    this.#seg = seg;
  }

  add(rows: PackedRows): void {
    this.#thread.add(this.#seg, rows);
  }

  async write(t: BulkTransaction, tables: Record<string, string>, continued: readonly JsonDataEvent[]): Promise<void> {
    const binary = t.binary;
    if (!binary) throw new Error('The fold worker needs COPY (PostgreSQL)');
    const types = {} as Record<SegmentTable, BinaryType[]>;
    for (const name of segmentTables) {
      const found = await binary.types(tables[name]!, segmentColumns[name]);
      if (!found) throw new Error(`Table ${tables[name]} has a column that COPY's binary format cannot take here`);
      types[name] = found;
    }
    const rows = this.#thread.write(this.#seg, types);
    for (const name of segmentTables) await binary.load(tables[name]!, segmentColumns[name], rows.table(name));
    await addTradeCounts(t.trx, tables.trade_counts!, await rows.counts());
    await applyContinued(t, tables, continued);
  }
}

/** A segment folded in this thread (PGlite). */
class InlineSegment implements BulkSegment {
  readonly #fold = new SegmentFold();

  add(rows: PackedRows): void {
    this.#fold.add(Array.from(rows.offsets, (offset) => unpackFoldEvent(rows.bytes, offset)));
  }

  async write(t: BulkTransaction, tables: Record<string, string>, continued: readonly JsonDataEvent[]): Promise<void> {
    const rows = this.#fold.rows();
    await t.load(tables.trades!, tradeColumns, rows.trades);
    await t.load(tables.trade_lineages!, lineageColumns, rows.trade_lineages);
    await t.load(tables.split_history!, splitColumns, rows.split_history);
    await addTradeCounts(t.trx, tables.trade_counts!, rows.counts());
    await applyContinued(t, tables, continued);
  }
}

/** Events of lineages begun in an earlier segment, on top of its rows (`applyTradeEvents` upcasts as it folds). */
async function applyContinued(t: BulkTransaction, tables: Record<string, string>, continued: readonly JsonDataEvent[]): Promise<void> {
  if (continued.length) await applyTradeEvents({ trx: t.trx, tables, mode: 'bulk' }, continued.map((e) => ({ ...e, data: JSON.parse(e.data) as unknown })));
}
