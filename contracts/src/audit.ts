import { z } from 'zod';
import { calendarDate, isoDate } from './common.ts';
import { actorRole } from './events.ts';
import { roleName } from './users.ts';
import { tradeListItem } from './trade-list-item.ts';

/**
 * Audit replay (support staff): one user's journal as its events, the journal as of any event or date
 * replayed through the read models' own projection code, per-event diffs, verification against the live
 * read models, exports; and the access log every one of these reads is recorded in.
 */

export const auditMessages = {
  reasonRequired: "A reason is required to open a user's history (for example a ticket number).",
  reasonTooShort: 'The reason must be at least 3 characters (for example a ticket number).',
  reasonTooLong: 'The reason cannot exceed 500 characters.',
  dateRange: 'The From date cannot be after the To date.',
  reasonCharset: 'The reason cannot contain control characters.',
  reasonOnce: 'Give the reason once: the address holds several.',
  userNotFound: 'No user matches.',
  eventNotFound: 'No such event in this user\'s history.',
  asOfTarget: 'Give either an event or a date, not both.',
  /** As of a New York date that has not come yet: its days open and expirations would be counted ahead. */
  asOfFuture: (today: string) => `The date cannot be after today (${today}, New York): the journal has no end of day there yet.`,
  formulasVersion: (v: number) => `Formulas version ${v} is not registered.`,
  position: 'Not an event position.',
  tradeNotFound: 'Trade not found.',
  /** The as-of trees' trade (a full uid or the short id the screens show) names none of this user's trades. */
  tradeNotInHistory: (typed: string) => `No trade "${typed}" in this user's history.`,
  /** A short id that ends several of this user's trade uids: which one is not guessed. */
  tradeAmbiguous: (typed: string) => `"${typed}" matches several trades: type more of its id.`,
  queryRequired: 'Enter an e-mail, a username or a user id.',
} as const;

/** Every read of a user's history carries the reason it was opened for; it is logged with the read. */
export const auditReason = z
  // `?reason=a&reason=b` arrives as a list: a reason was given, twice (QA: it read "A reason is required").
  .string({ error: (issue) => (Array.isArray(issue.input) ? auditMessages.reasonOnce : auditMessages.reasonRequired) })
  .trim()
  // A blank reason is missing, and only that: without `abort` it also read "too short" (QA: two errors).
  .min(1, { error: auditMessages.reasonRequired, abort: true })
  .min(3, auditMessages.reasonTooShort)
  .max(500, auditMessages.reasonTooLong)
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a reason may not hold
  .refine((v) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(v), auditMessages.reasonCharset);

/** The largest commit (an xid8) and prepare (a bigint) a position can hold: 20 digits go past both. */
const COMMIT_MAX = 2n ** 64n - 1n;
const PREPARE_MAX = 2n ** 63n - 1n;
/** A log position as text: `<commit>-<prepare>`, 20 digits each (sorts like the position). */
export const logPosition = z.string().refine((v) => {
  const m = /^(\d{20})-(\d{20})$/.exec(v);
  return m !== null && BigInt(m[1]!) <= COMMIT_MAX && BigInt(m[2]!) <= PREPARE_MAX;
}, auditMessages.position);

export const journalEventType = z.enum(['TradeOpened', 'TradeClosed', 'TradeRolled', 'TradeSplit', 'TradeEdited', 'TradeDeleted']);

export const auditUserParams = z.object({ uid: z.string().min(1).max(64) });
export const findUserQuery = z.object({ q: z.string({ error: auditMessages.queryRequired }).trim().min(1, auditMessages.queryRequired).max(254) });

export const auditUser = z.object({
  uid: z.string(),
  name: z.string(),
  email: z.string(),
  username: z.string().nullable(),
  role: roleName,
  user_since: z.string(),
});
export type AuditUser = z.infer<typeof auditUser>;
export const findUserResponse = z.object({ users: z.array(auditUser) });

export const reasonQuery = z.object({ reason: auditReason });

/** Summary of a user's history, answered when support opens it. */
export const auditOverview = z.object({
  user: auditUser,
  events: z.number().int(),
  lineages: z.number().int(),
  first_event_at: z.string().nullable(),
  last_event_at: z.string().nullable(),
  first_position: logPosition.nullable(),
  last_position: logPosition.nullable(),
  formulas_version: z.number().int(),
  formulas_versions: z.array(z.number().int()),
});
export type AuditOverview = z.infer<typeof auditOverview>;

export const timelineQuery = z.object({
  reason: auditReason,
  /** Exclusive keyset cursor: the position of the last entry of the previous page. */
  cursor: logPosition.optional(),
  direction: z.enum(['forward', 'backward']).default('forward'),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  trade: z.string().min(1).max(64).optional(),
  lineage: z.string().min(1).max(64).optional(),
  type: journalEventType.optional(),
  from: calendarDate.optional(),
  to: calendarDate.optional(),
}).refine((q) => !q.from || !q.to || q.from <= q.to, { message: auditMessages.dateRange, path: ['to'] });
export type TimelineQuery = z.input<typeof timelineQuery>;

export const actorView = z.object({ id: z.string(), role: actorRole, label: z.string() });

