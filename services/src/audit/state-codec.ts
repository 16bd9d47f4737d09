import { gunzipSync, gzipSync } from 'node:zlib';
import type { LineageState, SplitRecord } from '@oj/contracts/lineage-fold';
import type { TradeClose, TradeRecord } from '@oj/contracts/trade-record';
import type { DailyPremiumRecord } from '@oj/projections/daily-premium/compute';

/**
 * The bytes of a stored replay state (stored-states.ts): lineage states and day records as gzip'd JSON.
 * A trade record is an array of its fields in a fixed order (no key names: 157,556 records of the heavy
 * bench user are 42 MB of JSON this way, 120 MB as objects, and parse in a third of the time); a close,
 * a split and a day record stay objects as they are (their keys come from event data and formulas).
 *
 * Decoding builds records in the key order the fold builds them in (`opened` in lineage-fold.ts), so a
 * decoded state is the folded one key for key. The maintenance job checks that on every state it
 * stores (`sameStructure` of the decoded bytes and the folded state, numbers compared with Object.is):
 * a state the format cannot carry exactly (a -0, a NaN, a field the fold gained) is not stored at all.
 */

/** Bumped with any change to the bytes; it is part of the stored states' key. */
export const STATE_FORMAT = 1;

/** Lineages are stored in this many parts, by `partOf` their lineage id, so a part can be read and replayed on its own. */
export const LINEAGE_PARTS = 2;
/** The part holding the day records. */
export const DAYS_PART = -1;

/**
 * A lineage's part: its id's last code point modulo LINEAGE_PARTS. PostgreSQL computes the same with
 * `ascii(right(lid, 1)) % 2` (live rows are read per part), so the rule must stay this simple.
 */
export function partOf(lineageId: string): number {
  const n = lineageId.length;
  if (!n) return 0;
  let cp = lineageId.charCodeAt(n - 1);
  // A low surrogate ends a pair: its code point starts one unit earlier.
  if (cp >= 0xdc00 && cp <= 0xdfff && n > 1) cp = lineageId.codePointAt(n - 2)!;
  return cp % LINEAGE_PARTS;
}

/** One lineage in a stored part: its position in the user's lineages (the order of first events) and its state. */
export interface LineageEntry {
  ordinal: number;
  state: LineageState;
}

type RecordFields = [
  uid: string,
  lineageId: string | null,
  userId: string | null,
  ticker: string,
  strategyUid: string,
  accountUid: string,
  strikePrices: number[],
  openDate: string,
  expirationDate: string,
  contractSize: number,
  premiumAtOpen: number,
  netFeeToOpen: number,
  openTransaction: 1 | 2,
  netDelta: number,
  stockPriceAtOpen: number | null,
  costBasis: number | null,
  leapsValue: number | null,
  notes: string,
  tags: string[],
  status: TradeRecord['status'],
  close: TradeClose | null,
  rolledFrom: string | null,
  ancestorUid: string | null,
  partialOf: string | null,
  updatedAt: string,
  createdAt: string,
  hasRollHistory: boolean,
];
type LineageFields = [ordinal: number, lineageId: string, revision: number, hasRollHistory: boolean, trades: RecordFields[], splits: SplitRecord[]];

// A record's lineage and user are nearly always its lineage's: written as null then.
const recordFields = (r: TradeRecord, l: LineageState): RecordFields => [
  r.uid, r.lineageId === l.lineageId ? null : r.lineageId, r.userId === l.userId ? null : r.userId, r.ticker, r.strategyUid, r.accountUid, r.strikePrices,
  r.openDate, r.expirationDate, r.contractSize, r.premiumAtOpen, r.netFeeToOpen, r.openTransaction, r.netDelta, r.stockPriceAtOpen, r.costBasis, r.leapsValue,
  r.notes, r.tags, r.status, r.close, r.rolledFrom, r.ancestorUid, r.partialOf, r.updatedAt, r.createdAt, r.hasRollHistory,
];

