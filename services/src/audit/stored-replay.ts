import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import { userStreamPrefix } from '@oj/contracts/journal-events';
import { logOriginOf } from '@oj/infra/eventstore/log-origin';
import { comparePositions, positionToString, type LogPosition, type StoredEvent } from '@oj/infra/eventstore/port';
import { readUserEventAt, readUserLog, userLogKey } from '@oj/infra/eventstore/user-log';
import type { DailyPremiumRecord } from '@oj/projections/daily-premium/compute';
import { LINEAGE_PARTS, partOf } from './state-codec.ts';
import { StoredStateError, anchorHolds, currentStateKey, readChain, readChunks, type StateChunk, type StateKey } from './stored-states.ts';
import type { PartInput } from './partition-replay.ts';

/**
 * A view's start from the stored replay states (stored-states.ts): the last stored chunk at or before
 * the view's point, checked against the log, and the user's events after it, read once here and handed
 * to the parts (partition-replay.ts) so every part folds the same events. Null when the user has no
 * stored state: the caller replays from the first event.
 */

export type ReplayPoint = { at: 'head' } | { at: 'event'; position: LogPosition } | { at: 'date'; date: string };

export interface StoredPlan {
  userId: string;
  key: StateKey;
  origin: string;
  /** The chunks up to the base. */
  chain: StateChunk[];
  /** The chunk the journal starts from (null: the point lies before the first chunk; the journal starts from the first event). */
  from: StateChunk | null;
  /** The user's events after it, up to the point. */
  tail: StoredEvent[];
  /** The last event of the journal (null before the first). */
  last: StoredEvent | null;
  /** The user's events in the journal. */
  events: number;
  /** The day records of the base. */
  days: ReadonlyMap<string, DailyPremiumRecord>;
}

/** The point's event is not the user's. */
export class NoSuchEventError extends Error {
  constructor() {
    super("No such event in this user's history.");
    this.name = 'NoSuchEventError';
  }
}

const after = (p: LogPosition) => sql`(transaction_id, global_position) > (${p.commit.toString()}::xid8, ${p.prepare.toString()}::bigint)`;
const atOrBefore = (p: LogPosition) => sql`(transaction_id, global_position) <= (${p.commit.toString()}::xid8, ${p.prepare.toString()}::bigint)`;

/**
 * The position of the user's last event (in log order) of a New York business date at or before
 * `date`, or null: the events after the chain first, then the chunks newest first, each only if its
 * events' earliest business date allows (a chunk's range is a few thousand index entries).
 */
async function lastEventOnOrBefore(db: Kysely<any>, userId: string, chain: readonly StateChunk[], date: string): Promise<LogPosition | null> {
  const ranges: Array<{ from: LogPosition | null; to: LogPosition | null }> = [{ from: chain.at(-1)?.upto ?? null, to: null }];
  for (let i = chain.length - 1; i >= 0; i--) if (chain[i]!.firstBusinessDate <= date) ranges.push({ from: chain[i]!.after, to: chain[i]!.upto });
  for (const r of ranges) {
    const { rows } = await sql<{ c: string; p: string }>`
      select transaction_id::text as c, global_position::text as p from events
      where split_part(stream_id, '.', 1) = ${userLogKey(userId)} ${r.from ? sql`and ${after(r.from)}` : sql``} ${r.to ? sql`and ${atOrBefore(r.to)}` : sql``}
        and metadata->>'businessDate' <= ${date}
      order by transaction_id desc, global_position desc limit 1`.execute(db);
    if (rows[0]) return { commit: BigInt(rows[0].c), prepare: BigInt(rows[0].p) };
  }
  return null;
}

export interface StoredReplayContext {
  db: Kysely<any>;
  logger?: Pick<Logger, 'warn'> | undefined;
}

/** The chunk a view is about to start from, before the rest of its plan is read: the parts can start decoding it. */
export interface StoredBase {
  key: StateKey;
  origin: string;
  /** The chunks 0..base. */
  chain: StateChunk[];
  base: number;
}

export interface PlanOptions {
  key?: StateKey;
  /** At most the chain's first `chainLimit` chunks. */
  chainLimit?: number;
  /** Called once the base is chosen, while its anchor, the events after it and its day records are read. */
  onBase?: (base: StoredBase) => void;
}

