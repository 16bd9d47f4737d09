import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { FORMULAS_VERSION } from '@oj/contracts/formulas';
import { userStreamPrefix } from '@oj/contracts/journal-events';
import type { LineageState } from '@oj/contracts/lineage-fold';
import { positionFromString, positionToString, type LogPosition } from '@oj/infra/eventstore/port';
import { userLogKey } from '@oj/infra/eventstore/user-log';
import { BoundedMap } from '@oj/infra/bounded-map';
import type { DailyPremiumRecord } from '@oj/projections/daily-premium/compute';
import { tradesProjection } from '@oj/projections/trades/projection';
import { codeFingerprint, fileOf } from './replay-code.ts';
import { DAYS_PART, LINEAGE_PARTS, STATE_FORMAT, decodeDays, decodeLineages, type LineageEntry } from './state-codec.ts';
import type { JournalState } from './journal-state.ts';

/**
 * Stored replay states: a heavy user's journal (journal-state.ts) folded by the maintenance job
 * (state-maintenance.ts) and kept in `audit_replay_states` as a chain of chunks. Chunk `seq` covers the
 * user's events after the previous chunk's last event up to its own (`upto`), and holds the state,
 * as of `upto`, of every lineage those events touched, in LINEAGE_PARTS parts, plus every day record
 * as of `upto`. The journal after chunk k is the lineages of chunks 0..k (each at its latest) and the
 * days of chunk k; an as-of view or Verify starts from the last chunk before its point and folds only
 * the events after it.
 *
 * A chunk is read only when it cannot be stale or foreign:
 * - its key: the code that folded it (fingerprint of the fold, rows, days and codec, with the
 *   projection's and formulas' versions and the format) and the log's origin (the cluster's system
 *   identifier and the database's oid: a logical copy of the database into another database or cluster
 *   gets another origin, and its log positions no longer mean what they meant);
 * - its SHA-256, over the header columns and the payload, checked on every read;
 * - its anchor, checked against the log before a view starts from it: the user's event at `upto` is
 *   the one it names and exactly `events` of the user's events are at or before `upto`. The maintenance
 *   job only folds events of transactions below the store's visibility horizon (postgres.ts), so no
 *   event can ever commit at or before a chunk's `upto` after it was folded; a deleted or restamped
 *   event fails the anchor.
 * What the anchor cannot see is an event's data rewritten in place by hand: the store never does that
 * (an old schema is upcast on read), and `full` views replay from the first event whatever is stored.
 */

export interface StateKey {
  codeKey: string;
  projectionVersion: number;
  formulasVersion: number;
}

let key: StateKey | undefined;
/** The key states are written and read with by this code (computed once per process). */
export function currentStateKey(): StateKey {
  if (!key) {
    const code = codeFingerprint([
      fileOf(new URL('../../../projections/src/trades/user-rows.ts', import.meta.url)),
      fileOf(new URL('./journal-state.ts', import.meta.url)),
      fileOf(new URL('./state-codec.ts', import.meta.url)),
    ]);
    const projectionVersion = tradesProjection.version;
    const codeKey = createHash('sha256')
      .update(`format ${STATE_FORMAT} parts ${LINEAGE_PARTS} projection ${projectionVersion} formulas ${FORMULAS_VERSION} code ${code}`)
      .digest('hex');
    key = { codeKey, projectionVersion, formulasVersion: FORMULAS_VERSION };
  }
  return key;
}

export interface ChunkPart {
  part: number;
  entries: number;
  bytes: number;
}

/** One chunk of a user's chain: what it covers (the payloads are read apart). */
export interface StateChunk {
  seq: number;
  after: LogPosition | null;
  upto: LogPosition;
  /** The user's events at or before `upto`. */
  events: number;
  anchorEventId: string;
  /** Business dates of the chunk's own events (after `after`, up to `upto`). */
  firstBusinessDate: string;
  lastBusinessDate: string;
  createdAt: Date;
  parts: ChunkPart[];
}

/** A stored row as written (and hashed). */
export interface StateRow {
  user_id: string;
  code_key: string;
  log_origin: string;
  seq: number;
  part: number;
  after_position: string | null;
  upto_position: string;
  events: number;
  anchor_event_id: string;
  first_business_date: string;
  last_business_date: string;
  projection_version: number;
  formulas_version: number;
  entries: number;
  bytes: number;
  payload: Buffer;
}