export const timelineEntry = z.object({
  position: logPosition,
  event_id: z.string(),
  stream_id: z.string(),
  lineage_id: z.string(),
  revision: z.number().int(),
  recorded_at: z.string(),
  business_date: isoDate,
  actor: actorView,
  command: z.string().nullable(),
  request_id: z.string(),
  idempotency_key: z.string().nullable(),
  type: z.string(),
  schema_version: z.number().int(),
  /** Every trade the event touched: the one acted on first, then remainders, successors, legs. */
  trades: z.array(z.string()),
  sentence: z.string(),
});
export type TimelineEntry = z.infer<typeof timelineEntry>;

export const timelineResponse = z.object({
  items: z.array(timelineEntry),
  /** Cursor of the next page in the same direction, null at the end. */
  next_cursor: logPosition.nullable(),
  /** Events matching the filters. */
  total: z.number().int(),
  /**
   * Events matching the filters that come before this page in the order it was read (the ones its cursor
   * passed): 0 on the first page. With it a page named by one cursor knows its number, and whether a page
   * lies before it, without the cursors of the pages before (QA 74: the console's address held them all).
   */
  offset: z.number().int(),
});
export type TimelineResponse = z.infer<typeof timelineResponse>;

/**
 * `full=true`: replay from the user's first event, whatever stored replay states there are (the default
 * starts from the last stored state before the point and replays only the events after it).
 */
export const fullReplay = z.stringbool().default(false);

/** Where a replay started: the stored replay state it read, or null for the user's first event. */
export const storedStateUse = z.object({
  /** The stored state's last event: the state is the journal right after it. */
  position: logPosition,
  /** The user's events up to and including it. */
  events: z.number().int(),
  /** When the maintenance job stored it. */
  stored_at: z.string(),
  /** The events replayed after it. */
  events_after: z.number().int(),
});
export type StoredStateUse = z.infer<typeof storedStateUse>;

export const asOfQuery = z
  .object({
    reason: auditReason,
    full: fullReplay,
    /** Right after this event. */
    event: logPosition.optional(),
    /** At the end of this New York business date (every event decided on or before it). */
    date: calendarDate.optional(),
    formulas: z.coerce.number().int().min(1).optional(),
    /** Items per list (the most recent first, as the live lists sort). */
    list_limit: z.coerce.number().int().min(1).max(1000).default(50),
    /**
     * Focus the roll and split trees on one trade's lineage: its full uid, or the short id the screens
     * show (`#c2a869`: the end of the uid, with or without the '#', any case), among this user's trades.
     */
    trade: z.string().min(1).max(64).optional(),
  })
  .refine((q) => !(q.event && q.date), { message: auditMessages.asOfTarget, path: ['date'] });
export type AsOfQuery = z.input<typeof asOfQuery>;

export const rollTreeNode = z.object({
  uid: z.string(),
  /** The trade it was rolled from, or for a remainder, the trade it was left from; for a leg, the split trade. */
  parent: z.string().nullable(),
  depth: z.number().int(),
  /** A two-leg trade that was split: it left the trades (its legs carry on under it), so its status is 0. */
  split: z.boolean(),
  status: z.number().int(),
  strike_prices: z.array(z.number()),
  contract_size: z.number().int(),
  premium_at_open: z.number(),
  premium_at_close: z.number().nullable(),
  trade_open_date: z.string(),
  trade_close_date: z.string().nullable(),
  expiration_date: z.string(),
});
export const rollTree = z.object({ lineage_id: z.string(), ticker: z.string(), nodes: z.array(rollTreeNode) });
export const splitTree = z.object({
  auid: z.string(),
  lineage_id: z.string(),
  su: z.string(),
  cause: z.string(),
  created_at: z.string(),
  legs: z.array(z.object({ uid: z.string(), status: z.number().int().nullable(), strike_prices: z.array(z.number()), su: z.string().nullable() })),
});
export const dailyPremiumFigure = z.object({
  income_date: z.string(),
  np: z.number(),
  nf: z.number(),
  npc: z.number(),
  otc: z.number().int(),
  ctc: z.number().int(),
  iw: z.number().int(),
});

export const asOfResponse = z.object({
  /** The event the view stands right after (null: before the first event). */
  at: timelineEntry.nullable(),
  date: isoDate.nullable(),
  /** The trade the trees are focused on: the full uid of what was asked for (a short id included); null when none. */
  trade: z.string().nullable(),
  events_replayed: z.number().int(),
  formulas_version: z.number().int(),
  counts: z.object({ open: z.number().int(), closed: z.number().int(), rolled: z.number().int() }),
  open: z.array(tradeListItem),
  closed: z.array(tradeListItem),
  rolled: z.array(tradeListItem),
  roll_trees: z.array(rollTree),
  split_trees: z.array(splitTree),
  /** The daily premium records up to the as-of date, newest first (at most 60). */
  daily_premium: z.array(dailyPremiumFigure),
  totals: z.object({ net_premium: z.number(), fees: z.number(), net_premium_captured: z.number(), days: z.number().int() }),
  stored_state: storedStateUse.nullable(),
  elapsed_ms: z.number(),
});
export type AsOfResponse = z.infer<typeof asOfResponse>;