/** The start of a view at `point` from the stored states. */
export async function planFromStoredStates(ctx: StoredReplayContext, userId: string, point: ReplayPoint, options: PlanOptions = {}): Promise<StoredPlan | null> {
  const { db } = ctx;
  const key = options.key ?? currentStateKey();
  const origin = await logOriginOf(db);
  const chain = (await readChain(db, userId, key.codeKey, origin)).slice(0, options.chainLimit);
  if (!chain.length) return null;
  let until: LogPosition | null = null;
  if (point.at === 'event') until = point.position;
  else if (point.at === 'date') {
    until = await lastEventOnOrBefore(db, userId, chain, point.date);
    // Before the user's first event: an empty journal.
    if (until === null) return { userId, key, origin, chain: [], from: null, tail: [], last: null, events: 0, days: new Map() };
  }
  const target = until;
  let base = target ? chain.findLastIndex((c) => comparePositions(c.upto, target) <= 0) : chain.length - 1;
  if (base >= 0) options.onBase?.({ key, origin, chain: chain.slice(0, base + 1), base });
  for (;;) {
    const from = base >= 0 ? chain[base]! : null;
    const [holds, tail, days] = await Promise.all([
      from ? anchorHolds(db, userId, from) : true,
      readUserLog(db, userId, { ...(from ? { after: from.upto } : {}), ...(target ? { upTo: target } : {}) }),
      from ? readChunks(db, userId, key, origin, chain, base, { parts: [], days: true }).then((r) => r.chunks.at(-1)!.days!) : [],
    ]);
    // A chunk whose anchor fails does not match the log (events removed or restamped below it, or its
    // header changed): the last chunk before it that does is where the view starts.
    if (!holds) {
      ctx.logger?.warn({ userId, seq: base, upto: positionToString(from!.upto) }, 'audit replay state no longer matches the log: starting from an earlier one');
      base--;
      continue;
    }
    if (target && comparePositions(tail.at(-1)?.position ?? from?.upto ?? { commit: -1n, prepare: -1n }, target) !== 0) throw new NoSuchEventError();
    const prefix = userStreamPrefix(userId);
    let events = from?.events ?? 0;
    for (const e of tail) if (e.streamId.startsWith(prefix)) events++;
    const last = tail.at(-1) ?? (from ? ((await readUserEventAt(db, userId, from.upto)) ?? null) : null);
    return { userId, key, origin, chain: chain.slice(0, base + 1), from, tail, last, events, days: new Map(days.map((d) => [d.income_date, d])) };
  }
}

/** Each part's input: the chunks, and the part's events after the base with their place among all of them. */
export function partInputs(plan: StoredPlan): PartInput[] {
  const prefix = userStreamPrefix(plan.userId);
  const tails: PartInput['tail'][] = Array.from({ length: LINEAGE_PARTS }, () => []);
  plan.tail.forEach((event, index) => {
    if (event.streamId.startsWith(prefix)) tails[partOf(event.streamId.slice(prefix.length))]!.push({ index, event });
  });
  const tailKey = `${plan.tail.length}/${plan.tail.length ? positionToString(plan.tail.at(-1)!.position) : 'none'}`;
  return tails.map((tail, part) => ({ userId: plan.userId, key: plan.key, origin: plan.origin, chain: plan.chain, base: plan.chain.length - 1, part, tail, tailKey }));
}

/**
 * Runs `view` on the plan at `point`; when a stored chunk fails its check (SHA-256, decoding), again
 * from the chunks before it (the maintenance job replaces the bad one at its next run). Null: no stored
 * state to start from.
 */
export async function withStoredStates<T>(
  ctx: StoredReplayContext,
  userId: string,
  point: ReplayPoint,
  view: (plan: StoredPlan) => Promise<T>,
  options: Omit<PlanOptions, 'chainLimit'> = {},
): Promise<T | null> {
  let chainLimit: number | undefined;
  for (;;) {
    try {
      const plan = await planFromStoredStates(ctx, userId, point, { ...options, ...(chainLimit !== undefined ? { chainLimit } : {}) });
      if (!plan) return null;
      return await view(plan);
    } catch (error) {
      if (!(error instanceof StoredStateError)) throw error;
      ctx.logger?.warn({ userId, seq: error.seq, err: error.message }, 'audit replay state failed its check: starting from the chunk before it');
      if (error.seq <= 0) return null;
      chainLimit = error.seq;
    }
  }
}
