import { sql, type Kysely, type RawBuilder } from 'kysely';
import { journalStreamPrefix } from '@oj/contracts/journal-events';
import { upcastJournalEvent } from './create.ts';
import type { LogPosition, StoredEvent } from './port.ts';
import { COLUMNS, VISIBLE, rawEvent, type EventRow } from './postgres.ts';

/**
 * One user's journal events in log order, on the PostgreSQL event store (node-postgres and PGlite),
 * for audit replay. Additive beside the port: the port's `readAll` with the prefix `trade-<userId>.`
 * answers the same events, but it sorts all of a user's events for every page; these reads walk the
 * index `events_user_log_idx` on (split_part(stream_id, '.', 1), transaction_id, global_position)
 * (created by the audit module's migrations), so a page of a user with 250,000 events is an index range
 * scan. Stream ids are `trade-<userId>.<lineageId>` and user ids hold no '.', so the first part of the
 * stream id names the user.
 *
 * Unlike `readAll`, these reads are not held back by the visibility horizon: an audit reads what is
 * committed. An event committed late with an earlier log position than a page's last one can appear
 * before it after the page was read; audit pages are read long after the fact, and Verify reads the
 * whole history at once.
 */
export interface UserLogFilter {
  /** One lineage's stream. */
  streamId?: string;
  /** Event types. */
  types?: readonly string[];
  /** Only events that name this trade (as the trade acted on, a remainder, a roll's successor or a split's leg). */
  tradeId?: string;
  /** New York business dates (metadata.businessDate), inclusive. */
  fromDate?: string;
  toDate?: string;
}

export interface UserLogPage extends UserLogFilter {
  userId: string;
  /** Exclusive bounds. */
  after?: LogPosition;
  before?: LogPosition;
  direction: 'forward' | 'backward';
  limit: number;
}

const toEvent = (r: EventRow): StoredEvent => upcastJournalEvent(rawEvent(r, r.metadata));

/** The first part of the user's stream ids: the indexed key. */
export const userLogKey = (userId: string): string => `${journalStreamPrefix}${userId}`;

const pos = (p: LogPosition) => sql`(${p.commit.toString()}::xid8, ${p.prepare.toString()}::bigint)`;
/** Events at or before `upTo` (inclusive), when given. */
const upToCondition = (upTo: LogPosition | undefined) => (upTo ? sql`and (transaction_id, global_position) <= ${pos(upTo)}` : sql``);

function conditions(q: UserLogPage): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [sql`split_part(stream_id, '.', 1) = ${userLogKey(q.userId)}`];
  if (q.after && q.after.commit >= 0n) parts.push(sql`(transaction_id, global_position) > ${pos(q.after)}`);
  if (q.before) parts.push(sql`(transaction_id, global_position) < ${pos(q.before)}`);
  if (q.streamId) parts.push(sql`stream_id = ${q.streamId}`);
  if (q.types?.length) parts.push(sql`type = any(${[...q.types]}::text[])`);
  if (q.fromDate) parts.push(sql`metadata->>'businessDate' >= ${q.fromDate}`);
  if (q.toDate) parts.push(sql`metadata->>'businessDate' <= ${q.toDate}`);
  if (q.tradeId) {
    const t = q.tradeId;
    parts.push(sql`(data->>'tradeId' = ${t} or data->'remainder'->>'tradeId' = ${t} or data->'newTrade'->>'tradeId' = ${t}
      or data->'closedLeg'->>'tradeId' = ${t} or data->'openLeg'->>'tradeId' = ${t})`);
  }
  return sql.join(parts, sql` and `);
}

/** One page of a user's events, forwards (oldest first) or backwards (newest first). */
export async function readUserLogPage(db: Kysely<any>, q: UserLogPage): Promise<StoredEvent[]> {
  const order = q.direction === 'forward' ? sql`transaction_id, global_position` : sql`transaction_id desc, global_position desc`;
  const { rows } = await sql<EventRow>`select ${COLUMNS} from events where ${conditions(q)} order by ${order} limit ${q.limit}`.execute(db);
  return rows.map(toEvent);
}

