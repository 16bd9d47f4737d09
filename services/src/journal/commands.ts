import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { ActorRole, EventMetadata } from '@oj/contracts/events';
import { journalEventSchemas, journalEventVersions, lineageStreamId, type CloseAction, type JournalEvent } from '@oj/contracts/journal-events';
import { newYorkDate } from '@oj/contracts/business-date';
import {
  tradeMessages as m,
  type AddClosedTradeRequest,
  type AddTradeRequest,
  type CloseTradeRequest,
  type RollTradeRequest,
  type SplitTradeRequest,
  type UpdateTradeRequest,
} from '@oj/contracts/trades';
import type { Clock } from '@oj/infra/clock';
import { BoundedMap } from '@oj/infra/bounded-map';
import { deterministicUuid, uuidv7 } from '@oj/infra/ids';
import { WrongExpectedRevisionError, type EventStore, type LogPosition, type NewEvent, type StoredEvent } from '@oj/infra/eventstore/port';
import { AppError } from '../app/errors.ts';
import type { Principal } from '../app/principal.ts';
import { findAccountOfUser, findDefaultAccountOfUser } from '../accounts/queries.ts';
import { assertActiveSubscription } from '../identity/subscriptions.ts';
import { answerOf, type JournalAnswer } from './domain/answers.ts';
import { createdTradeIds, decide, type JournalCommand } from './domain/decide.ts';
import { emptyState, evolve, type EventMeta, type Lineage } from './domain/lineage.ts';

/**
 * The trade journal's command handler: find the lineage, read its stream, fold, decide, append with the
 * expected revision. A lost race re-reads and re-decides once; a second loss, or a decision that is no
 * longer valid, answers 409. Commands sent with an Idempotency-Key get deterministic ids and their first
 * answer on every retry.
 */
export interface JournalContext {
  db: Kysely<any>;
  eventStore: EventStore;
  clock: Clock;
  /**
   * Resolves once the read models show the log up to `position`, or when they cannot be waited for
   * (projections in another process, a time limit): a refusal waits on it (see `decideAndAppend`). Unset:
   * no wait.
   */
  readModelsAt?: (position: LogPosition) => Promise<void>;
}

export interface CommandCaller {
  principal: Pick<Principal, 'userId' | 'subscriptionActive'>;
  /** The HTTP request id: the events' correlation and causation. */
  requestId: string;
  idempotencyKey: string | null;
  actorRole?: ActorRole;
}

export type JournalRequest =
  | { kind: 'addTrade'; body: AddTradeRequest }
  | { kind: 'addClosedTrade'; body: AddClosedTradeRequest }
  | { kind: 'close'; uid: string; action: CloseAction; body: CloseTradeRequest }
  | { kind: 'roll'; uid: string; body: RollTradeRequest }
  | { kind: 'split'; uid: string; body: SplitTradeRequest }
  | { kind: 'update'; uid: string; body: UpdateTradeRequest }
  | { kind: 'delete'; uid: string };

export const IDEMPOTENCY_KEY_MAX = 200;

const requestName = (r: JournalRequest): string => (r.kind === 'close' ? `close:${r.action}:${r.uid}` : 'uid' in r ? `${r.kind}:${r.uid}` : r.kind);
/**
 * What a request asks for, as a digest: its name and its validated body. The body is the schema's
 * output, whose keys follow the schema, so the same request sent with its fields in another order, or
 * with unknown fields the schema drops, has the same digest.
 */
const requestHash = (r: JournalRequest): string =>
  createHash('sha256')
    .update(JSON.stringify([requestName(r), 'body' in r ? r.body : null]))
    .digest('base64url');

export async function runJournalCommand(ctx: JournalContext, caller: CommandCaller, request: JournalRequest): Promise<JournalAnswer> {
  const key = caller.idempotencyKey;
  if (key === null) return decideAndAppend(ctx, caller, request, { appended: false });
  const stored = await claimKey(ctx, caller.principal.userId, key, request);
  if (stored) return stored;
  const progress = { appended: false };
  try {
    return await decideAndAppend(ctx, caller, request, progress);
  } catch (error) {
    // A refusal (the trade is not the caller's, the account is not, a rule of the spec) appended
    // nothing: the key must not stay bound to it, or the corrected request sent under the same key
    // would be refused as "a different request". Anything else keeps the claim, so that a retry of
    // the very request runs again (its events, if they were stored, answer it).
    if (error instanceof AppError && !progress.appended) await releaseClaim(ctx, caller.principal.userId, key, request);
    throw error;
  }
}

