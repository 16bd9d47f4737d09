import { createHash, randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type {
  AsOfResponse,
  AuditOverview,
  AuditUser,
  EventDiffResponse,
  ExportFormat,
  RowChange,
  RowDifference,
  StoredStateUse,
  TimelineEntry,
  TimelineResponse,
  TradeHistoryResponse,
  VerifyResponse,
} from '@oj/contracts/audit';
import { auditMessages, timelineQuery } from '@oj/contracts/audit';
import { lineageStreamId, userStreamPrefix, type JournalEventType } from '@oj/contracts/journal-events';
import { newYorkDate } from '@oj/contracts/business-date';
import { START, comparePositions, positionFromString, positionToString, type EventStore, type LogPosition, type StoredEvent } from '@oj/infra/eventstore/port';
import type { Clock } from '@oj/infra/clock';
import { businessDateOf } from '@oj/infra/clock';
import { ProjectionNotLiveError, liveRow, readCheckpoints, type RegistryRow } from '@oj/projections/runtime/registry';
import { laneOf } from '@oj/projections/runtime/lanes';
import { TRADES_PROJECTION, tradeTables } from '@oj/projections/trades/projection';
import { emptyLineage } from '@oj/contracts/lineage-fold';
import { rowToListItem, type TradesTable } from '@oj/projections/trades/tables';
import { splitRow } from '@oj/projections/split-history/tables';
import { FORMULAS_VERSION, round2 } from '@oj/contracts/formulas';
import { canon, diffRows, fieldDifferences, sameJson, type FieldDifference } from '@oj/projections/runtime/row-diff';
import { foldEvent, lineageOfStream, readUserRows, userRowKeys } from '@oj/projections/trades/user-rows';
import type { DailyPremiumRecord } from '@oj/projections/daily-premium/compute';
import type { z } from 'zod';
import type { Logger } from 'pino';
import { csvText } from '../app/csv.ts';
import { AppError } from '../app/errors.ts';
import { findOwnLineage } from '../journal/commands.ts';
import { findUserByEmail, findUserByUid, type UserRecord } from '../identity/users.ts';
import { describeEvent, describeWithLineages, sameValue, timelineEntryOf, tradeChanges } from './describe.ts';
import { allDayTrades, applyEvent, asJournalEvent, buildHistory, dailyRecords, dayTradesOf, formulaVersions, lineageOf, listOf, newReplay, replayAt, replayEvents, replayRows, splitPositions, statesAround, tradeRow, type Replay, type ReplayHistory } from './replay.ts';
import { createUserLog, forgetCachedLogs, type UserLog } from './user-log.ts';
import { byListOrder, firstInOrder, listHeads, mergeInView, rollTreesInView, splitTreesInView, type RollTree, type SplitTree } from './journal-views.ts';
import { NoSuchEventError, partInputs, withStoredStates, type ReplayPoint, type StoredBase, type StoredPlan } from './stored-replay.ts';
import { LINEAGE_PARTS } from './state-codec.ts';
import { inProcessParts, type PartRunner } from './part-runner.ts';
import { forgetPartJournals, partTables, type PartInput, type PartTableDiff } from './partition-replay.ts';
import { withDays } from './journal-state.ts';
import { withTradeResolved } from './trade-ids.ts';

export interface AuditContext {
  db: Kysely<any>;
  eventStore: EventStore;
  clock: Clock;
  /** Warnings about stored replay states that failed a check (the view then replays more of the log). */
  logger?: Pick<Logger, 'warn'> | undefined;
  /** Where the parts of a heavy user's journal are replayed (worker threads in the gateway); default: this thread. */
  parts?: PartRunner | undefined;
}

/** A lineage's place in a whole journal's lineages (in the order of first events) is its index. */
const byIndex = (_: unknown, i: number) => i;

const partsOf = (ctx: AuditContext): PartRunner => ctx.parts ?? inProcessParts(ctx.db);

/** Stored replay states hold PostgreSQL log positions: on EventStoreDB every view replays from the first event. */
const hasStoredStates = (ctx: AuditContext) => ctx.eventStore.kind !== 'eventstoredb';

const log = (ctx: AuditContext): UserLog => createUserLog(ctx.eventStore, ctx.db);

export function auditUserOf(u: UserRecord): AuditUser {
  return { uid: u.uid, name: u.name, email: u.email, username: u.username, role: u.role, user_since: u.created_at.toISOString() };
}

/** By e-mail, username or uid (exact; an e-mail or username is matched without regard to case). */
export async function findUsers(db: Kysely<any>, q: string): Promise<AuditUser[]> {
  const term = q.trim();
  if (/\p{Cc}/u.test(term)) return [];
  const found = new Map<string, UserRecord>();
  const byUid = await findUserByUid(db, term);
  if (byUid) found.set(byUid.uid, byUid);
  if (term.includes('@')) {
    const byEmail = await findUserByEmail(db, term);
    if (byEmail) found.set(byEmail.uid, byEmail);
  }
  const byUsername = await db.selectFrom('users').select('uid').where(sql<boolean>`lower(username) = ${term.toLowerCase()}`).execute();
  for (const r of byUsername) {
    const u = await findUserByUid(db, r.uid as string);
    if (u) found.set(u.uid, u);
  }
  return [...found.values()].map(auditUserOf);
}

export async function targetUser(db: Kysely<any>, uid: string): Promise<AuditUser> {
  const u = await findUserByUid(db, uid);
  if (!u) throw new AppError('not_found', auditMessages.userNotFound);
  return auditUserOf(u);
}

export async function overview(ctx: AuditContext, user: AuditUser): Promise<AuditOverview> {
  const l = log(ctx);
  const [first, last, events, lineages] = await Promise.all([
    l.page({ userId: user.uid, direction: 'forward', limit: 1 }),
    l.page({ userId: user.uid, direction: 'backward', limit: 1 }),
    l.count({ userId: user.uid }),
    countLineages(ctx, user.uid),
  ]);
  return {
    user,
    events,
    lineages,
    first_event_at: first[0]?.metadata.recordedAt ?? null,
    last_event_at: last[0]?.metadata.recordedAt ?? null,
    first_position: first[0] ? positionToString(first[0].position) : null,
    last_position: last[0] ? positionToString(last[0].position) : null,
    formulas_version: FORMULAS_VERSION,
    formulas_versions: [...formulaVersions],
  };
}

/** Lineages of the user, from the live read model's per-lineage guard rows (one primary-key range). */
async function countLineages(ctx: AuditContext, userId: string): Promise<number> {
  const row = await liveRow(ctx.db, TRADES_PROJECTION);
  if (!row) return 0;
  const r = await sql<{ n: string }>`select count(*)::text as n from ${sql.table(row.tables.trade_lineages!)} where user_id = ${userId}`.execute(ctx.db);
  return Number(r.rows[0]?.n ?? 0);
}

/** Timeline entries of events, each described from its lineage's state just before it. */
async function entriesOf(l: UserLog, userId: string, events: readonly StoredEvent[]): Promise<TimelineEntry[]> {
  const streams = await l.streams([...new Set(events.map((e) => e.streamId))]);
  const described = describeWithLineages(events, streams, foldEvent, (streamId) => lineageOfStream(userId, streamId));
  return events.map((e) => {
    const d = described.get(e.id);
    const event = asJournalEvent(e);
    return timelineEntryOf(e, event, d?.sentence ?? e.type, d?.lineageId ?? e.streamId.slice(userStreamPrefix(userId).length));
  });
}

type TimelineArgs = z.output<typeof timelineQuery>;

export function filterOf(userId: string, q: Pick<TimelineArgs, 'trade' | 'lineage' | 'type' | 'from' | 'to'>) {
  return {
    ...(q.lineage ? { streamId: lineageStreamId(userId, q.lineage) } : {}),
    ...(q.type ? { types: [q.type] } : {}),
    ...(q.trade ? { tradeId: q.trade } : {}),
    ...(q.from ? { fromDate: q.from } : {}),
    ...(q.to ? { toDate: q.to } : {}),
  };
}

export async function timeline(ctx: AuditContext, userId: string, asked: TimelineArgs): Promise<TimelineResponse> {
  // The trade as the screens show it (`#cfbb37`, any case) or whole, as the as-of trees take it; one the
  // user's history does not name is refused (QA: `#cfbb37` answered "0 events match", which reads as a
  // trade without history).
  const q = await withTradeResolved(ctx, userId, asked);
  const l = log(ctx);
  const filter = filterOf(userId, q);
  const cursor = q.cursor ? positionFromString(q.cursor) : undefined;
  const [events, total] = await Promise.all([
    l.page({ userId, direction: q.direction, limit: q.limit + 1, ...filter, ...(cursor ? (q.direction === 'forward' ? { after: cursor } : { before: cursor }) : {}) }),
    l.count({ userId, ...filter }),
  ]);
  const page = events.slice(0, q.limit);
  const [items, offset] = await Promise.all([entriesOf(l, userId, page), timelineOffset(l, userId, filter, q.direction, cursor, page[0], total)]);
  return { items, next_cursor: events.length > q.limit && page.length ? positionToString(page.at(-1)!.position) : null, total, offset };
}

/**
 * The events of the filtered log before a page in the order it was read: forwards, those at or before the
 * cursor; backwards, those later in the log than the page's first event (the latest below the cursor: what
 * lies between it and the cursor does not match). One count over the user's index, as `total` is, so a
 * page deep in a heavy user's log still costs what the first does.
 */
async function timelineOffset(
  l: UserLog,
  userId: string,
  filter: ReturnType<typeof filterOf>,
  direction: 'forward' | 'backward',
  cursor: LogPosition | undefined,
  first: StoredEvent | undefined,
  total: number,
): Promise<number> {
  if (direction === 'forward') return cursor ? l.count({ userId, ...filter, upTo: cursor }) : 0;
  if (!first) return cursor ? total : 0;
  // An event appended between the two counts is after the page: it can only make `total` the larger.
  return Math.max(0, total - (await l.count({ userId, ...filter, upTo: first.position })));
}

/** The index of the event at `position` in the user's log, or a 404. */
function indexOfPosition(events: readonly StoredEvent[], position: string): number {
  const p = positionFromString(position);
  let lo = 0;
  let hi = events.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = comparePositions(events[mid]!.position, p);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  throw new AppError('not_found', auditMessages.eventNotFound);
}

function checkFormulas(version: number | undefined): number {
  const v = version ?? FORMULAS_VERSION;
  if (!formulaVersions.includes(v)) {
    const message = auditMessages.formulasVersion(v);
    throw new AppError('invalid', message, { detail: [{ field: 'querystring.formulas', message }] });
  }
  return v;
}

export interface AsOfArgs {
  event?: string | undefined;
  date?: string | undefined;
  formulas?: number | undefined;
  list_limit: number;
  trade?: string | undefined;
  /** Replay from the first event even where stored replay states could be read. */
  full?: boolean | undefined;
}

/** What the as-of view shows, before it is put in the response's shape. */
interface AsOfJournal {
  /** Per list (open, closed, rolled): its count and its first rows in the lists' order. */
  counts: [number, number, number];
  heads: [TradesTable[], TradesTable[], TradesTable[]];
  rollTrees: RollTree[];
  splitTrees: SplitTree[];
  /** Every day record of the journal. */
  days: readonly DailyPremiumRecord[];
  last: StoredEvent | null;
  events: number;
  stored: StoredStateUse | null;
}

const storedStateUseOf = (plan: StoredPlan): StoredStateUse | null =>
  plan.from ? { position: positionToString(plan.from.upto), events: plan.from.events, stored_at: plan.from.createdAt.toISOString(), events_after: plan.events - plan.from.events } : null;

const pointOf = (q: AsOfArgs): ReplayPoint => (q.event ? { at: 'event', position: positionFromString(q.event) } : q.date ? { at: 'date', date: q.date } : { at: 'head' });

/**
 * The day records after a stored plan: the base chunk's, with every day the parts' events touched
 * recomputed from the rows every part has on it.
 */
async function daysAfter(ctx: AuditContext, plan: StoredPlan, inputs: readonly PartInput[], touched: ReadonlyArray<readonly string[]>): Promise<ReadonlyMap<string, DailyPremiumRecord>> {
  const changed = new Set(touched.flat());
  if (!changed.size) return plan.days;
  const rows = (await partsOf(ctx).run('rowsOnDays', inputs.map((i) => ({ ...i, days: [...changed] })))).flat();
  return withDays(plan.userId, plan.days, changed, rows);
}

/** Lets the parts start on the base (and for Verify ask for their live rows) while the plan's other reads run. */
const openParts =
  (ctx: AuditContext, userId: string, verify?: { tables: Record<UserTable, string>; token: string }) =>
  (b: StoredBase): void => {
    const inputs = Array.from({ length: LINEAGE_PARTS }, (_, part) => ({ userId, key: b.key, origin: b.origin, chain: b.chain, base: b.base, part, ...(verify ? { verify } : {}) }));
    // A failure here (a chunk that fails its check) comes again from the task that follows, which handles it.
    partsOf(ctx).run('open', inputs).catch(() => {});
  };

/** The as-of view from the stored replay states, a part of the lineages per core; null when the user has none. */
async function asOfFromStoredStates(ctx: AuditContext, userId: string, q: AsOfArgs): Promise<AsOfJournal | null> {
  try {
    return await withStoredStates(ctx, userId, pointOf(q), async (plan) => {
      const inputs = partInputs(plan);
      const parts = await partsOf(ctx).run('asOf', inputs.map((i) => ({ ...i, listLimit: q.list_limit, trade: q.trade })));
      const days = await daysAfter(ctx, plan, inputs, parts.map((p) => p.touchedDays));
      const list = (i: 0 | 1 | 2) => firstInOrder(parts.flatMap((p) => p.heads[i]), q.list_limit, byListOrder);
      return {
        counts: [0, 1, 2].map((i) => parts.reduce((n, p) => n + p.counts[i]!, 0)) as [number, number, number],
        heads: [list(0), list(1), list(2)],
        rollTrees: mergeInView(parts.map((p) => p.roll), q.trade),
        splitTrees: mergeInView(parts.map((p) => p.split), q.trade).flat(),
        days: [...days.values()],
        last: plan.last,
        events: plan.events,
        stored: storedStateUseOf(plan),
      };
    }, { onBase: openParts(ctx, userId) });
  } catch (error) {
    if (error instanceof NoSuchEventError) throw new AppError('not_found', auditMessages.eventNotFound);
    throw error;
  }
}

/** The as-of view replayed from the user's first event (the cached log and its folded history). */
async function asOfFromLog(ctx: AuditContext, userId: string, q: AsOfArgs): Promise<AsOfJournal> {
  const events = await log(ctx).all(userId);
  let n: number;
  if (q.event) n = indexOfPosition(events, q.event) + 1;
  else if (q.date) {
    n = 0;
    for (let i = 0; i < events.length; i++) if (events[i]!.metadata.businessDate <= q.date) n = i + 1;
  } else n = events.length;
  const whole = n === events.length ? fullReplay(userId, events) : null;
  const replay = whole?.replay ?? replayAt(historyOf(userId, events), n);
  // The same picks as each part's of a stored replay state (partition-replay.ts), over every lineage.
  const { counts, heads } = listHeads(replay.lineages.values(), q.list_limit);
  const ordered = [...replay.lineages.values()];
  return {
    counts,
    heads,
    rollTrees: mergeInView([rollTreesInView(ordered, byIndex, q.trade)], q.trade),
    splitTrees: mergeInView([splitTreesInView(ordered, byIndex, q.trade)], q.trade).flat(),
    days: whole?.rows.daily_premium ?? dailyRecords(userId, allDayTrades(replay)),
    last: n > 0 ? events[n - 1]! : null,
    events: replay.events,
    stored: null,
  };
}

/**
 * The journal as it stood right after an event (or at the end of a New York date), replayed through the
 * projection's code: from the last stored replay state before that point when there is one (folded
 * with the live formulas), else, or with `full`, from the user's first event.
 */
export async function asOf(ctx: AuditContext, userId: string, asked: AsOfArgs): Promise<AsOfResponse> {
  const started = performance.now();
  const formulas = checkFormulas(asked.formulas);
  // A day that has not ended shows days open and days left counted ahead of time (QA: 9999-12-31 was
  // answered); today is the latest end of day there is.
  const today = newYorkDate(ctx.clock.now());
  if (asked.date && asked.date > today) {
    const message = auditMessages.asOfFuture(today);
    throw new AppError('invalid', message, { detail: [{ field: 'querystring.date', message }] });
  }
  // The trees' trade as typed (a short id, a whole uid) becomes the user's trade uid, or the view is refused.
  const q = await withTradeResolved(ctx, userId, asked);
  const j = (!q.full && formulas === FORMULAS_VERSION && hasStoredStates(ctx) ? await asOfFromStoredStates(ctx, userId, q) : null) ?? (await asOfFromLog(ctx, userId, q));
  const date = q.date ?? j.last?.metadata.businessDate ?? businessDateOf(ctx.clock);
  const items = (rows: readonly TradesTable[]) => rows.map((r) => rowToListItem(r as never, date));
  const daily = j.days.filter((d) => d.income_date <= date);
  daily.sort((a, b) => (a.income_date < b.income_date ? 1 : -1));
  const at = j.last ? (await entriesOf(log(ctx), userId, [j.last]))[0]! : null;
  return {
    at,
    date: q.date ?? null,
    trade: q.trade ?? null,
    events_replayed: j.events,
    formulas_version: formulas,
    counts: { open: j.counts[0], closed: j.counts[1], rolled: j.counts[2] },
    open: items(j.heads[0]),
    closed: items(j.heads[1]),
    rolled: items(j.heads[2]),
    roll_trees: j.rollTrees,
    split_trees: j.splitTrees,
    daily_premium: daily.slice(0, 60).map((d) => ({ income_date: d.income_date, np: d.np, nf: d.nf, npc: d.npc, otc: d.otc, ctc: d.ctc, iw: d.iw })),
    totals: {
      net_premium: round2(daily.reduce((s, d) => s + d.np, 0)),
      fees: round2(daily.reduce((s, d) => s + d.nf, 0)),
      net_premium_captured: round2(daily.reduce((s, d) => s + d.npc, 0)),
      days: daily.length,
    },
    stored_state: j.stored,
    elapsed_ms: Math.round(performance.now() - started),
  };
}

/** Fields of two rows that differ (as JSON values: key order inside JSON columns does not count). */
const fieldDiff = (a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): Array<{ field: string; before: unknown; after: unknown }> =>
  fieldDifferences(a, b).map((f) => ({ field: f.field, before: f.live, after: f.replayed }));

function rowChanges(table: string, keyOf: (r: any) => string, before: readonly object[], after: readonly object[]): RowChange[] {
  const b = new Map(before.map((r) => [keyOf(r), r as Record<string, unknown>]));
  const a = new Map(after.map((r) => [keyOf(r), r as Record<string, unknown>]));
  const out: RowChange[] = [];
  for (const [key, row] of a) {
    const old = b.get(key);
    const fields = fieldDiff(old, row);
    if (!fields.length) continue;
    out.push({ table, key, change: old ? 'update' : 'insert', fields });
  }
  for (const [key, old] of b) if (!a.has(key)) out.push({ table, key, change: 'delete', fields: fieldDiff(old, undefined) });
  return out;
}

/** What one event changed: each trade's fields before and after, and the read-model rows it changed. */
export async function eventDiff(ctx: AuditContext, userId: string, position: string): Promise<EventDiffResponse> {
  const l = log(ctx);
  const events = await l.all(userId);
  const i = indexOfPosition(events, position);
  const e = events[i]!;
  // The lineage right before and right after the event, and every other lineage as it stood then
  // (the event changes no other lineage), from the history: nothing is folded again.
  const history = historyOf(userId, events);
  const states = statesAround(history, i);
  const replay = replayAt(history, i);
  const countsBefore = listCounts(replay);
  const lineage = states.after;
  const before = states.before.trades;
  const lineageBefore = { lid: states.before.lineageId, user_id: userId, rev: states.before.revision, has_roll: states.before.hasRollHistory };
  const splitsBefore = states.before.splits.map(splitRow);
  const event = asJournalEvent(e);
  const sentence = describeEvent(event, before);
  const after = lineage.trades;
  const trades = tradeChanges(before, after);

  // Daily premium: the days any changed trade was opened or closed on, before and after, from every
  // trade of the user on those days (the other lineages are the same on both sides).
  const changedBefore = [...before.values()].filter((t) => after.get(t.uid) !== t).map(tradeRow);
  const changedAfter = [...after.values()].filter((t) => before.get(t.uid) !== t).map(tradeRow);
  const days = new Set<string>();
  for (const t of [...changedBefore, ...changedAfter]) {
    days.add(t.tod);
    if (t.tcd) days.add(t.tcd);
  }
  const others: TradesTable[] = [];
  for (const [streamId, other] of replay.lineages) {
    if (streamId === e.streamId) continue;
    for (const t of other.trades.values()) if (days.has(t.openDate) || (t.close && days.has(t.close.closeDate))) others.push(tradeRow(t));
  }
  const unchanged = [...after.values()].filter((t) => before.get(t.uid) === t).map(tradeRow);
  // Split records are never changed once made: one lookup serves both sides (a split's is in its own lineage).
  const splits = splitPositions([...replay.lineages.values(), states.before, states.after]);
  const dailyBefore = dailyRecords(userId, dayTradesOf([...others, ...unchanged, ...changedBefore], splits), days);
  const dailyAfter = dailyRecords(userId, dayTradesOf([...others, ...unchanged, ...changedAfter], splits), days);
  const countsAfter = listCounts(replayAt(history, i + 1));

  const rows: RowChange[] = [
    ...rowChanges('trades', (r: TradesTable) => r.uid, changedBefore, changedAfter),
    ...rowChanges('trade_lineages', (r) => r.lid, i > 0 && lineageBefore.rev >= 0 ? [lineageBefore] : [], [{ lid: lineage.lineageId, user_id: userId, rev: lineage.revision, has_roll: lineage.hasRollHistory }]),
    ...rowChanges('split_history', (r) => r.auid, splitsBefore, lineage.splits.map(splitRow)),
    ...rowChanges('daily_premium', (r: DailyPremiumRecord) => r.income_date, dailyBefore, dailyAfter),
    ...rowChanges('trade_counts', (r) => String(r.list), countsBefore, countsAfter),
  ];
  return { event: timelineEntryOf(e, event, sentence, lineage.lineageId), trades, rows, data: e.data };
}

function listCounts(replay: Replay): Array<{ user_id: string; list: number; n: number }> {
  const counts = new Map<number, number>();
  for (const l of replay.lineages.values()) for (const t of l.trades.values()) counts.set(listOf(t.status), (counts.get(listOf(t.status)) ?? 0) + 1);
  return [...counts].map(([list, n]) => ({ user_id: replay.userId, list, n }));
}

const VERIFY_LIST_LIMIT = 200;

/**
 * What the replay of a user's log has computed so far, kept with the log array the user-log cache hands
 * out (the same array means the same events):
 * - `whole`: the fold of every event and the rows of its last state, what Verify and the as-of view at
 *   the last event read. A plain fold (`replayEvents`), which keeps no state but the last: the first
 *   view of a user, cold, pays for nothing it does not show.
 * - `history`: the fold keeping every lineage's state after each of its events (replay.ts
 *   `ReplayHistory`), built at the first view of an earlier point or diff; every view after it reads
 *   states instead of folding 250,000 events again.
 * Both are only read, never folded further.
 */
interface Replayed {
  history?: ReplayHistory;
  whole?: { replay: Replay; rows: ReturnType<typeof replayRows> };
}
let replays = new WeakMap<readonly StoredEvent[], Replayed>();
/** Forgets every replay (the bench measures a view whose log is cached but not yet folded). */
export const forgetReplays = (): void => {
  replays = new WeakMap();
};

/**
 * Forgets every user's replay this process and the part runner's workers hold (logs, folded histories,
 * decoded stored states, part journals): the next view reads the database afresh (tests and the bench
 * measure cold views with it).
 */
export async function forgetAllReplays(parts?: PartRunner): Promise<void> {
  forgetCachedLogs();
  forgetReplays();
  await forgetPartJournals();
  await parts?.everywhere('forget', {});
}
function replayedOf(events: readonly StoredEvent[]): Replayed {
  let hit = replays.get(events);
  if (!hit) {
    hit = {};
    replays.set(events, hit);
  }
  return hit;
}
/** The log folded once (every lineage's state after each of its events), kept with the cached log. */
function historyOf(userId: string, events: readonly StoredEvent[]): ReplayHistory {
  const hit = replayedOf(events);
  hit.history ??= buildHistory(userId, events);
  return hit.history;
}
function fullReplay(userId: string, events: readonly StoredEvent[]) {
  const hit = replayedOf(events);
  if (!hit.whole) {
    const replay = hit.history ? replayAt(hit.history, events.length) : replayEvents(userId, events);
    hit.whole = { replay, rows: replayRows(replay) };
  }
  return hit.whole;
}

/** One table compared: rows on each side (after `keep`), and the keys that differ. */
interface TableComparison {
  live: number;
  replayed: number;
  onlyLive: string[];
  differs: Array<{ key: string; fields: FieldDifference[] }>;
  onlyReplayed: string[];
}

type UserTable = (typeof tradeTables)[number];

// A trade count of 0 is the same as no count row (the live table keeps a row that went down to 0).
const keep = (table: string) => (r: Record<string, unknown>) => table !== 'trade_counts' || Number(r.n) !== 0;

function compare(table: UserTable, live: readonly Record<string, unknown>[], replayed: readonly object[]): TableComparison {
  const keyOf = userRowKeys[table];
  const d = diffRows(live, replayed, keyOf, keep(table));
  return { live: d.live, replayed: d.replayed, onlyLive: d.onlyLive, differs: d.differs.map((x) => ({ key: x.key, fields: x.fields })), onlyReplayed: d.onlyReplayed.map(keyOf) };
}

/**
 * One table compared a part at a time, put together: a key only the live side of one part has and only
 * the replayed side of another is one row whose lineage column differs (the live row was read by the
 * part its changed `lid` names), compared field by field as one pair, as a comparison in one piece would.
 */
function mergeParts(table: UserTable, parts: readonly PartTableDiff[]): TableComparison {
  const keyOf = userRowKeys[table];
  const onlyLive = new Map<string, Record<string, unknown>>();
  const onlyReplayed = new Map<string, Record<string, unknown>>();
  for (const p of parts) {
    for (const r of p.onlyLive) onlyLive.set(keyOf(r), r);
    for (const r of p.onlyReplayed) onlyReplayed.set(keyOf(r), r);
  }
  const differs = parts.flatMap((p) => p.differs);
  for (const [key, row] of onlyLive) {
    const mine = onlyReplayed.get(key);
    if (!mine) continue;
    onlyLive.delete(key);
    onlyReplayed.delete(key);
    const fields = fieldDifferences(row, mine);
    if (fields.length) differs.push({ key, fields });
  }
  return { live: parts.reduce((n, p) => n + p.live, 0), replayed: parts.reduce((n, p) => n + p.replayed, 0), onlyLive: [...onlyLive.keys()], differs, onlyReplayed: [...onlyReplayed.keys()] };
}

interface VerifiedJournal {
  tables: Record<UserTable, TableComparison>;
  events: number;
  stored: StoredStateUse | null;
}

/**
 * Verify from the stored replay states: each part of the lineages replayed and compared with the live
 * rows of the same part (trades, lineages, splits) on its own core; the day records (the base chunk's
 * with the days the parts' events touched recomputed) and the list counts compared here.
 */
async function verifyFromStoredStates(ctx: AuditContext, userId: string, tables: Record<UserTable, string>): Promise<VerifiedJournal | null> {
  const token = randomUUID();
  return withStoredStates(ctx, userId, { at: 'head' }, async (plan) => {
    const inputs = partInputs(plan);
    const [parts, live] = await Promise.all([
      partsOf(ctx).run('verify', inputs.map((i) => ({ ...i, tables, token }))),
      readUserRows(ctx.db, tables, userId, { only: ['daily_premium', 'trade_counts'] }),
    ]);
    const days = await daysAfter(ctx, plan, inputs, parts.map((p) => p.touchedDays));
    const counts = new Map<number, number>();
    for (const p of parts) for (const c of p.counts) counts.set(c.list, (counts.get(c.list) ?? 0) + c.n);
    const out = {} as Record<UserTable, TableComparison>;
    for (const t of partTables) out[t] = mergeParts(t, parts.map((p) => p.tables[t]));
    out.daily_premium = compare('daily_premium', live.daily_premium, [...days.values()]);
    out.trade_counts = compare('trade_counts', live.trade_counts, [...counts].map(([list, n]) => ({ user_id: userId, list, n })));
    return { tables: out, events: plan.events, stored: storedStateUseOf(plan) };
  }, { onBase: openParts(ctx, userId, { tables, token }) });
}

/** Verify replayed from the user's first event (the cached log's fold). */
async function verifyFromLog(ctx: AuditContext, userId: string, tables: Record<UserTable, string>): Promise<VerifiedJournal> {
  const [events, live] = await Promise.all([log(ctx).all(userId), readUserRows(ctx.db, tables, userId)]);
  const replayed = fullReplay(userId, events).rows;
  const out = {} as Record<UserTable, TableComparison>;
  for (const t of tradeTables) out[t] = compare(t, live[t], replayed[t] as readonly object[]);
  return { tables: out, events: events.length, stored: null };
}

/**
 * Replays the user's whole history and compares every read-model row of the user with the live
 * version's, field by field. A trade count of 0 is the same as no count row (the live table keeps a
 * row that went down to 0). The replay starts from the last stored replay state when there is one
 * (it is the fold of every event before it by the same code, checked against the log), else, or with
 * `full`, from the user's first event.
 */
export async function verify(ctx: AuditContext, userId: string, options: { full?: boolean | undefined } = {}): Promise<VerifyResponse> {
  const started = performance.now();
  const row = await liveRow(ctx.db, TRADES_PROJECTION);
  if (!row) throw new AppError('unavailable', new ProjectionNotLiveError(TRADES_PROJECTION).message);
  const tables = row.tables as Record<UserTable, string>;
  const compareOnce = async () => (!options.full && hasStoredStates(ctx) ? await verifyFromStoredStates(ctx, userId, tables) : null) ?? (await verifyFromLog(ctx, userId, tables));
  let v = await compareOnce();
  let found = differencesOf(v);
  // A difference while the user's newest events are still being projected is no bug: the replay has
  // them, the read models not yet (QA: Verify failed, exit 3, for a trader writing at that moment). Give
  // the lane a moment to pass the user's newest event and compare again; what is still in flight then is
  // said, beside the differences.
  let inFlight = 0;
  if (found.count > 0 && (inFlight = await eventsInFlight(ctx, userId, row)) > 0) {
    const newest = (await log(ctx).all(userId)).at(-1)!.position;
    const deadline = performance.now() + VERIFY_SETTLE_MS;
    while (performance.now() < deadline && comparePositions(await userLaneCheckpoint(ctx, userId, row), newest) < 0) await new Promise((r) => setTimeout(r, 100));
    v = await compareOnce();
    found = differencesOf(v);
    inFlight = found.count > 0 ? await eventsInFlight(ctx, userId, row) : 0;
  }
  return {
    consistent: found.count === 0,
    events_replayed: v.events,
    version: row.version,
    rows: found.rows,
    differences: found.differences,
    difference_count: found.count,
    in_flight_events: inFlight,
    stored_state: v.stored,
    elapsed_ms: Math.round(performance.now() - started),
  };
}

/** A comparison's differing rows, the first VERIFY_LIST_LIMIT listed, all counted, and the row counts per table. */
function differencesOf(v: VerifiedJournal): { differences: RowDifference[]; count: number; rows: VerifyResponse['rows'] } {
  const differences: RowDifference[] = [];
  let count = 0;
  const rows: VerifyResponse['rows'] = {};
  const push = (d: RowDifference) => {
    count++;
    if (differences.length < VERIFY_LIST_LIMIT) differences.push(d);
  };
  for (const table of tradeTables) {
    const d = v.tables[table];
    rows[table] = { live: d.live, replayed: d.replayed };
    for (const key of d.onlyLive) push({ table, key, kind: 'only_live', fields: [] });
    for (const x of d.differs) push({ table, key: x.key, kind: 'differs', fields: x.fields });
    for (const key of d.onlyReplayed) push({ table, key, kind: 'only_replayed', fields: [] });
  }
  return { differences, count, rows };
}

/** How long Verify waits for a user's events in flight to be applied before it compares again. */
const VERIFY_SETTLE_MS = 3000;

/** Where the live version stands in the user's lane (START when the lane has no checkpoint row: nothing applied). */
async function userLaneCheckpoint(ctx: AuditContext, userId: string, row: RegistryRow): Promise<LogPosition> {
  return (await readCheckpoints(ctx.db, row.name, row.version)).get(laneOf(userId, row.lanes)) ?? START;
}

/** The user's events the live version has not applied yet: after its checkpoint of the user's lane. */
async function eventsInFlight(ctx: AuditContext, userId: string, row: RegistryRow): Promise<number> {
  const [checkpoint, events] = await Promise.all([userLaneCheckpoint(ctx, userId, row), log(ctx).all(userId)]);
  let n = 0;
  for (let i = events.length - 1; i >= 0 && comparePositions(events[i]!.position, checkpoint) > 0; i--) n++;
  return n;
}

export const CSV_COLUMNS = ['position', 'recorded_at', 'business_date', 'actor_role', 'actor_id', 'command', 'request_id', 'idempotency_key', 'event_type', 'lineage_id', 'revision', 'event_id', 'trades', 'sentence'] as const;

export interface ExportFile {
  body: Buffer;
  digest: string;
  filename: string;
  contentType: string;
  events: number;
}

/**
 * The user's events as JSON Lines (one event per line, envelope and data, in log order) or the
 * timeline as CSV; with the SHA-256 of exactly these bytes.
 */
export async function exportHistory(ctx: AuditContext, userId: string, format: ExportFormat): Promise<ExportFile> {
  const events = await log(ctx).all(userId);
  const chunks: string[] = [];
  if (format === 'jsonl') {
    for (const e of events) {
      chunks.push(
        `${JSON.stringify({ position: positionToString(e.position), stream_id: e.streamId, revision: e.revision, id: e.id, type: e.type, schema_version: e.schemaVersion, metadata: e.metadata, data: e.data })}\n`,
      );
    }
  } else {
    chunks.push(`${CSV_COLUMNS.join(',')}\r\n`);
    const replay = newReplay(userId);
    for (const e of events) {
      const event = asJournalEvent(e);
      const lineage = lineageOf(replay, e.streamId);
      const entry = timelineEntryOf(e, event, describeEvent(event, lineage.trades), lineage.lineageId);
      applyEvent(replay, e);
      const values = [entry.position, entry.recorded_at, entry.business_date, entry.actor.role, entry.actor.id, entry.command, entry.request_id, entry.idempotency_key, entry.type, entry.lineage_id, entry.revision, entry.event_id, entry.trades.join(' '), entry.sentence];
      chunks.push(`${values.map(csvText).join(',')}\r\n`);
    }
  }
  const body = Buffer.from(chunks.join(''), 'utf8');
  const digest = createHash('sha256').update(body).digest('hex');
  const stamp = businessDateOf(ctx.clock);
  return { body, digest, filename: `journal-${userId}-${stamp}.${format === 'jsonl' ? 'jsonl' : 'csv'}`, contentType: format === 'jsonl' ? 'application/x-ndjson' : 'text/csv; charset=utf-8', events: events.length };
}

/** A trade's lineage for its owner: every event and what it changed. 404 when the trade is not the caller's. */
export async function tradeHistory(ctx: AuditContext, userId: string, tradeUid: string): Promise<TradeHistoryResponse> {
  // The journal's own lookup: a lineage's opening trade has no index row, its stream is found by its uid.
  const found = await findOwnLineage(ctx, userId, tradeUid);
  if (!found) throw new AppError('not_found', auditMessages.tradeNotFound);
  const lineageId = found.lineageId;
  const streamId = lineageStreamId(userId, lineageId);
  const events = found.prefetched ?? (await ctx.eventStore.readStream(streamId));
  const described = describeWithLineages(events, new Map([[streamId, events]]), foldEvent, () => emptyLineage(userId, lineageId));
  return {
    uid: tradeUid,
    lineage_id: lineageId,
    items: events.map((e) => {
      const d = described.get(e.id)!;
      return {
        position: positionToString(e.position),
        revision: e.revision,
        recorded_at: e.metadata.recordedAt,
        business_date: e.metadata.businessDate,
        type: e.type as JournalEventType,
        command: e.metadata.command ?? null,
        actor_role: e.metadata.actor.role,
        sentence: d.sentence,
        trades: d.changes,
      };
    }),
  };
}

export { canon, sameJson, sameValue };