export const eventParams = auditUserParams.extend({ position: logPosition });

export const fieldChange = z.object({ field: z.string(), before: z.unknown(), after: z.unknown() });
export type FieldChange = z.infer<typeof fieldChange>;
export const tradeChange = z.object({
  uid: z.string(),
  change: z.enum(['created', 'changed', 'removed']),
  fields: z.array(fieldChange),
});
export type TradeChange = z.infer<typeof tradeChange>;
export const rowChange = z.object({
  table: z.string(),
  key: z.string(),
  change: z.enum(['insert', 'update', 'delete']),
  fields: z.array(fieldChange),
});
export type RowChange = z.infer<typeof rowChange>;

export const eventDiffResponse = z.object({
  event: timelineEntry,
  trades: z.array(tradeChange),
  rows: z.array(rowChange),
  data: z.unknown(),
});
export type EventDiffResponse = z.infer<typeof eventDiffResponse>;

export const rowDifference = z.object({
  table: z.string(),
  key: z.string(),
  /** Which side has the row: both (fields differ), only the live read model, only the replay. */
  kind: z.enum(['differs', 'only_live', 'only_replayed']),
  fields: z.array(z.object({ field: z.string(), live: z.unknown(), replayed: z.unknown() })),
});
export type RowDifference = z.infer<typeof rowDifference>;

export const verifyResponse = z.object({
  consistent: z.boolean(),
  events_replayed: z.number().int(),
  /** Live version of the read models compared (e.g. 102: formulas 1, shape 2). */
  version: z.number().int(),
  rows: z.record(z.string(), z.object({ live: z.number().int(), replayed: z.number().int() })),
  differences: z.array(rowDifference),
  /** At most this many differences are listed; `difference_count` counts all. */
  difference_count: z.number().int(),
  /**
   * The user's events the read models had not applied yet when compared (being projected: the user is
   * writing, or a lane is behind). Differences then may be only those; 0 when nothing was in flight.
   */
  in_flight_events: z.number().int(),
  stored_state: storedStateUse.nullable(),
  elapsed_ms: z.number(),
});
export const verifyQuery = z.object({ reason: auditReason, full: fullReplay });
export type VerifyQuery = z.input<typeof verifyQuery>;
export type VerifyResponse = z.infer<typeof verifyResponse>;

export const exportQuery = z.object({ reason: auditReason, format: z.enum(['jsonl', 'csv']) });
export type ExportFormat = z.infer<typeof exportQuery>['format'];
/** The export's SHA-256 (hex) is answered in this header and recorded in the access log. */
export const EXPORT_DIGEST_HEADER = 'x-export-sha256';

/** What a read looked at: the audit's views, and `profile`, an Admin's user lookup (`GET /admin/users/{email}`). */
export const accessView = z.enum(['overview', 'timeline', 'as-of', 'diff', 'verify', 'export', 'profile']);
export type AccessView = z.infer<typeof accessView>;

export const accessLogEntry = z.object({
  id: z.string(),
  position: logPosition,
  at: z.string(),
  support: z.object({ uid: z.string(), name: z.string(), email: z.string(), role: roleName }),
  target_uid: z.string(),
  target_email: z.string(),
  reason: z.string(),
  view: accessView,
  /** What exactly: filters, the as-of point, the event, the export's format. */
  detail: z.string(),
  request_id: z.string(),
  digest: z.string().nullable(),
});
export type AccessLogEntry = z.infer<typeof accessLogEntry>;
export const accessLogQuery = z.object({ cursor: logPosition.optional(), limit: z.coerce.number().int().min(1).max(200).default(50), user: z.string().max(64).optional() });
export const accessLogResponse = z.object({ items: z.array(accessLogEntry), next_cursor: logPosition.nullable() });
export type AccessLogResponse = z.infer<typeof accessLogResponse>;

/** What a trader sees on their profile: who opened their journal, when and why (not the staff e-mail). */
export const journalAccessEntry = z.object({
  at: z.string(),
  by: z.string(),
  role: roleName,
  reason: z.string(),
  view: accessView,
  detail: z.string(),
});
export type JournalAccessEntry = z.infer<typeof journalAccessEntry>;
export const journalAccessResponse = z.object({ items: z.array(journalAccessEntry) });
export type JournalAccessResponse = z.infer<typeof journalAccessResponse>;

/** A trade's own history for the trader (the trade detail dialog's History tab). */
export const tradeHistoryEntry = z.object({
  position: logPosition,
  revision: z.number().int(),
  recorded_at: z.string(),
  business_date: isoDate,
  type: z.string(),
  command: z.string().nullable(),
  actor_role: actorRole,
  sentence: z.string(),
  trades: z.array(tradeChange),
});
export type TradeHistoryEntry = z.infer<typeof tradeHistoryEntry>;
export const tradeHistoryResponse = z.object({ uid: z.string(), lineage_id: z.string(), items: z.array(tradeHistoryEntry) });
export type TradeHistoryResponse = z.infer<typeof tradeHistoryResponse>;
