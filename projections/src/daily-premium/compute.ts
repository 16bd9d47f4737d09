import { daysBetween } from '@oj/contracts/business-date';
import { compareKeys } from '@oj/infra/db/bulk';
import { closeSign, disposition, isWin, netFee, openSign, premiumCaptureRate, round2, type DaySums } from '@oj/contracts/formulas';
import type { SplitRecord } from '@oj/contracts/lineage-fold';

/**
 * A split's position as the trader entered it (its split_history record): the broken two-leg trade's
 * strategy, net delta, open and expiration dates, and the trade it was the remainder of (a partial close
 * before the split), if any. Carried by each leg's day facts (and by what partial closes of a leg left).
 */
export interface SplitPosition {
  su: string;
  nd: number;
  tod: string;
  ed: string;
  pf: string | null;
}

/** A split record's position as entered (`SplitRecord` in the fold, a split_history row in the tables). */
export const splitPositionOf = (s: Pick<SplitRecord, 'su' | 'gene' | 'parent'>): SplitPosition => ({ su: s.su, nd: s.parent.nd, tod: s.gene.tod, ed: s.gene.ed, pf: s.parent.pf });

/** A trades row's facts a day's record reads (a subset of a trades row). */
export interface DayTradeRow {
  /** The trade's uid: unique within a user, so it orders a day's trades totally (see computeDailyRecords). */
  uid: string;
  user_id: string;
  ticker: string;
  su: string;
  tod: string;
  tcd: string | null;
  ed: string;
  status: number;
  ot: number;
  ct: number | null;
  pao: number;
  pac: number | null;
  npc: number | null;
  nfto: number;
  nftc: number | null;
  nd: number;
  c: number;
  cg: number | null;
  held: number | null;
  cs: number;
  /** Set on the remainder of a partial close: its premium is the day's, but it is not another trade opened. */
  pf: string | null;
  /** Set on a split's legs (and what partial closes of a leg left): the broken trade's uid. */
  auid: string | null;
}

/** The trade facts a day's record is computed from: a trades row's, and the split position of a leg. */
export interface DayTrade extends DayTradeRow {
  /**
   * The position the leg was split from, as entered (null unless `auid` is set). Read beside the row
   * (split_history joined by `auid`; the fold's split records in memory), never stored on it.
   */
  split: SplitPosition | null;
}

/** A trades row's fields a day's record reads. */
export const dayTradeFields = [
  'uid', 'user_id', 'ticker', 'su', 'tod', 'tcd', 'ed', 'status', 'ot', 'ct', 'pao', 'pac', 'npc', 'nfto', 'nftc', 'nd', 'c', 'cg', 'held', 'cs', 'pf', 'auid',
] as const satisfies readonly (keyof DayTradeRow)[];

/**
 * The fields of a day's trade, copied out of a whole row (so the row itself need not be kept), with the
 * split position of its `auid` (`splits`: the user's split positions by the broken trade's uid).
 */
export const dayTradeOf = (r: DayTradeRow, splits: ReadonlyMap<string, SplitPosition>): DayTrade => ({
  uid: r.uid, user_id: r.user_id, ticker: r.ticker, su: r.su, tod: r.tod, tcd: r.tcd, ed: r.ed, status: r.status, ot: r.ot, ct: r.ct, pao: r.pao,
  pac: r.pac, npc: r.npc, nfto: r.nfto, nftc: r.nftc, nd: r.nd, c: r.c, cg: r.cg, held: r.held, cs: r.cs, pf: r.pf, auid: r.auid,
  split: r.auid === null ? null : (splits.get(r.auid) ?? null),
});

export interface StrategyNpc {
  npc: number;
  count: number;
  iw: number;
  /** Disposition -> closed trades. */
  dis: Record<string, number>;
}
export interface TickerNpc {
  npc: number;
  count: number;
  iw: number;
  pr: number;
  cg: number;
  hp: number;
  cs: number;
}

