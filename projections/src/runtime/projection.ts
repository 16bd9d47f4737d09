import type { Kysely } from 'kysely';
import type { BulkTransaction } from '@oj/infra/db/bulk';
import type { Database } from '@oj/infra/db/database';
import type { JsonDataEvent, ProjectedEvent } from '@oj/infra/eventstore/port';
import type { RowChanges } from './row-diff.ts';

/**
 * What a read model is to the runtime. One folder per read model implements this; the runtime
 * (dispatcher, lanes, in-process runner, rebuilds) never knows what the tables mean.
 *
 * The same `apply` serves live projection (small batches of one lane, one transaction per batch
 * together with the lane's checkpoint) and rebuilds (large batches read straight from the log, written
 * in bulk into the next version's tables). So a handler should: load the rows the batch touches in one
 * query, fold the events in memory, and write back with multi-row upserts. Rows are guarded by stream
 * revision (a row remembers the last revision of its stream it reflects and ignores older or equal
 * ones), so an event applied twice changes nothing.
 */
export interface ProjectionContext {
  /** The open transaction: rows and checkpoint commit together. */
  trx: Kysely<any>;
  /** Physical table names of the version being written, by logical name (e.g. `trades` -> `trades_v2`). */
  tables: Record<string, string>;
  /**
   * `live`: a lane batch of the live version. `rebuild`: a catch-up or a one-user recompute, where every
   * row the events touch must be right when the transaction commits. `bulk`: a version that is not live
   * yet, filled from the log in large batches; aggregates that `finishBulk` recomputes whole may be left
   * out (recomputing them once at the end costs far less than once per batch that touches them).
   * `user`: a one-user recompute of a projection without `recomputeUser`: `deleteUser` emptied the
   * user's rows in this transaction and the events are all of the user's up to the lane's checkpoint,
   * every lineage from its first event. Nothing needs loading and every row is new.
   */
  mode: 'live' | 'rebuild' | 'bulk' | 'user';
}

/** A one-user recompute's context: its transaction can also load rows in bulk (COPY on PostgreSQL). */
export interface UserRecomputeContext extends ProjectionContext {
  load: BulkTransaction['load'];
}

export interface Projection {
  /** Stable name, e.g. `trades`, `roll_history`, `daily_premium`. */
  name: string;
  /** Bumped when formulas or shape change: a new version is rebuilt beside the live one. */
  version: number;
  /** Logical table names this projection owns; physical names are `<table>_v<version>`. */
  tables: readonly string[];
  /** Stream prefixes it reads (e.g. `trade-`); the runtime filters the log with them. */
  streamPrefixes: readonly string[];
  /**
   * Creates this version's tables and indexes if they do not exist (one statement per query). `bulk`: a
   * rebuild will load the version in bulk batches; indexes its batches never read may wait for
   * `finishBulk`, which must then create them (a version is never switched before finishBulk ran).
   */
  createTables(db: Kysely<any>, tables: Record<string, string>, options?: { bulk?: boolean }): Promise<void>;
  /**
   * Applies events, in log order, inside `ctx.trx`. Must be idempotent (see above). The events carry only
   * the metadata a projection reads (`ProjectedEvent`): lane batches are read and queued without the rest.
   */
  apply(ctx: ProjectionContext, events: readonly ProjectedEvent[]): Promise<void>;
  /**
   * After the last `bulk` batch of a rebuild and before its catch-up and switch: computes what `bulk`
   * batches left out, for the whole version. Idempotent: a rebuild killed during it runs it again.
   */
  finishBulk?(database: Database, tables: Record<string, string>): Promise<void>;
  /**
   * A rebuild's bulk run folded in memory, a segment of the log at a time, each row written once
   * (optional: without it, each bulk batch goes through `apply`, which loads and upserts every row the
   * batch touches, again in every batch that touches it). See `BulkRun`.
   */
  bulkRun?(database: Database): BulkRun;
  /** Deletes one user's rows (for a rebuild scoped to one user). */
  deleteUser(ctx: ProjectionContext, userId: string): Promise<void>;
  /**
   * A one-user recompute that writes only what is wrong: the user's rows computed from `streams` (all of
   * the user's events up to the lane's checkpoint, every lineage from its first event) compared with the
   * rows the version holds, and only rows that differ written (removed, added, or replaced). Returns what
   * it wrote, per table. `streams` comes a batch of whole streams at a time (`readByStream`: each stream
   * in one batch, in revision order; streams in no promised order): the projection starts the read first
   * (its first `next()`), reads its rows meanwhile, and may write a stream's rows before the read ends.
   * Without it, a recompute deletes the user's rows (`deleteUser`) and applies the events in mode `user`.
   */
  recomputeUser?(ctx: UserRecomputeContext, userId: string, streams: AsyncIterable<readonly ProjectedEvent[]>): Promise<Record<string, RowChanges>>;
  /** Rows per table, for status and for comparing versions. */
  countRows?(db: Kysely<any>, tables: Record<string, string>): Promise<Record<string, number>>;
  /**
   * Numeric columns that hold codes, not amounts (a status, a list, a transaction type), by logical
   * table. Comparing versions, `diff` counts their rows per value instead of summing them (a sum of
   * status codes says nothing), and the per-figure comparison gives no largest change for them.
   */
  categoryColumns?: Readonly<Record<string, readonly string[]>>;
}