/** `progress.appended` turns true once this call's events are in the store (a refusal after it releases nothing). */
async function decideAndAppend(ctx: JournalContext, caller: CommandCaller, request: JournalRequest, progress: { appended: boolean }): Promise<JournalAnswer> {
  const userId = caller.principal.userId;
  const key = caller.idempotencyKey;
  const now = ctx.clock.now();
  // Ids come from the key when there is one, so a retry decides the very same trades and events.
  let tradeSeq = 0;
  const newTradeId = () => (key !== null ? deterministicUuid(userId, key, 'trade', String(tradeSeq++)) : uuidv7(now.getTime()));
  const eventId = (i: number) => (key !== null ? deterministicUuid(userId, key, String(i)) : uuidv7(now.getTime()));

  const plan = await commandOf(ctx, caller, request, newTradeId);
  const { command, lineageId, ownAccount, fresh } = plan;
  let prefetched = plan.prefetched;
  let accountChecked = false;
  const streamId = lineageStreamId(userId, lineageId);
  const today = newYorkDate(now);
  const recordedAt = now.toISOString();

  // The lineage as this process last saw it, when it did: a command decided on it skips the stream
  // read. Safe because the append states the revision the decision was made on: a stale state loses
  // the append (a conflict) and is re-read like any lost race. A decision that fails on a remembered
  // state is made again on a fresh read before the failure is answered. So is a keyed decision that
  // appends nothing, or whose append finds the key's events already stored: a retry whose first try
  // appended them is answered from those events, never from a decision made again on a later state.
  let cached = prefetched ? undefined : lineageStates.get(streamId);
  let raced = false;
  let foundStored = false;
  for (;;) {
    let state: Lineage;
    let stored: StoredEvent[] | undefined;
    const fromCache = cached !== undefined;
    if (cached !== undefined) {
      state = cached;
      cached = undefined;
    } else {
      // A new lineage under a fresh random id has no events yet: skip the read (a keyed retry must read).
      stored = prefetched ?? (fresh && key === null && !raced ? [] : await ctx.eventStore.readStream(streamId));
      prefetched = undefined;
      state = foldStored(stored);
      if (stored.length > 0) rememberState(streamId, state);
    }
    if (key !== null && stored) {
      // A crash between the append and storing the answer: the events are there, the answer is not. The
      // answer is the one the first try would have given: the lineage as of its own last event, on its
      // business date, whatever the lineage did since (a later edit, a delete of the trade).
      const isMine = (e: StoredEvent) => e.metadata.idempotencyKey === key && e.metadata.userId === userId;
      const last = stored.findLastIndex(isMine);
      if (last >= 0) {
        const upToMine = stored.slice(0, last + 1);
        const mine = upToMine.filter(isMine);
        const asOfThen = last === stored.length - 1 ? state : foldStored(upToMine);
        const answer = answerOf(command.type, command.tradeId, mine.map(journalEventOf), asOfThen, mine[0]!.metadata.businessDate);
        return remember(ctx, caller, request, answer);
      }
    }
    let events: JournalEvent[];
    try {
      events = decide(command, state, { today });
    } catch (error) {
      if (fromCache) continue;
      // A refusal for what the trade is now (changed, closed or split on another device since the form
      // opened) sends the console to its lists, read again to show the trade as it is; the change that
      // made the refusal may not be projected yet, and a list read at once would show the trade as the
      // form did, for good (CI: "$300.00" behind "changed elsewhere", the edit to $30 not listed). So the
      // refusal is answered once the read models show the lineage as it was decided on.
      const last = stored?.at(-1);
      if (error instanceof AppError && last && ctx.readModelsAt) await ctx.readModelsAt(last.position);
      throw error;
    }
    if (events.length === 0) {
      // Nothing to append: on a remembered state, a keyed request reads first (its events may be there).
      if (fromCache && key !== null) continue;
      // Stored like any answer: a retry is answered alike, never decided again on a later state (where
      // the same edit would undo another request's change).
      return remember(ctx, caller, request, answerOf(command.type, command.tradeId, events, state, today));
    }
    const created = events.flatMap(createdTradeIds);
    // The opening trade of a lineage is found by its stream id (see lineageOf); only derived trades need a row.
    const indexRows = created.filter((uid) => uid !== lineageId).map((trade_uid) => ({ trade_uid, user_id: userId, lineage_id: lineageId }));
    // Before the append: a command addressing a new uid must find its stream without the projector. The
    // account check runs beside it (one round trip less); if it fails, the row points at nothing.
    await Promise.all([
      ownAccount && !accountChecked ? assertOwnAccount(ctx, userId, ownAccount) : undefined,
      indexRows.length > 0 ? ctx.db.insertInto('trade_lineage_index').values(indexRows).onConflict((oc) => oc.column('trade_uid').doNothing()).execute() : undefined,
    ]);
    accountChecked = true;
    const metadata: EventMetadata = {
      userId,
      actor: { id: userId, role: caller.actorRole ?? 'trader' },
      correlationId: caller.requestId,
      causationId: caller.requestId,
      idempotencyKey: key,
      recordedAt,
      businessDate: today,
      command: command.type,
    };
    const revision = state.status === 'empty' ? -1 : state.revision;
    const toAppend: NewEvent[] = events.map((e, i) => ({ id: eventId(i), type: e.type, schemaVersion: journalEventVersions[e.type], data: e.data, metadata }));
    try {
      const appended = await ctx.eventStore.append(streamId, toAppend, revision === -1 ? 'no_stream' : revision);
      progress.appended = true;
      if (appended.nextExpectedRevision !== revision + toAppend.length) {
        // The store found these very events (the key's ids) earlier in the stream: an earlier try of
        // this request (or a concurrent duplicate, since this one's read) appended them. It is answered
        // from those events, read. Found on a second read still not, the stream contradicts itself.
        if (foundStored) throw new Error(`Append to ${streamId}: the store holds this request's event ids, its reads do not`);
        foundStored = true;
        lineageStates.delete(streamId);
        continue;
      }
      // Only after the append: the cache must never know a uid whose trade may not exist.
      for (const uid of created) rememberLineage(uid, userId, lineageId);
    } catch (error) {
      // Whatever happened to the append, what this process remembers of the lineage may be behind now.
      lineageStates.delete(streamId);
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      // A decision on a remembered state counts as the one re-read a lost race gets: a state goes stale
      // only when the stream moved on without this process, which is a race all the same.
      if (!raced) {
        raced = true;
        continue;
      }
      throw new AppError('conflict', m.changedConcurrently);
    }
    let after: Lineage = state;
    events.forEach((e, i) => {
      after = evolve(after, e, { revision: revision + 1 + i, recordedAt, userId });
    });
    const answer = await remember(ctx, caller, request, answerOf(command.type, command.tradeId, events, after, today));
    // Only once the answer is stored: a keyed retry after a failure here must find the events by a read.
    rememberState(streamId, after);
    return answer;
  }
}