/**
 * The daily premium record of part 2 §3 for one user and New York date. Opening figures (np's open
 * part, nd, nep, otc, sg) come from trades opened that day (otc, nd, nep and sg count positions as
 * entered: see `addTrade`); closing figures from trades closed that day
 * (rolled included). `net_premium_so_far` is not stored: it is a running total over a window, computed
 * when read, so a back-dated trade never rewrites later rows.
 */
export interface DailyPremiumRecord extends DaySums {
  user_id: string;
  income_date: string;
  /** Ticker -> premium cash flow of the day. */
  tickers: Record<string, number>;
  /** Ticker -> trades closed. */
  ct: Record<string, number>;
  /** Strategy uid -> trades opened. */
  sg: Record<string, number>;
  /** Disposition -> trades closed. */
  dg: Record<string, number>;
  snpc: Record<string, StrategyNpc>;
  tnpc: Record<string, TickerNpc>;
}

function empty(userId: string, date: string): DailyPremiumRecord {
  return { user_id: userId, income_date: date, np: 0, nf: 0, nd: 0, nep: 0, otc: 0, ctc: 0, iw: 0, npc: 0, cpt: 0, cg: 0, hp: 0, pr: 0, ttf: 0, incap: 0, wdc: 0, tickers: {}, ct: {}, sg: {}, dg: {}, snpc: {}, tnpc: {} };
}

const bump = (m: Record<string, number>, k: string, by: number) => {
  m[k] = (m[k] ?? 0) + by;
};

/** Orders one user's trades by uid: unique within a user, so the order is total. */
const byUid = (a: DayTrade, b: DayTrade) => compareKeys(a.uid, b.uid);

/**
 * Recomputes the records of the given (user, date) keys from every trade opened or closed on them (every
 * day of some users: `computeAllDailyRecords`). Pure and order-independent: the same trades give the
 * same records however they were reached. Keys without any trade come back absent (the caller deletes
 * their rows).
 */
export function computeDailyRecords(keys: Iterable<string>, trades: readonly DayTrade[]): Map<string, DailyPremiumRecord> {
  const wanted = new Set(keys);
  // Each wanted day's trades (opened or closed that day), each trade once per day.
  const byDay = new Map<string, DayTrade[]>();
  const add = (k: string, t: DayTrade) => {
    const list = byDay.get(k);
    if (list) list.push(t);
    else byDay.set(k, [t]);
  };
  for (const t of trades) {
    const opened = dayKey(t.user_id, t.tod);
    if (wanted.has(opened)) add(opened, t);
    if (t.status !== 1 && t.tcd !== null && t.tcd !== t.tod) {
      const closed = dayKey(t.user_id, t.tcd);
      if (wanted.has(closed)) add(closed, t);
    }
  }
  const out = new Map<string, DailyPremiumRecord>();
  for (const [key, dayTrades] of byDay) {
    const [userId, date] = splitDayKey(key);
    out.set(key, dayRecord(userId, date, dayTrades));
  }
  return out;
}

/**
 * Every record of the given trades (each user's trades all there), in the table's key order (user,
 * then date; see `compareKeys`): what `computeDailyRecords` gives for every day the trades were opened
 * or closed on, sorted. It serves a one-user recompute and a whole version at a time (a rebuild's
 * 535,000 records): trades are grouped by user, then by date, in maps of their own instead of one map of
 * composed keys, so no key string is built per trade.
 */
export function computeAllDailyRecords(trades: readonly DayTrade[]): DailyPremiumRecord[] {
  const byUser = new Map<string, Map<string, DayTrade[]>>();
  for (const t of trades) {
    let days = byUser.get(t.user_id);
    if (!days) byUser.set(t.user_id, (days = new Map()));
    const opened = days.get(t.tod);
    if (opened) opened.push(t);
    else days.set(t.tod, [t]);
    if (t.status !== 1 && t.tcd !== null && t.tcd !== t.tod) {
      const closed = days.get(t.tcd);
      if (closed) closed.push(t);
      else days.set(t.tcd, [t]);
    }
  }
  const out: DailyPremiumRecord[] = [];
  for (const userId of [...byUser.keys()].sort(compareKeys)) {
    const days = byUser.get(userId)!;
    for (const date of [...days.keys()].sort(compareKeys)) out.push(dayRecord(userId, date, days.get(date)!));
  }
  return out;
}