/**
 * Every event of a user in log order, up to and including `upTo` when given, read in keyset chunks so
 * no single result holds the whole history twice (rows and events). `limit`: at most that many.
 * `visibleOnly`: only events of transactions below the visibility horizon (postgres.ts), the ones no
 * later commit can ever sort before: what a state kept for later (the audit's stored replay states)
 * may be folded from.
 */
export async function readUserLog(
  db: Kysely<any>,
  userId: string,
  options: { upTo?: LogPosition; after?: LogPosition; chunk?: number; limit?: number; visibleOnly?: boolean } = {},
): Promise<StoredEvent[]> {
  const chunk = options.chunk ?? 50_000;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const out: StoredEvent[] = [];
  let after = options.after;
  for (;;) {
    const n = Math.min(chunk, limit - out.length);
    const upTo = upToCondition(options.upTo);
    const visible = options.visibleOnly ? sql`and ${VISIBLE}` : sql``;
    const page: UserLogPage = { userId, direction: 'forward', limit: n, ...(after ? { after } : {}) };
    const { rows } = await sql<EventRow>`select ${COLUMNS} from events where ${conditions(page)} ${upTo} ${visible}
      order by transaction_id, global_position limit ${n}`.execute(db);
    for (const r of rows) out.push(toEvent(r));
    if (rows.length < n || out.length >= limit) return out;
    after = out.at(-1)!.position;
  }
}

/** Number of a user's events (with the same filters as a page), up to and including `upTo` when given. */
export async function countUserLog(db: Kysely<any>, q: Pick<UserLogPage, 'userId'> & UserLogFilter & { upTo?: LogPosition }): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*)::text as n from events where ${conditions({ ...q, direction: 'forward', limit: 0 })} ${upToCondition(q.upTo)}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/** The last event of a user's log, or null: the key of anything cached from it. */
export async function userLogHead(db: Kysely<any>, userId: string): Promise<LogPosition | null> {
  const [last] = await readUserLogPage(db, { userId, direction: 'backward', limit: 1 });
  return last?.position ?? null;
}

/** One event of a user by its log position, or undefined. */
export async function readUserEventAt(db: Kysely<any>, userId: string, at: LogPosition): Promise<StoredEvent | undefined> {
  const { rows } = await sql<EventRow>`select ${COLUMNS} from events
    where split_part(stream_id, '.', 1) = ${userLogKey(userId)} and transaction_id = ${at.commit.toString()}::xid8 and global_position = ${at.prepare.toString()}::bigint`.execute(db);
  return rows[0] ? toEvent(rows[0]) : undefined;
}

/**
 * Events of streams whose ids start with a prefix, newest first (the access log: a few streams of
 * audit records). Exclusive `before`.
 */
export async function readPrefixBackwards(db: Kysely<any>, prefix: string, options: { before?: LogPosition; limit: number }): Promise<StoredEvent[]> {
  const before = options.before ? sql`and (transaction_id, global_position) < ${pos(options.before)}` : sql``;
  const like = `${prefix.replace(/[\\%_]/g, '\\$&')}%`;
  const { rows } = await sql<EventRow>`select ${COLUMNS} from events where stream_id like ${like} ${before}
    order by transaction_id desc, global_position desc limit ${options.limit}`.execute(db);
  return rows.map(toEvent);
}

/** Whole streams (a page's lineages, to describe its events from the states before them), in revision order. */
export async function readStreams(db: Kysely<any>, streamIds: readonly string[]): Promise<Map<string, StoredEvent[]>> {
  const out = new Map<string, StoredEvent[]>(streamIds.map((s) => [s, []]));
  if (!streamIds.length) return out;
  const { rows } = await sql<EventRow>`select ${COLUMNS} from events where stream_id = any(${[...streamIds]}::text[]) order by stream_id, revision`.execute(db);
  for (const r of rows) out.get(r.stream_id)?.push(toEvent(r));
  return out;
}