/** SHA-256 over every column that says what the row is, then the payload. */
export function rowDigest(r: StateRow): Buffer {
  const header = [r.user_id, r.code_key, r.log_origin, r.seq, r.part, r.after_position ?? '', r.upto_position, r.events, r.anchor_event_id, r.first_business_date, r.last_business_date, r.projection_version, r.formulas_version, r.entries, r.bytes].join('\n');
  return createHash('sha256').update(header).update('\n').update(r.payload).digest();
}

const expectedParts = [DAYS_PART, ...Array.from({ length: LINEAGE_PARTS }, (_, i) => i)];

/**
 * The user's chain under a key: the chunks from 0 on that follow each other (each starts where the one
 * before ended) and have every part; anything after a gap or an incomplete chunk is not part of it.
 */
export async function readChain(db: Kysely<any>, userId: string, codeKey: string, origin: string): Promise<StateChunk[]> {
  const { rows } = await sql<Omit<StateRow, 'payload' | 'user_id' | 'code_key' | 'log_origin' | 'projection_version' | 'formulas_version'> & { created_at: Date }>`
    select seq, part, after_position, upto_position, events, anchor_event_id::text as anchor_event_id, first_business_date, last_business_date,
           entries, bytes, created_at
    from audit_replay_states where user_id = ${userId} and code_key = ${codeKey} and log_origin = ${origin}
    order by seq, part`.execute(db);
  const chunks: StateChunk[] = [];
  for (const r of rows) {
    let c = chunks.at(-1);
    if (!c || c.seq !== r.seq) {
      if (c && c.parts.length !== expectedParts.length) break;
      const prev = chunks.at(-1);
      if (r.seq !== (prev ? prev.seq + 1 : 0) || (r.after_position ?? null) !== (prev ? positionToString(prev.upto) : null)) break;
      c = {
        seq: r.seq,
        after: r.after_position ? positionFromString(r.after_position) : null,
        upto: positionFromString(r.upto_position),
        events: Number(r.events),
        anchorEventId: r.anchor_event_id,
        firstBusinessDate: r.first_business_date,
        lastBusinessDate: r.last_business_date,
        createdAt: r.created_at,
        parts: [],
      };
      chunks.push(c);
    }
    // Every part of a chunk repeats its header: one that disagrees makes the chunk unusable.
    if (positionToString(c.upto) !== r.upto_position || c.events !== Number(r.events) || c.anchorEventId !== r.anchor_event_id) {
      chunks.pop();
      break;
    }
    c.parts.push({ part: r.part, entries: r.entries, bytes: r.bytes });
  }
  if (chunks.length && chunks.at(-1)!.parts.length !== expectedParts.length) chunks.pop();
  return chunks;
}

/** Whether the log still holds exactly what the chunk was folded from (see above). */
export async function anchorHolds(db: Kysely<any>, userId: string, chunk: StateChunk): Promise<boolean> {
  const { commit, prepare } = chunk.upto;
  const { rows } = await sql<{ n: string; anchored: boolean }>`
    select count(*)::text as n,
           coalesce(bool_or(transaction_id = ${commit.toString()}::xid8 and global_position = ${prepare.toString()}::bigint and event_id = ${chunk.anchorEventId}::uuid), false) as anchored
    from events
    where split_part(stream_id, '.', 1) = ${userLogKey(userId)}
      and (transaction_id, global_position) <= (${commit.toString()}::xid8, ${prepare.toString()}::bigint)`.execute(db);
  return rows[0]!.anchored && Number(rows[0]!.n) === chunk.events;
}

export class StoredStateError extends Error {
  readonly seq: number;
  constructor(seq: number, message: string) {
    super(message);
    this.name = 'StoredStateError';
    this.seq = seq;
  }
}

interface DecodedChunk {
  lineages: LineageEntry[];
  days: DailyPremiumRecord[] | null;
}

/**
 * Decoded parts, by user, key, origin, chunk and digest: a support session reads the same user's chain
 * again and again. Bounded by entries (a heavy user's chain is a few dozen); a process holds a few
 * users' journals at most.
 */
