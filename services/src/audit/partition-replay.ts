import type { Kysely } from 'kysely';
import { userStreamPrefix } from '@oj/contracts/journal-events';
import type { LineageState } from '@oj/contracts/lineage-fold';
import { positionToString, type StoredEvent } from '@oj/infra/eventstore/port';
import { BoundedMap } from '@oj/infra/bounded-map';
import { diffRows, type FieldDifference } from '@oj/projections/runtime/row-diff';
import type { TradesTable } from '@oj/projections/trades/tables';
import type { DayTrade } from '@oj/projections/daily-premium/compute';
import { readUserRows, userRowKeys, userRows, type UserRows } from '@oj/projections/trades/user-rows';
import { foldTail, rowsOnDays, touchedDays } from './journal-state.ts';
import { listHeads, rollTreesInView, splitTreesInView, type RollTree, type SplitTree, type TreeCandidate } from './journal-views.ts';
import { LINEAGE_PARTS } from './state-codec.ts';
import { StoredStateError, forgetDecodedStates, readChunks, type StateChunk, type StateKey } from './stored-states.ts';

/**
 * One part of a user's journal (the lineages `partOf` puts in it, state-codec.ts), replayed from the
 * stored replay states: the part's lineages of the chunks up to the base, and the part's events after
 * it folded. Lineages are independent (every event touches one), so the parts replay apart, each on its
 * own core (part-runner.ts), and the view merges what they answer: counts add up, a list's first
 * items are among the parts' first items, the trees in view among the parts' trees in view, and a
 * day record is recomputed from the rows every part has on that day. The day records of the base come
 * with the chunk; only the days the parts' events touched are recomputed.
 *
 * Each function takes the database first and plain data (a worker receives it by message).
 */

/** Where a part's journal starts: a chunk of the user's chain. */
export interface PartBase {
  userId: string;
  key: StateKey;
  origin: string;
  /** The chunks 0..base of the chain. */
  chain: StateChunk[];
  /** The chunk the journal starts from, -1: the user's first event. */
  base: number;
  part: number;
}

export interface PartInput extends PartBase {
  /** The part's events after the base, in log order, each with its index among all the events after the base. */
  tail: Array<{ index: number; event: StoredEvent }>;
  /** The whole tail's length and last position: with the chunks' digests, what names this journal. */
  tailKey: string;
}

interface PartJournal {
  /** The part's lineages by stream id, in the order of their first events. */
  lineages: Map<string, LineageState>;
  /** Per stream, its place in the user's whole journal (chunk ordinals; a lineage begun after the base after all of them). */
  order: Map<string, number>;
  /** The days whose record the part's events after the base can have changed. */
  touched: Set<string>;
}

/** Lineages begun after the base come after every stored one, in the order of their first events. */
const AFTER_BASE = 2 ** 40;

// A part's lineages as of a base, and a part's journal as of a tail: a support session reads the same
// user again and again (one process holds one part of a few users).
const bases = new BoundedMap<string, { signature: string; lineages: Map<string, LineageState>; order: Map<string, number> }>(4);
const journals = new BoundedMap<string, PartJournal>(4);

type Base = { signature: string; lineages: Map<string, LineageState>; order: Map<string, number> };
/** Bases being read, so a view's `open` and its task that follows read one base once. */
const reading = new Map<string, Promise<Base>>();

function partBase(db: Kysely<any>, input: PartBase): Promise<Base> {
  if (input.base < 0) return Promise.resolve({ signature: 'first-event', lineages: new Map(), order: new Map() });
  const name = `${input.userId}|${input.key.codeKey}|${input.origin}|${input.part}|${input.base}|${positionToString(input.chain[input.base]!.upto)}`;
  let p = reading.get(name);
  if (!p) {
    p = readPartBase(db, input).finally(() => reading.delete(name));
    reading.set(name, p);
  }
  return p;
}