/**
 * Stream id -> the lineage folded up to its last event, as this process last read or appended it
 * (states are immutable: `evolve` returns new ones). Bounded: the oldest entries go first. A state
 * holds its trade records (a few KiB); 5,000 of them are the lineages of the last half minute at 300
 * commands/s, the "open, then act on it" sequence the cache is for, and the bound is reached in the
 * first minute instead of growing the process for six. A miss costs one stream read.
 */
const lineageStates = new BoundedMap<string, Lineage>(5_000);
const rememberState = (streamId: string, state: Lineage) => lineageStates.set(streamId, state);

/**
 * Binds the key to this request before anything is decided, so two requests sent at once under one key
 * with different contents cannot both pass the check: their event ids come from the key alone, and the
 * loser's append would otherwise be taken for a retry of the winner's and answered with events that were
 * never stored. The claim is a row without an answer, inserted under the key's primary key: of two
 * concurrent inserts one waits for the other and then finds its row. Answers the stored answer of a
 * finished request; null when the caller goes on (it holds the claim, or the claim is the same request's:
 * a concurrent duplicate or a retry after a failure or a crash, which the key's ids make safe). A request
 * that fails keeps its claim: the key stays bound to that request, whose retry runs again. A request
 * refused before it appended anything gives its claim back (`releaseClaim`).
 */
async function claimKey(ctx: JournalContext, userId: string, key: string, request: JournalRequest): Promise<JournalAnswer | null> {
  const command = requestName(request);
  const hash = requestHash(request);
  // The claim's commit does not wait for its WAL flush (one statement, so set_config's local setting
  // covers its commit): the append that follows it does, and flushing the append's commit flushes the
  // claim written before it. A crash can lose only a claim whose command wrote nothing durable.
  const claimed = await sql<{ user_id: string }>`
    with async_commit as (select set_config('synchronous_commit', 'off', true))
    insert into journal_command_answers (user_id, idempotency_key, command, request_hash, answer, created_at)
    select ${userId}, ${key}, ${command}, ${hash}, null, ${ctx.clock.now()} from async_commit
    on conflict (user_id, idempotency_key) do nothing
    returning user_id`.execute(ctx.db);
  if (claimed.rows.length > 0) return null;
  const stored = await ctx.db
    .selectFrom('journal_command_answers')
    .select(['command', 'request_hash', 'answer'])
    .where('user_id', '=', userId)
    .where('idempotency_key', '=', key)
    .executeTakeFirstOrThrow();
  // The key names one request: another command, or the same one with other contents, is refused. Rows
  // stored before the digest existed have none and are compared by command only.
  const same = stored.command === command && (stored.request_hash === null || stored.request_hash === hash);
  if (!same) throw new AppError('conflict', m.idempotencyReuse);
  if (stored.answer === null) return null;
  return (typeof stored.answer === 'string' ? JSON.parse(stored.answer) : stored.answer) as JournalAnswer;
}