// The key order of `opened` (lineage-fold.ts); every other record is a spread of one it made.
const recordOf = (a: RecordFields, lineageId: string, userId: string): TradeRecord => ({
  uid: a[0],
  lineageId: a[1] ?? lineageId,
  userId: a[2] ?? userId,
  ticker: a[3],
  strategyUid: a[4],
  accountUid: a[5],
  strikePrices: a[6],
  openDate: a[7],
  expirationDate: a[8],
  contractSize: a[9],
  premiumAtOpen: a[10],
  netFeeToOpen: a[11],
  openTransaction: a[12],
  netDelta: a[13],
  stockPriceAtOpen: a[14],
  costBasis: a[15],
  leapsValue: a[16],
  notes: a[17],
  tags: a[18],
  status: a[19],
  close: a[20],
  rolledFrom: a[21],
  ancestorUid: a[22],
  partialOf: a[23],
  updatedAt: a[24],
  createdAt: a[25],
  hasRollHistory: a[26],
});

const pack = (doc: unknown): Buffer => gzipSync(JSON.stringify(doc));
const unpack = (payload: Buffer): unknown => JSON.parse(gunzipSync(payload).toString('utf8'));

export class StateFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateFormatError';
  }
}

export function encodeLineages(userId: string, entries: readonly LineageEntry[]): Buffer {
  const l: LineageFields[] = entries.map(({ ordinal, state }) => [ordinal, state.lineageId, state.revision, state.hasRollHistory, [...state.trades.values()].map((r) => recordFields(r, state)), state.splits]);
  return pack({ f: STATE_FORMAT, u: userId, l });
}

export function decodeLineages(userId: string, payload: Buffer): LineageEntry[] {
  const doc = unpack(payload) as { f: number; u: string; l: LineageFields[] };
  if (doc.f !== STATE_FORMAT || doc.u !== userId) throw new StateFormatError(`a stored state of format ${doc.f} for ${doc.u}, read as format ${STATE_FORMAT} for ${userId}`);
  return doc.l.map(([ordinal, lineageId, revision, hasRollHistory, trades, splits]) => {
    const map = new Map<string, TradeRecord>();
    for (const a of trades) map.set(a[0], recordOf(a, lineageId, userId));
    // The key order of `emptyLineage`.
    return { ordinal, state: { userId, lineageId, revision, trades: map, splits, hasRollHistory } };
  });
}

export function encodeDays(userId: string, days: Iterable<DailyPremiumRecord>): Buffer {
  return pack({ f: STATE_FORMAT, u: userId, d: [...days] });
}

export function decodeDays(userId: string, payload: Buffer): DailyPremiumRecord[] {
  const doc = unpack(payload) as { f: number; u: string; d: DailyPremiumRecord[] };
  if (doc.f !== STATE_FORMAT || doc.u !== userId) throw new StateFormatError(`stored day records of format ${doc.f} for ${doc.u}, read as format ${STATE_FORMAT} for ${userId}`);
  return doc.d;
}

/**
 * Equal in every detail a reader could tell: the same types, numbers by Object.is (0 and -0 differ,
 * NaN equals NaN), object keys and Map entries in the same order. Stricter than the views need, so a
 * stored state that passes reads back as the folded one for any reader.
 */
export function sameStructure(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (a instanceof Map) {
    const m = b as Map<unknown, unknown>;
    if (a.size !== m.size) return false;
    const other = m.entries();
    for (const [k, v] of a) {
      const [k2, v2] = other.next().value as [unknown, unknown];
      if (!Object.is(k, k2) || !sameStructure(v, v2)) return false;
    }
    return true;
  }
  if (Array.isArray(a)) {
    const y = b as unknown[];
    if (a.length !== y.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameStructure(a[i], y[i])) return false;
    return true;
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    if (ka[i] !== kb[i]) return false;
    if (!sameStructure((a as Record<string, unknown>)[ka[i]!], (b as Record<string, unknown>)[kb[i]!])) return false;
  }
  return true;
}