/** One day's record from its trades (sorted here). */
function dayRecord(userId: string, date: string, dayTrades: DayTrade[]): DailyPremiumRecord {
  // A day's trades sorted, so that float sums (and map key order) do not depend on the order rows came
  // back in: a live version (rows rewritten batch by batch) and a rebuild (rows written in bulk) read
  // them in different physical orders. The order must be total: trades tied on every figure but one
  // (three puts opened alike but for their deltas) summed in two orders can round to two values
  // (0.005 + 0.565 + 0.695 is 1.27 or 1.26). A day's trades are one user's, whose uids are unique.
  // Sorting per day, not all trades at once, is what keeps a whole-version recompute cheap.
  if (dayTrades.length > 1) dayTrades.sort(byUid);
  const r = empty(userId, date);
  const splits = joinedSplits(date, dayTrades);
  for (const t of dayTrades) addTrade(r, date, t, splits);
  return rounded(r);
}

/**
 * A split leg opened `date` whose position was entered that day: it may be counted as that position.
 * Both legs (not what a partial close of a leg left: `pf`) are what make the position.
 */
const isEnteredLeg = (t: DayTrade, date: string): t is DayTrade & { auid: string; split: SplitPosition } =>
  t.auid !== null && t.split !== null && t.pf === null && t.tod === date && t.split.tod === date;

/**
 * The splits of the day to count as the position entered: those whose two legs are both there, opened
 * that day (the rule of the trades-by-date dialog, `tradesByDate`). Once a leg is deleted (or moved to
 * another day), the position as entered no longer exists and the leg left counts as itself. By the
 * broken trade's uid; the value says whether the position has been counted yet. Null without any.
 */
function joinedSplits(date: string, dayTrades: readonly DayTrade[]): Map<string, boolean> | null {
  let legs: Map<string, number> | null = null;
  for (const t of dayTrades) if (isEnteredLeg(t, date)) (legs ??= new Map()).set(t.auid, (legs.get(t.auid) ?? 0) + 1);
  if (!legs) return null;
  const out = new Map<string, boolean>();
  for (const [auid, n] of legs) if (n === 2) out.set(auid, false);
  return out.size ? out : null;
}

/**
 * The record with every figure to cents and every map's keys sorted, as a new object literal: a field
 * added to `DailyPremiumRecord` and left out here does not compile, and no figure is read by name from
 * a list (a keyed access per field).
 */
function rounded(r: DailyPremiumRecord): DailyPremiumRecord {
  for (const k in r.tickers) r.tickers[k] = round2(r.tickers[k]!);
  for (const k in r.snpc) r.snpc[k]!.npc = round2(r.snpc[k]!.npc);
  for (const k in r.tnpc) {
    const t = r.tnpc[k]!;
    t.npc = round2(t.npc);
    t.pr = round2(t.pr);
    t.cg = round2(t.cg);
  }
  return {
    user_id: r.user_id, income_date: r.income_date,
    np: round2(r.np), nf: round2(r.nf), nd: round2(r.nd), nep: round2(r.nep), otc: round2(r.otc), ctc: round2(r.ctc), iw: round2(r.iw), npc: round2(r.npc),
    cpt: round2(r.cpt), cg: round2(r.cg), hp: round2(r.hp), pr: round2(r.pr), ttf: round2(r.ttf), incap: round2(r.incap), wdc: round2(r.wdc),
    tickers: sortKeys(r.tickers), ct: sortKeys(r.ct), sg: sortKeys(r.sg), dg: sortKeys(r.dg), snpc: sortKeys(r.snpc), tnpc: sortKeys(r.tnpc),
  };
}