/**
 * Gives back the claim of a request that was refused before it appended anything. Only a claim without
 * an answer and with this request's digest: never the stored answer of a request that succeeded, nor a
 * claim another request holds.
 */
async function releaseClaim(ctx: JournalContext, userId: string, key: string, request: JournalRequest): Promise<void> {
  await ctx.db
    .deleteFrom('journal_command_answers')
    .where('user_id', '=', userId)
    .where('idempotency_key', '=', key)
    .where('answer', 'is', null)
    .where('request_hash', '=', requestHash(request))
    .execute();
}

/**
 * Stores the first answer on the key's claim. Only a claim without an answer takes it: concurrent
 * duplicates of one request answer alike, and the first stored stays. The insert covers a claim removed
 * by hand (an operator clearing old answers).
 */
async function remember(ctx: JournalContext, caller: CommandCaller, request: JournalRequest, answer: JournalAnswer): Promise<JournalAnswer> {
  if (caller.idempotencyKey === null) return answer;
  await ctx.db
    .insertInto('journal_command_answers')
    .values({
      user_id: caller.principal.userId,
      idempotency_key: caller.idempotencyKey,
      command: requestName(request),
      request_hash: requestHash(request),
      answer: JSON.stringify(answer),
      created_at: ctx.clock.now(),
    })
    .onConflict((oc) =>
      oc
        .columns(['user_id', 'idempotency_key'])
        .doUpdateSet({ answer: sql`excluded.answer` })
        .where('journal_command_answers.answer', 'is', null)
        .where('journal_command_answers.request_hash', '=', requestHash(request)),
    )
    .execute();
  return answer;
}

function journalEventOf(e: StoredEvent): JournalEvent {
  if (!Object.hasOwn(journalEventSchemas, e.type)) throw new Error(`Not a journal event: ${e.type}`);
  return { type: e.type, data: e.data } as JournalEvent;
}

/** Folds a stream as read from the store (already upcast to the current schema versions). */
export function foldStored(stored: StoredEvent[]): Lineage {
  let state: Lineage = emptyState;
  for (const e of stored) {
    const meta: EventMeta = { revision: e.revision, recordedAt: e.metadata.recordedAt, userId: e.metadata.userId };
    state = evolve(state, journalEventOf(e), meta);
  }
  return state;
}

/**
 * uid -> owner and lineage, as this process wrote or read them. A row of trade_lineage_index never
 * changes once written, so a cached entry cannot go stale; it only saves the lookup round trip for the
 * common "open, then act on it" sequence. Bounded: the oldest entries go first. Twice the lineage
 * states (a lineage holds one uid or a few): a lineage's opening trade is found by the stream read its
 * command makes anyway, so past the states' horizon an entry saves a round trip only for a derived
 * trade. 50,000 took five minutes to fill at the soak's 300 commands/s, growing the process after the
 * first minute; 10,000 fill in about one.
 */
const lineageCache = new BoundedMap<string, { userId: string; lineageId: string }>(10_000);
const rememberLineage = (uid: string, userId: string, lineageId: string) => lineageCache.set(uid, { userId, lineageId });

/**
 * The user's own lineage holding `uid`; a foreign uid is "not found", exactly like a missing one. A
 * lineage's opening trade needs no index row: its stream id is made of the caller's user id and the uid,
 * so reading that stream both finds it and proves ownership (the read is the one the command needs
 * anyway). Trades derived from it (remainders, roll successors, split legs) are found in the index.
 */
async function lineageOf(ctx: JournalContext, userId: string, uid: string): Promise<{ lineageId: string; prefetched?: StoredEvent[] }> {
  const found = await findOwnLineage(ctx, userId, uid);
  if (!found) throw new AppError('not_found', m.notFound);
  return found;
}

/**
 * The lookup behind `lineageOf`, for every reader that starts from a trade uid (the trade's history
 * too): null when the uid is not one of the user's trades, whether it is another user's or no one's.
 * `prefetched` is the stream when finding it took the read (a lineage's opening trade).
 */