/** A rebuild's bulk run folded in memory: one object for the run, a `BulkSegment` per segment of the log. */
export interface BulkRun {
  segment(): BulkSegment;
  /** Ends what the run started (a worker thread). Called once the bulk pass is over, whether it succeeded or not. */
  close?(): Promise<void>;
}

/**
 * One segment of a rebuild's bulk run (a long stretch of the log, as much as the runtime's memory budget
 * allows). The runtime hands `add` only the events of streams that BEGIN in the segment (their revision
 * 0 is in it), checked contiguous; the events of streams begun in an earlier segment come to `write` as
 * `continued`, past the stream guard, to be applied on top of the rows the earlier segments wrote (as
 * `apply` in mode `bulk` does). So `add`'s streams have no rows in the version yet, and their rows are
 * only appended: no read, no upsert, no conflict. Both are read with only the metadata a projection
 * reads (`ProjectedMetadata`: the user and when it was recorded), and with their data as the JSON text
 * stored (`JsonDataEvent`), which the segment parses and upcasts where it folds: the runtime reads the
 * log and sorts its events by stream, so that the parse can go to another thread. The events `add`
 * folds come as the rows of the log's packed read (`PackedEvents`), so that they go to that thread as
 * bytes, not as objects.
 */
export interface BulkSegment {
  /**
   * Folds events (log order) of streams that begin in this segment: the rows of a packed read at
   * `offsets` (`unpackFoldEvent` decodes one). The bytes and the offsets are the segment's from then on:
   * the runtime reads nothing more of them, and the segment may hand them to another thread.
   */
  add(rows: PackedRows): void;
  /**
   * In the runtime's transaction (which then records the streams' guard rows and the segment's
   * checkpoint): appends the rows of every stream folded (`t.load`: COPY on PostgreSQL) and applies
   * `continued`. Aggregates that the finishing step recomputes whole may be left out, as in `apply`'s
   * mode `bulk`.
   */
  write(t: BulkTransaction, tables: Record<string, string>, continued: readonly JsonDataEvent[]): Promise<void>;
}

/** Some of a packed read's events (`BulkSegment.add`): the read's bytes, and where each event's row starts. */
export interface PackedRows {
  bytes: Buffer;
  offsets: Int32Array;
}

export const physicalTables = (p: Pick<Projection, 'tables'>, version: number): Record<string, string> =>
  Object.fromEntries(p.tables.map((t) => [t, `${t}_v${version}`]));