/** Counts one trade opened on the record's day: its strategy, net delta and days to expiration. */
function addOpened(r: DailyPremiumRecord, su: string, nd: number, tod: string, ed: string): void {
  r.nd += nd;
  r.nep += daysBetween(tod, ed);
  r.otc += 1;
  bump(r.sg, su, 1);
}

/**
 * Adds one trade's part in the record of `date`: its opening if opened that day, its close if closed
 * that day. The premium cash flow (np, nf, tickers) is each row's own; the trades opened (otc, nd, nep,
 * sg) are positions as entered: a partial close's remainder is not another one, and a split's two legs
 * (`splits`, see `joinedSplits`) are the one position they were cut from, counted at its first leg.
 */
function addTrade(r: DailyPremiumRecord, date: string, t: DayTrade, splits: Map<string, boolean> | null): void {
  if (t.tod === date) {
    const open = openSign(t.ot) * t.pao;
    r.np += open;
    r.nf += t.nfto;
    bump(r.tickers, t.ticker, open);
    if (t.pf === null) {
      if (splits !== null && isEnteredLeg(t, date) && splits.has(t.auid)) {
        // The position as entered, once; unless it was itself a partial close's remainder (`pf`).
        if (!splits.get(t.auid) && t.split.pf === null) addOpened(r, t.split.su, t.split.nd, t.split.tod, t.split.ed);
        splits.set(t.auid, true);
      } else addOpened(r, t.su, t.nd, t.tod, t.ed);
    }
  }
  if (t.status !== 1 && t.tcd === date) {
    const close = closeSign(t.ct) * (t.pac ?? 0);
    const npc = t.npc ?? 0;
    const fees = netFee(t.nfto, t.nftc);
    const win = isWin(npc, fees);
    const pcr = win ? (premiumCaptureRate(t.ot, t.pao, t.pac ?? 0, npc) ?? 0) : 0;
    const held = t.held ?? 0;
    const dis = disposition(t.status, t.tcd, t.ed) ?? 'Closed';
    r.np += close;
    r.nf += t.nftc ?? 0;
    r.ctc += 1;
    r.iw += win ? 1 : 0;
    r.npc += npc;
    r.cpt += close;
    r.cg += t.cg ?? 0;
    r.hp += held;
    r.pr += pcr;
    r.ttf += fees;
    r.incap += t.c;
    r.wdc += t.c * held;
    bump(r.tickers, t.ticker, close);
    bump(r.ct, t.ticker, 1);
    bump(r.dg, dis, 1);
    const s = (r.snpc[t.su] ??= { npc: 0, count: 0, iw: 0, dis: {} });
    s.npc += npc;
    s.count += 1;
    s.iw += win ? 1 : 0;
    bump(s.dis, dis, 1);
    const k = (r.tnpc[t.ticker] ??= { npc: 0, count: 0, iw: 0, pr: 0, cg: 0, hp: 0, cs: 0 });
    k.npc += npc;
    k.count += 1;
    k.iw += win ? 1 : 0;
    k.pr += pcr;
    k.cg += t.cg ?? 0;
    k.hp += held;
    k.cs += t.cs;
  }
}

export const dayKey = (userId: string, date: string): string => `${userId}\u0000${date}`;
export const splitDayKey = (k: string): [string, string] => {
  const i = k.indexOf('\u0000');
  return [k.slice(0, i), k.slice(i + 1)];
};

function sortKeys<T>(m: Record<string, T>): Record<string, T> {
  const keys = Object.keys(m);
  // Most maps of a day hold one key: nothing to sort, and no copy to make (a whole-version recompute
  // builds millions of them).
  if (keys.length < 2) return m;
  keys.sort(compareKeys);
  const out: Record<string, T> = {};
  for (const k of keys) out[k] = m[k]!;
  return out;
}