async function readPartBase(db: Kysely<any>, input: PartBase): Promise<Base> {
  const { userId, key, origin, part } = input;
  const { chunks, signature } = await readChunks(db, userId, key, origin, input.chain, input.base, { parts: [part] });
  const name = `${userId}|${key.codeKey}|${origin}|${part}`;
  const hit = bases.get(name);
  if (hit?.signature === signature) return hit;
  const prefix = userStreamPrefix(userId);
  const lineages = new Map<string, LineageState>();
  const order = new Map<string, number>();
  let last = -1;
  chunks.forEach((c, seq) => {
    // One part's entries of a chunk are in ordinal order; a lineage first seen comes after every earlier one.
    for (const { ordinal, state } of c.lineages) {
      const streamId = `${prefix}${state.lineageId}`;
      if (!order.has(streamId)) {
        if (ordinal <= last) throw new StoredStateError(seq, `lineage ${state.lineageId} has ordinal ${ordinal} after ${last}`);
        last = ordinal;
        order.set(streamId, ordinal);
      }
      lineages.set(streamId, state);
    }
  });
  const built = { signature, lineages, order };
  bases.set(name, built);
  return built;
}

async function partJournal(db: Kysely<any>, input: PartInput): Promise<PartJournal> {
  const base = await partBase(db, input);
  const name = `${input.userId}|${input.key.codeKey}|${input.origin}|${input.part}|${base.signature}|${input.tailKey}`;
  const hit = journals.get(name);
  if (hit) return hit;
  const tail = foldTail(input.userId, { lineages: base.lineages, events: 0, position: null }, input.tail.map((t) => t.event));
  let order = base.order;
  for (const { index, event } of input.tail) {
    if (tail.before.get(event.streamId) !== null || (order !== base.order && order.has(event.streamId))) continue;
    if (order === base.order) order = new Map(base.order);
    order.set(event.streamId, AFTER_BASE + index);
  }
  const journal: PartJournal = { lineages: tail.lineages, order, touched: touchedDays(tail) };
  journals.set(name, journal);
  return journal;
}

function inOrder(j: PartJournal): { ordered: LineageState[]; orderOf: (l: LineageState, i: number) => number } {
  const keys = [...j.lineages.keys()];
  return { ordered: [...j.lineages.values()], orderOf: (_, i) => j.order.get(keys[i]!)! };
}

export interface AsOfPart {
  counts: [number, number, number];
  heads: [TradesTable[], TradesTable[], TradesTable[]];
  roll: TreeCandidate<RollTree>[];
  split: TreeCandidate<SplitTree[]>[];
  touchedDays: string[];
}

/** The part's share of an as-of view: list counts and first items, trees in view, days its events touched. */
export async function asOfPart(db: Kysely<any>, input: PartInput & { listLimit: number; trade?: string | undefined }): Promise<AsOfPart> {
  const j = await partJournal(db, input);
  const { counts, heads } = listHeads(j.lineages.values(), input.listLimit);
  const { ordered, orderOf } = inOrder(j);
  return { counts, heads, roll: rollTreesInView(ordered, orderOf, input.trade), split: splitTreesInView(ordered, orderOf, input.trade), touchedDays: [...j.touched] };
}

/** The day facts of the part's trades opened or closed on `days` (a day record is recomputed from every part's). */
export async function rowsOnDaysPart(db: Kysely<any>, input: PartInput & { days: string[] }): Promise<DayTrade[]> {
  const j = await partJournal(db, input);
  // The fields a day record reads (`dayTradeOf`), not whole rows: less to copy to the thread that computes the days.
  return rowsOnDays(j.lineages.values(), new Set(input.days));
}

/** The tables Verify compares a part at a time: their rows name their lineage. */
export const partTables = ['trades', 'trade_lineages', 'split_history'] as const;
export type PartTable = (typeof partTables)[number];

export interface PartTableDiff {
  live: number;
  replayed: number;
  /** Full rows of keys only one side of this part has: a row whose lineage column was changed by hand is read by another part, and the view pairs them. */
  onlyLive: Record<string, unknown>[];
  onlyReplayed: Record<string, unknown>[];
  differs: Array<{ key: string; fields: FieldDifference[] }>;
}

