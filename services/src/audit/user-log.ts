import type { Kysely } from 'kysely';
import { userStreamPrefix } from '@oj/contracts/journal-events';
import { comparePositions, type EventStore, type LogPosition, type StoredEvent } from '@oj/infra/eventstore/port';
import { BoundedMap } from '@oj/infra/bounded-map';
import { countUserLog, readStreams, readUserLog, readUserLogPage, userLogHead, type UserLogFilter, type UserLogPage } from '@oj/infra/eventstore/user-log';

/**
 * One user's events for the audit, whatever the event store. On PostgreSQL and PGlite the reads walk the
 * per-user index (infra/src/eventstore/user-log.ts); on EventStoreDB they go through the port's
 * `readAll` with the user's stream prefix and filter in memory (the server filters by prefix).
 */
export interface UserLog {
  page(q: UserLogPage): Promise<StoredEvent[]>;
  /** Events matching the filter, up to and including `upTo` when given. */
  count(q: Pick<UserLogPage, 'userId'> & UserLogFilter & { upTo?: LogPosition }): Promise<number>;
  /** Every event of the user in log order (cached per user while the log does not change). */
  all(userId: string): Promise<readonly StoredEvent[]>;
  streams(streamIds: readonly string[]): Promise<Map<string, StoredEvent[]>>;
}

/**
 * The trade uids an event names: the trade acted on (for an open, the lineage's first trade; for a split,
 * the split trade), a remainder, a roll's successor, a split's legs. The SQL of the timeline's trade
 * filter (infra/src/eventstore/user-log.ts) and of `tradeIdsEndingWith` (trade-ids.ts) read the same fields.
 */
export function tradesNamed(e: Pick<StoredEvent, 'data'>): string[] {
  const d = e.data as Record<string, any>;
  return [d.tradeId, d.remainder?.tradeId, d.newTrade?.tradeId, d.closedLeg?.tradeId, d.openLeg?.tradeId].filter((x): x is string => typeof x === 'string');
}
const touches = (e: StoredEvent, tradeId: string): boolean => tradesNamed(e).includes(tradeId);
export function matchesFilter(e: StoredEvent, f: UserLogFilter): boolean {
  if (f.streamId && e.streamId !== f.streamId) return false;
  if (f.types?.length && !f.types.includes(e.type)) return false;
  if (f.fromDate && e.metadata.businessDate < f.fromDate) return false;
  if (f.toDate && e.metadata.businessDate > f.toDate) return false;
  if (f.tradeId && !touches(e, f.tradeId)) return false;
  return true;
}

/**
 * A support session reads the same user again and again (timeline pages, as-of points, diffs): the
 * whole log is read once and kept for a few users, and reused while the user's last event and count are
 * unchanged. Events appended since are read after the cached head.
 */
const cache = new BoundedMap<string, { events: StoredEvent[]; head: LogPosition | null }>(4);
/** Empties the cache (the bench measures cold reads with it). */
export const forgetCachedLogs = (): void => cache.clear();

export function createUserLog(store: EventStore, db: Kysely<any>): UserLog {
  if (store.kind !== 'eventstoredb') {
    const complete = async (userId: string, events: readonly StoredEvent[]): Promise<boolean> => {
      const last = events.at(-1);
      return !last || (await countUserLog(db, { userId, upTo: last.position })) === events.length;
    };
    return {
      page: (q) => readUserLogPage(db, q),
      count: (q) => countUserLog(db, q),
      async all(userId) {
        const [head, count] = await Promise.all([userLogHead(db, userId), countUserLog(db, { userId })]);
        const hit = cache.get(userId);
        if (hit && hit.events.length === count && (head === null ? hit.head === null : hit.head !== null && comparePositions(hit.head, head) === 0)) return hit.events;
        // Only the events after the cached head are read; a full read goes in chunks. Either misses an
        // event committed late (its transaction began first) behind the cached head or a chunk's last
        // event: what was read is whole when the user has exactly that many events up to its last one.
        let events = hit?.head ? hit.events.concat(await readUserLog(db, userId, { after: hit.head })) : await readUserLog(db, userId);
        for (let attempt = 1; !(await complete(userId, events)); attempt++) {
          if (attempt === 5) throw new Error(`The log of user ${userId} kept changing behind its reads`);
          events = await readUserLog(db, userId);
        }
        cache.set(userId, { events, head: events.at(-1)?.position ?? null });
        return events;
      },
      streams: (ids) => readStreams(db, ids),
    };
  }
  const scan = async (userId: string): Promise<StoredEvent[]> => {
    const out: StoredEvent[] = [];
    for (;;) {
      const after = out.at(-1)?.position;
      const batch = await store.readAll({ streamPrefixes: [userStreamPrefix(userId)], limit: 10_000, ...(after ? { after } : {}) });
      out.push(...batch);
      if (batch.length < 10_000) return out;
    }
  };
  return {
    async page(q) {
      let events = (await scan(q.userId)).filter((e) => matchesFilter(e, q));
      if (q.after) events = events.filter((e) => comparePositions(e.position, q.after!) > 0);
      if (q.before) events = events.filter((e) => comparePositions(e.position, q.before!) < 0);
      if (q.direction === 'backward') events.reverse();
      return events.slice(0, q.limit);
    },
    count: async (q) => (await scan(q.userId)).filter((e) => matchesFilter(e, q) && (!q.upTo || comparePositions(e.position, q.upTo) <= 0)).length,
    all: scan,
    async streams(ids) {
      const out = new Map<string, StoredEvent[]>();
      for (const id of ids) out.set(id, await store.readStream(id));
      return out;
    },
  };
}