const decoded = new BoundedMap<string, LineageEntry[] | DailyPremiumRecord[]>(240);
/** Forgets every decoded state (the bench measures a cold read with it). */
export const forgetDecodedStates = (): void => {
  decoded.clear();
  assembled.clear();
};

/**
 * The chunks 0..`upTo` of a chain read, checked (SHA-256) and decoded: the lineage parts in `parts`
 * (default all) and the day records of chunk `upTo` when `days`. Throws StoredStateError naming the
 * first chunk that does not check out.
 */
export async function readChunks(
  db: Kysely<any>,
  userId: string,
  k: StateKey,
  origin: string,
  chain: readonly StateChunk[],
  upTo: number,
  options: { parts?: readonly number[]; days?: boolean; everyDays?: boolean } = {},
): Promise<{ chunks: DecodedChunk[]; signature: string }> {
  const parts = options.parts ?? expectedParts.filter((p) => p !== DAYS_PART);
  // `everyDays`: every chunk's day records checked too, not only the last one's (the maintenance
  // checks every row it builds on).
  const wanted = (seq: number) => [...parts, ...((options.days && seq === upTo) || options.everyDays ? [DAYS_PART] : [])];
  const cacheKey = (seq: number, part: number, sha: string) => `${userId}|${k.codeKey}|${origin}|${seq}|${part}|${sha}`;
  // The digests first (small): parts already decoded under the same digest are not read again.
  const { rows: digests } = await sql<{ seq: number; part: number; sha: string }>`
    select seq, part, encode(sha256, 'hex') as sha from audit_replay_states
    where user_id = ${userId} and code_key = ${k.codeKey} and log_origin = ${origin} and seq <= ${upTo}`.execute(db);
  const shaOf = new Map(digests.map((d) => [`${d.seq}/${d.part}`, d.sha]));
  const missing: Array<{ seq: number; part: number }> = [];
  for (const c of chain.slice(0, upTo + 1)) for (const part of wanted(c.seq)) {
    const sha = shaOf.get(`${c.seq}/${part}`);
    if (!sha || !decoded.has(cacheKey(c.seq, part, sha))) missing.push({ seq: c.seq, part });
  }
  if (missing.length) {
    const { rows } = await sql<StateRow & { sha256: Buffer; anchor_event_id: string }>`
      select user_id, code_key, log_origin, seq, part, after_position, upto_position, events, anchor_event_id::text as anchor_event_id,
             first_business_date, last_business_date, projection_version, formulas_version, entries, bytes, sha256, payload
      from audit_replay_states
      where user_id = ${userId} and code_key = ${k.codeKey} and log_origin = ${origin}
        and (seq, part) in (select * from unnest(${missing.map((m) => m.seq)}::int[], ${missing.map((m) => m.part)}::smallint[]))
      order by seq, part`.execute(db);
    const bySeqPart = new Map(rows.map((r) => [`${r.seq}/${r.part}`, r]));
    for (const m of missing) {
      const r = bySeqPart.get(`${m.seq}/${m.part}`);
      if (!r) throw new StoredStateError(m.seq, `chunk ${m.seq} part ${m.part} is gone`);
      const row: StateRow = { ...r, events: Number(r.events), payload: Buffer.from(r.payload) };
      const digest = rowDigest(row);
      if (!digest.equals(Buffer.from(r.sha256))) throw new StoredStateError(m.seq, `chunk ${m.seq} part ${m.part} does not match its SHA-256`);
      try {
        const value = m.part === DAYS_PART ? decodeDays(userId, row.payload) : decodeLineages(userId, row.payload);
        if (value.length !== row.entries) throw new Error(`${value.length} entries, the header says ${row.entries}`);
        decoded.set(cacheKey(m.seq, m.part, digest.toString('hex')), value);
        shaOf.set(`${m.seq}/${m.part}`, digest.toString('hex'));
      } catch (error) {
        throw new StoredStateError(m.seq, `chunk ${m.seq} part ${m.part} cannot be read: ${(error as Error).message}`);
      }
    }
  }
  const read = chain.slice(0, upTo + 1);
  return {
    chunks: read.map((c) => ({
      lineages: parts.flatMap((part) => decoded.get(cacheKey(c.seq, part, shaOf.get(`${c.seq}/${part}`)!)) as LineageEntry[]),
      days: options.days && c.seq === upTo ? (decoded.get(cacheKey(c.seq, DAYS_PART, shaOf.get(`${c.seq}/${DAYS_PART}`)!)) as DailyPremiumRecord[]) : null,
    })),
    // What was read, by digest: the same signature is the same journal.
    signature: read.flatMap((c) => wanted(c.seq).map((part) => shaOf.get(`${c.seq}/${part}`))).join(','),
  };
}