export async function findOwnLineage(
  ctx: Pick<JournalContext, 'db' | 'eventStore'>,
  userId: string,
  uid: string,
): Promise<{ lineageId: string; prefetched?: StoredEvent[] } | null> {
  const cached = lineageCache.get(uid);
  if (cached) return cached.userId === userId ? { lineageId: cached.lineageId } : null;
  const root = await ctx.eventStore.readStream(lineageStreamId(userId, uid));
  if (root.length > 0) {
    rememberLineage(uid, userId, uid);
    return { lineageId: uid, prefetched: root };
  }
  const row = await ctx.db.selectFrom('trade_lineage_index').select('lineage_id').where('trade_uid', '=', uid).where('user_id', '=', userId).executeTakeFirst();
  if (!row) return null;
  rememberLineage(uid, userId, row.lineage_id as string);
  return { lineageId: row.lineage_id as string };
}

/**
 * Accounts known to belong to a user. Trade accounts are never deleted nor moved to another user, so a
 * positive answer stays true; only those are cached. Bounded: the oldest entries go first.
 */
const ownedAccounts = new BoundedMap<string, true>(50_000);

/** Creating trades needs an active subscription and a trade account of the user's own (403 otherwise). */
async function assertOwnAccount(ctx: JournalContext, userId: string, accountUid: string): Promise<void> {
  if (!accountUid) throw new AppError('invalid', m.accountRequired, { detail: [{ field: 'account_uid', message: m.accountRequired }] });
  const cacheKey = `${userId}/${accountUid}`;
  if (ownedAccounts.has(cacheKey)) return;
  if (await findAccountOfUser(ctx.db, userId, accountUid)) {
    ownedAccounts.set(cacheKey, true);
    return;
  }
  const any = await findDefaultAccountOfUser(ctx.db, userId);
  throw new AppError('forbidden', any ? m.accountNotOwned : m.noAccount, { resolution: 'Add or choose a trade account on the Trade Accounts page.' });
}

const tagNames = (tags: Array<{ name: string }>): string[] => tags.map((t) => t.name);

async function commandOf(
  ctx: JournalContext,
  caller: CommandCaller,
  request: JournalRequest,
  newTradeId: () => string,
): Promise<{ command: JournalCommand; lineageId: string; prefetched?: StoredEvent[]; ownAccount?: string; fresh?: boolean }> {
  const userId = caller.principal.userId;
  switch (request.kind) {
    case 'addTrade':
    case 'addClosedTrade': {
      assertActiveSubscription(caller.principal as Principal);
      const tradeId = newTradeId();
      const tags = tagNames(request.body.tag_data);
      const command: JournalCommand =
        request.kind === 'addTrade'
          ? { type: 'OpenTrade', tradeId, data: request.body.trade_data, tags }
          : { type: 'AddClosedTrade', tradeId, data: request.body.trade_data, tags };
      return { command, lineageId: tradeId, ownAccount: request.body.trade_data.account_uid, fresh: true };
    }
    case 'close': {
      const { expected, ...data } = request.body;
      return {
        command: { type: 'CloseTrade', tradeId: request.uid, action: request.action, data, remainderId: newTradeId(), expected },
        ...(await lineageOf(ctx, userId, request.uid)),
      };
    }
    case 'roll': {
      assertActiveSubscription(caller.principal as Principal);
      const lineage = await lineageOf(ctx, userId, request.uid);
      const tags = request.body.tag_data.length > 0 ? tagNames(request.body.tag_data) : null;
      return {
        command: { type: 'RollTrade', tradeId: request.uid, data: request.body.trade_roll_data, tags, newTradeId: newTradeId(), remainderId: newTradeId(), expected: request.body.expected },
        ...lineage,
      };
    }
    case 'split': {
      assertActiveSubscription(caller.principal as Principal);
      const lineage = await lineageOf(ctx, userId, request.uid);
      return { command: { type: 'SplitTrade', tradeId: request.uid, data: request.body.trade_data, closedLegId: newTradeId(), openLegId: newTradeId(), expected: request.body.expected }, ...lineage };
    }
    case 'update': {
      const lineage = await lineageOf(ctx, userId, request.uid);
      return { command: { type: 'EditTrade', tradeId: request.uid, changes: request.body }, ...lineage, ...(request.body.account_uid ? { ownAccount: request.body.account_uid } : {}) };
    }
    case 'delete':
      return { command: { type: 'DeleteTrade', tradeId: request.uid }, ...(await lineageOf(ctx, userId, request.uid)) };
    default: {
      const never: never = request;
      throw new Error(`Unknown journal request ${(never as { kind: string }).kind}`);
    }
  }
}