export interface VerifyPart {
  tables: Record<PartTable, PartTableDiff>;
  /** Trades per list of the part. */
  counts: Array<{ list: number; n: number }>;
  touchedDays: string[];
}

const readPartRows = (db: Kysely<any>, tables: Record<keyof UserRows, string>, userId: string, part: number) =>
  readUserRows(db, tables, userId, { only: partTables, lineagePart: { part, parts: LINEAGE_PARTS } });

/** Live rows a Verify asked for when it opened, by its token and part (a few Verifies at a time). */
const liveRead = new BoundedMap<string, ReturnType<typeof readPartRows>>(8);

/**
 * Starts a part of a view while the rest of its plan is read (the events after the base, the base's
 * anchor and day records): the base read and decoded, and for Verify the part's live rows asked for,
 * so PostgreSQL sends them meanwhile.
 */
export async function openPart(db: Kysely<any>, input: PartBase & { verify?: { tables: Record<keyof UserRows, string>; token: string } }): Promise<void> {
  if (input.verify) {
    const live = readPartRows(db, input.verify.tables, input.userId, input.part);
    live.catch(() => {});
    liveRead.set(`${input.verify.token}/${input.part}`, live);
  }
  await partBase(db, input);
}

/** The part's share of Verify: its lineages' rows compared with the live rows of the same part. */
export async function verifyPart(db: Kysely<any>, input: PartInput & { tables: Record<keyof UserRows, string>; token?: string }): Promise<VerifyPart> {
  // PostgreSQL sends the live rows while the part is replayed (asked for at `open` when there was one).
  const opened = input.token ? liveRead.get(`${input.token}/${input.part}`) : undefined;
  if (input.token) liveRead.delete(`${input.token}/${input.part}`);
  const live = opened ?? readPartRows(db, input.tables, input.userId, input.part);
  live.catch(() => {});
  const j = await partJournal(db, input);
  // The projection's own rows of the part's lineages; the day records are the view's (every part's).
  const replayed = userRows(input.userId, j.lineages.values(), []);
  const liveRows = await live;
  const tables = {} as Record<PartTable, PartTableDiff>;
  for (const t of partTables) {
    const keyOf = userRowKeys[t];
    const d = diffRows(liveRows[t], replayed[t] as readonly object[], keyOf);
    const onlyLive = new Set(d.onlyLive);
    tables[t] = {
      live: d.live,
      replayed: d.replayed,
      onlyLive: onlyLive.size ? liveRows[t].filter((r) => onlyLive.has(keyOf(r))) : [],
      onlyReplayed: d.onlyReplayed as Record<string, unknown>[],
      differs: d.differs.map((x) => ({ key: x.key, fields: x.fields })),
    };
  }
  return { tables, counts: replayed.trade_counts.map(({ list, n }) => ({ list, n })), touchedDays: [...j.touched] };
}

/**
 * Forgets every journal and decoded state of the process (the bench measures a cold view with it; a
 * worker has its own), once the reads under way (a view's `open` may outlive the view) have settled.
 */
export async function forgetPartJournals(): Promise<void> {
  await Promise.allSettled([...reading.values()]);
  bases.clear();
  journals.clear();
  liveRead.clear();
  forgetDecodedStates();
}

const forgetPart = (_db: Kysely<any>, _input: Record<string, never>): Promise<void> => forgetPartJournals();

/** What a part runner runs, by name (a worker receives the name and the input). */
export const partTasks = { open: openPart, asOf: asOfPart, rowsOnDays: rowsOnDaysPart, verify: verifyPart, forget: forgetPart } as const;
export type PartTasks = typeof partTasks;
export type PartTaskName = keyof PartTasks;
export type PartTaskInput<K extends PartTaskName> = Parameters<PartTasks[K]>[1];
export type PartTaskOutput<K extends PartTaskName> = Awaited<ReturnType<PartTasks[K]>>;
