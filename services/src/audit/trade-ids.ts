import { sql, type Kysely } from 'kysely';
import { auditMessages } from '@oj/contracts/audit';
import type { EventStore } from '@oj/infra/eventstore/port';
import { userLogKey } from '@oj/infra/eventstore/user-log';
import { AppError } from '../app/errors.ts';
import { createUserLog, tradesNamed } from './user-log.ts';

/**
 * The trade support typed to focus the as-of trees on. The screens name a trade by the last six
 * characters of its uid (`#c2a869`), so that is what gets typed, as often as a whole uid: either is
 * looked up among the trades THIS user's events name (never another user's), and a typed id that names
 * none, or several, is refused. An unknown id used to answer empty trees, which reads as "this trade was
 * never rolled or split" (QA).
 */

/** What was typed as the end of a uid to look for: without the screens' '#', in lower case. */
export const tradeIdNeedle = (typed: string): string => typed.trim().replace(/^#/, '').toLowerCase();

export type TradePick = { found: string } | { found: null; several: boolean };

/** Of the user's trade uids, the one a typed id names: the uid itself, or the only uid ending with it (any case). */
export function pickTrade(uids: Iterable<string>, typed: string): TradePick {
  const needle = tradeIdNeedle(typed);
  if (!needle) return { found: null, several: false };
  const matches = new Set<string>();
  for (const uid of uids) {
    const lower = uid.toLowerCase();
    // A whole uid is a match of its own, whatever other uids end with it.
    if (lower === needle) return { found: uid };
    if (lower.endsWith(needle)) matches.add(uid);
  }
  if (matches.size === 1) return { found: [...matches][0]! };
  return { found: null, several: matches.size > 1 };
}

/**
 * The user's trade uids that end with `needle` (lower case), from the events themselves (a trade deleted
 * since, or opened after an as-of point, is still in the history): on PostgreSQL and PGlite one pass over
 * the user's index range, reading the fields `tradesNamed` reads; on EventStoreDB from the user's log.
 */
async function tradeIdsEndingWith(deps: { db: Kysely<any>; eventStore: EventStore }, userId: string, needle: string): Promise<string[]> {
  if (deps.eventStore.kind === 'eventstoredb') {
    const uids = new Set<string>();
    for (const e of await createUserLog(deps.eventStore, deps.db).all(userId)) for (const uid of tradesNamed(e)) if (uid.toLowerCase().endsWith(needle)) uids.add(uid);
    return [...uids];
  }
  const { rows } = await sql<{ uid: string }>`select distinct t.uid from events,
      lateral (values (data->>'tradeId'), (data->'remainder'->>'tradeId'), (data->'newTrade'->>'tradeId'), (data->'closedLeg'->>'tradeId'), (data->'openLeg'->>'tradeId')) as t(uid)
    where split_part(stream_id, '.', 1) = ${userLogKey(userId)} and t.uid is not null and right(lower(t.uid), ${needle.length}) = ${needle}
    limit 20`.execute(deps.db);
  return rows.map((r) => r.uid);
}

/** The full uid of the trade `typed` names in this user's history; 404 when none, 422 when several. */
export async function resolveTrade(deps: { db: Kysely<any>; eventStore: EventStore }, userId: string, typed: string): Promise<string> {
  const needle = tradeIdNeedle(typed);
  const pick = pickTrade(needle ? await tradeIdsEndingWith(deps, userId, needle) : [], typed);
  if (pick.found !== null) return pick.found;
  const shown = typed.trim();
  if (!pick.several) throw new AppError('not_found', auditMessages.tradeNotInHistory(shown));
  const message = auditMessages.tradeAmbiguous(shown);
  throw new AppError('invalid', message, { detail: [{ field: 'querystring.trade', message }] });
}

/** A view's query with its trade as typed replaced by the user's trade uid it names (refused as above); unchanged without one. */
export async function withTradeResolved<Q extends { trade?: string | undefined }>(deps: { db: Kysely<any>; eventStore: EventStore }, userId: string, asked: Q): Promise<Q> {
  return asked.trade ? { ...asked, trade: await resolveTrade(deps, userId, asked.trade) } : asked;
}
