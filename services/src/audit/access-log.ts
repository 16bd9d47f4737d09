import { z } from 'zod';
import type { Kysely } from 'kysely';
import { accessView, type AccessLogEntry, type AccessLogResponse, type AccessView, type AuditUser, type JournalAccessResponse } from '@oj/contracts/audit';
import { roleName } from '@oj/contracts/users';
import { uuidv7 } from '@oj/infra/ids';
import { businessDateOf, type Clock } from '@oj/infra/clock';
import { positionFromString, positionToString, type EventStore, type StoredEvent } from '@oj/infra/eventstore/port';
import { readPrefixBackwards } from '@oj/infra/eventstore/user-log';
import type { Principal } from '../app/principal.ts';

/**
 * The access log: every read of a user's history by support staff is an event in the event store,
 * stream `audit-access-<targetUserId>` (one per user whose history was opened, so a trader's own list is
 * one stream read). It is appended before the answer leaves, with `any` as the expected revision
 * (accesses never conflict), and no route edits or deletes events: the log is append-only.
 */
export const ACCESS_STREAM_PREFIX = 'audit-access-';
export const accessStreamId = (targetUserId: string) => `${ACCESS_STREAM_PREFIX}${targetUserId}`;
export const ACCESS_EVENT = 'JournalAccessRecorded';

const accessData = z.object({
  support: z.object({ uid: z.string(), name: z.string(), email: z.string(), role: roleName }),
  target: z.object({ uid: z.string(), email: z.string() }),
  reason: z.string(),
  view: accessView,
  detail: z.string(),
  digest: z.string().nullable(),
});
type AccessData = z.infer<typeof accessData>;

export interface AccessRecord {
  principal: Principal;
  target: AuditUser;
  reason: string;
  view: AccessView;
  detail: string;
  requestId: string;
  digest?: string | null;
}

/**
 * `key=value` pairs of the parts of a query that say what was looked at (the reason is logged on its
 * own): the access's detail, for the routes and `npm run audit` alike.
 */
export const describeQuery = (q: Record<string, unknown>): string =>
  Object.entries(q)
    .filter(([k, v]) => k !== 'reason' && v !== undefined && !(k === 'full' && v === false))
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');

export async function recordAccess(deps: { eventStore: EventStore; clock: Clock }, a: AccessRecord): Promise<void> {
  const data: AccessData = {
    support: { uid: a.principal.userId, name: a.principal.name, email: a.principal.email, role: a.principal.role },
    target: { uid: a.target.uid, email: a.target.email },
    reason: a.reason,
    view: a.view,
    detail: a.detail,
    digest: a.digest ?? null,
  };
  await deps.eventStore.append(
    accessStreamId(a.target.uid),
    [
      {
        id: uuidv7(),
        type: ACCESS_EVENT,
        schemaVersion: 1,
        data,
        metadata: {
          userId: a.target.uid,
          actor: { id: a.principal.userId, role: 'support' },
          correlationId: a.requestId,
          causationId: null,
          idempotencyKey: null,
          recordedAt: deps.clock.now().toISOString(),
          businessDate: businessDateOf(deps.clock),
          command: 'RecordJournalAccess',
        },
      },
    ],
    'any',
  );
}

function entryOf(e: StoredEvent): AccessLogEntry | null {
  const d = accessData.safeParse(e.data);
  if (e.type !== ACCESS_EVENT || !d.success) return null;
  return {
    id: e.id,
    position: positionToString(e.position),
    at: e.metadata.recordedAt,
    support: d.data.support,
    target_uid: d.data.target.uid,
    target_email: d.data.target.email,
    reason: d.data.reason,
    view: d.data.view,
    detail: d.data.detail,
    request_id: e.metadata.correlationId,
    digest: d.data.digest,
  };
}

/** The whole access log (Admin), newest first; optionally one user's. */
export async function accessLog(deps: { eventStore: EventStore; db: Kysely<any> }, q: { cursor?: string | undefined; limit: number; user?: string | undefined }): Promise<AccessLogResponse> {
  let events: StoredEvent[];
  const before = q.cursor ? positionFromString(q.cursor) : undefined;
  if (deps.eventStore.kind !== 'eventstoredb') {
    events = await readPrefixBackwards(deps.db, q.user ? accessStreamId(q.user) : ACCESS_STREAM_PREFIX, { limit: q.limit + 1, ...(before ? { before } : {}) });
  } else {
    const all = q.user ? await deps.eventStore.readStream(accessStreamId(q.user)) : await deps.eventStore.readAll({ streamPrefixes: [ACCESS_STREAM_PREFIX], limit: 100_000 });
    all.reverse();
    events = (before ? all.filter((e) => positionToString(e.position) < positionToString(before)) : all).slice(0, q.limit + 1);
  }
  const page = events.slice(0, q.limit);
  return {
    items: page.map(entryOf).filter((x): x is AccessLogEntry => x !== null),
    next_cursor: events.length > q.limit ? positionToString(page.at(-1)!.position) : null,
  };
}

/** What the trader sees: who opened their journal, when, why, what they looked at (newest first). */
export async function journalAccess(deps: { eventStore: EventStore }, userId: string): Promise<JournalAccessResponse> {
  const events = await deps.eventStore.readStream(accessStreamId(userId));
  const items = events
    .map(entryOf)
    .filter((x): x is AccessLogEntry => x !== null && x.target_uid === userId)
    .reverse()
    .map((a) => ({ at: a.at, by: a.support.name, role: a.support.role, reason: a.reason, view: a.view, detail: a.detail }));
  return { items };
}