/**
 * The lineages after the chunks, in first-event order: a chunk's new lineages come after every
 * lineage of the chunks before it, in ordinal order; a lineage seen before keeps its place and takes
 * its later state. An ordinal out of place means a chain that was not written by this code: refused.
 */
export function assembleLineages(userId: string, chunks: readonly DecodedChunk[], firstSeq = 0): Map<string, LineageState> {
  const prefix = userStreamPrefix(userId);
  const lineages = new Map<string, LineageState>();
  chunks.forEach((c, i) => {
    const entries = c.lineages.length > 1 ? [...c.lineages].sort((a, b) => a.ordinal - b.ordinal) : c.lineages;
    for (const { ordinal, state } of entries) {
      const streamId = `${prefix}${state.lineageId}`;
      if (!lineages.has(streamId) && ordinal !== lineages.size) throw new StoredStateError(firstSeq + i, `lineage ${state.lineageId} has ordinal ${ordinal}, expected ${lineages.size}`);
      lineages.set(streamId, state);
    }
  });
  return lineages;
}

/** Journals assembled from chunks, by user and the digests they were read from (a few users at a time). */
const assembled = new BoundedMap<string, { signature: string; state: JournalState }>(4);

/** The journal after chunk `upTo` of a chain (`checkEveryPart`: every part of every chunk checked, even those it does not need). */
export async function journalAfterChunk(db: Kysely<any>, userId: string, k: StateKey, origin: string, chain: readonly StateChunk[], upTo: number, options: { checkEveryPart?: boolean } = {}): Promise<JournalState> {
  const { chunks, signature } = await readChunks(db, userId, k, origin, chain, upTo, { days: true, everyDays: options.checkEveryPart === true });
  const hit = assembled.get(userId);
  if (hit?.signature === signature) return hit.state;
  const days = chunks.at(-1)!.days!;
  const state: JournalState = {
    userId,
    lineages: assembleLineages(userId, chunks),
    days: new Map(days.map((d) => [d.income_date, d])),
    events: chain[upTo]!.events,
    position: chain[upTo]!.upto,
  };
  assembled.set(userId, { signature, state });
  return state;
}

/** Writes one chunk (every part) in one transaction; false when another writer stored it first. */
export async function insertChunk(db: Kysely<any>, rows: readonly StateRow[]): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    for (const r of rows) {
      const res = await sql`insert into audit_replay_states (user_id, code_key, log_origin, seq, part, after_position, upto_position, events, anchor_event_id,
          first_business_date, last_business_date, projection_version, formulas_version, entries, bytes, sha256, payload)
        values (${r.user_id}, ${r.code_key}, ${r.log_origin}, ${r.seq}, ${r.part}, ${r.after_position}, ${r.upto_position}, ${r.events}, ${r.anchor_event_id}::uuid,
          ${r.first_business_date}, ${r.last_business_date}, ${r.projection_version}, ${r.formulas_version}, ${r.entries}, ${r.bytes}, ${rowDigest(r)}, ${r.payload})
        on conflict do nothing`.execute(trx);
      if (!Number(res.numAffectedRows ?? 0n)) throw new ChunkTakenError();
    }
    return true;
  }).catch((error: unknown) => {
    if (error instanceof ChunkTakenError) return false;
    throw error;
  });
}

class ChunkTakenError extends Error {}

/** Removes a user's chunks from `fromSeq` on under one key and origin (a chunk that failed its checks, and everything after it). */
export async function deleteChunks(db: Kysely<any>, userId: string, codeKey: string, origin: string, fromSeq = 0): Promise<number> {
  const r = await sql`delete from audit_replay_states where user_id = ${userId} and code_key = ${codeKey} and log_origin = ${origin} and seq >= ${fromSeq}`.execute(db);
  return Number(r.numAffectedRows ?? 0n);
}
