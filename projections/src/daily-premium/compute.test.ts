import { describe, expect, it } from 'vitest';
import { compareKeys } from '@oj/infra/db/bulk';
import { mulberry32 as random } from '@oj/infra/prng';
import { computeAllDailyRecords, computeDailyRecords, dayKey, type DayTrade } from './compute.ts';

const DATES = ['2025-12-30', '2025-12-31', '2026-01-02', '2026-01-05', '2026-01-06', '2026-02-27', '2026-03-02'];
// Keys the records' maps are made of: integer-like ones (ordered first by every object), characters
// JSON escapes, and a ticker that sorts between others only in byte order.
const TICKERS = ['AAPL', 'SPY', '7203', '12', 'BRK.B', 'a"b', 'Zz', 'ÄX'];
const STRATEGIES = ['naked-put', 'covered-call', '101', 'iron-condor'];

/** Trades of several users, opened and closed on a few dates (same-day closes, open trades, partial remainders). */
function trades(seed: number, n: number): DayTrade[] {
  const r = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const cents = (max: number) => Math.round(r() * max * 100) / 100;
  // A fifth of the trades are legs of a few splits: a day may hold both legs of one, or one, or three.
  const split = (): Pick<DayTrade, 'auid' | 'split'> => {
    if (r() >= 0.2) return { auid: null, split: null };
    const tod = pick(DATES);
    return { auid: pick(['s1', 's2', 's3']), split: { su: 'bull-put-spread', nd: cents(1), tod, ed: pick(DATES.filter((d) => d >= tod)), pf: r() < 0.2 ? 'p' : null } };
  };
  return Array.from({ length: n }, (_, i): DayTrade => {
    const tod = pick(DATES);
    const status = pick([1, 2, 2, 3, 4, 5, 6, 7]);
    const closed = status !== 1;
    const tcd = closed ? pick(DATES.filter((d) => d >= tod)) : null;
    return {
      uid: `t${(i * 7919) % n}`.padEnd(6, 'x'),
      user_id: pick(['u-b', 'u-a', 'u-10', 'u-9']),
      ticker: pick(TICKERS),
      su: pick(STRATEGIES),
      tod,
      tcd,
      ed: pick(DATES.filter((d) => d >= tod)),
      status,
      ot: pick([1, 2]),
      ct: closed ? pick([1, 2, 3]) : null,
      pao: cents(900),
      pac: closed ? cents(900) : null,
      npc: closed ? cents(1_000) - 500 : null,
      nfto: cents(3),
      nftc: closed ? cents(3) : null,
      nd: cents(1) - 0.5,
      c: cents(20_000),
      cg: closed && r() < 0.3 ? cents(400) - 200 : null,
      held: closed ? Math.floor(r() * 40) : null,
      cs: 1 + Math.floor(r() * 5),
      pf: r() < 0.1 ? 'parent' : null,
      ...split(),
    };
  });
}

function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const r = random(seed);
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('computeAllDailyRecords (a whole version at a time, for the rebuild)', () => {
  it.each([1, 2, 3, 4, 5])('gives every record computeDailyRecords gives, in key order, whatever the rows order (seed %i)', (seed) => {
    const rows = trades(seed, 400);
    const days = new Set(rows.flatMap((t) => (t.status !== 1 && t.tcd !== null ? [dayKey(t.user_id, t.tod), dayKey(t.user_id, t.tcd)] : [dayKey(t.user_id, t.tod)])));
    const keyed = [...computeDailyRecords(days, rows).values()];
    const all = computeAllDailyRecords(shuffled(rows, seed + 100));
    const byKey = (a: { user_id: string; income_date: string }, b: { user_id: string; income_date: string }) =>
      compareKeys(a.user_id, b.user_id) || compareKeys(a.income_date, b.income_date);
    expect(all.map((d) => dayKey(d.user_id, d.income_date))).toEqual([...keyed].sort(byKey).map((d) => dayKey(d.user_id, d.income_date)));
    // The same figures to the last bit and the same map key order: the COPY text is the JSON text.
    expect(JSON.stringify(all)).toBe(JSON.stringify([...keyed].sort(byKey)));
  });

  it('adds up a day as the hand does: opens and closes of the day, a same-day close once, a partial remainder not counted as opened', () => {
    const base = { user_id: 'u', su: 'naked-put', ed: '2026-01-16', ot: 1, ct: 2, nd: 0.2, c: 1000, cg: null, cs: 1, auid: null, split: null } as const;
    const rows: DayTrade[] = [
      // Opened 5 January, still open.
      { ...base, uid: 'a', ticker: 'SPY', tod: '2026-01-05', tcd: null, status: 1, pao: 100, pac: null, npc: null, nfto: 1, nftc: null, held: null, pf: null },
      // Opened and closed 5 January (a scalp): 100 in, 40 out.
      { ...base, uid: 'b', ticker: 'SPY', tod: '2026-01-05', tcd: '2026-01-05', status: 2, pao: 100, pac: 40, npc: 60, nfto: 1, nftc: 1, held: 0, pf: null },
      // A partial close's remainder opened 5 January: premium of the day, not another trade opened.
      { ...base, uid: 'c', ticker: 'QQQ', tod: '2026-01-05', tcd: null, status: 1, pao: 50, pac: null, npc: null, nfto: 0.5, nftc: null, held: null, pf: 'b' },
    ];
    const [day] = computeAllDailyRecords(rows);
    expect(day).toMatchObject({ user_id: 'u', income_date: '2026-01-05', otc: 2, ctc: 1, np: 100 + 100 - 40 + 50, nf: 1 + 1 + 1 + 0.5, nep: 11 + 11, iw: 1, npc: 60 });
    expect(day!.tickers).toEqual({ QQQ: 50, SPY: 160 });
    expect(Object.keys(day!.tickers)).toEqual(['QQQ', 'SPY']);
    expect(day!.sg).toEqual({ 'naked-put': 2 });
  });
});

describe('a split position counts as one trade opened, as entered, while both its legs are there', () => {
  // QA's example: a Bull Put Spread 500/490 (1 contract, credit 200: the 500 put sold for 300, the 490 put bought
  // for 100; delta 0.15; expiring Friday 18 December, 17 days out) opened Tuesday 1 December 2026, and split on
  // 3 December: leg 2 (the long 490 put) sold back for 60, leg 1 (the naked 500 put) kept open.
  const spread = { su: 'bull-put-spread', nd: 0.15, tod: '2026-12-01', ed: '2026-12-18', pf: null };
  const leg = { user_id: 'u', ticker: 'SPY', tod: '2026-12-01', ed: '2026-12-18', nd: 0.15, cs: 1, cg: null, pf: null, auid: 'S', split: spread } as const;
  const closedLeg: DayTrade = {
    ...leg, uid: 'L1', su: 'long-put', ot: 2, pao: 100, nfto: 0.65, c: 100,
    status: 2, tcd: '2026-12-03', ct: 1, pac: 60, npc: -40, nftc: 0.65, held: 2,
  };
  const openLeg: DayTrade = { ...leg, uid: 'L2', su: 'naked-put', ot: 1, pao: 300, nfto: 0.65, c: 50_000, status: 1, tcd: null, ct: null, pac: null, npc: null, nftc: null, held: null };
  /** The records by date, the same from both entries (the live one by keys, the rebuild's of all). */
  const records = (rows: DayTrade[]) => {
    const all = computeAllDailyRecords(rows.map((t) => ({ ...t })));
    const keys = new Set(all.map((d) => dayKey(d.user_id, d.income_date)));
    const keyed = [...computeDailyRecords(keys, rows.map((t) => ({ ...t }))).values()].sort((a, b) => compareKeys(a.income_date, b.income_date));
    expect(keyed).toEqual(all);
    return Object.fromEntries(all.map((d) => [d.income_date, d]));
  };

  it("counts QA's split spread once on its open date, with the spread's strategy, delta and days; each leg's premium is the day's", () => {
    const d = records([closedLeg, openLeg]);
    // 1 December: one Bull Put Spread (not a Long Put and a Naked Put), delta 0.15 once, 17 days to expiry;
    // premium -100 + 300 = 200, fees 0.65 + 0.65.
    expect(d['2026-12-01']).toMatchObject({ otc: 1, nd: 0.15, nep: 17, np: 200, nf: 1.3, ctc: 0 });
    expect(d['2026-12-01']!.sg).toEqual({ 'bull-put-spread': 1 });
    expect(d['2026-12-01']!.tickers).toEqual({ SPY: 200 });
    // 3 December: the long put's close (+60), a leg closed as itself; nothing opened.
    expect(d['2026-12-03']).toMatchObject({ otc: 0, nd: 0, nep: 0, ctc: 1, np: 60, npc: -40, sg: {} });
    expect(Object.keys(d['2026-12-03']!.snpc)).toEqual(['long-put']);
    // A leg's delta edited after the split (its copy of the spread's): the spread as entered is still 0.15.
    expect(records([closedLeg, { ...openLeg, nd: 0.4 }])['2026-12-01']).toMatchObject({ otc: 1, nd: 0.15, nep: 17 });
  });

  it('once a leg is deleted (or moved to another day), the leg left counts as itself', () => {
    // The closed leg deleted: 1 December holds the naked 500 put alone (its own strategy, delta and days, premium 300).
    const alone = records([{ ...openLeg, nd: 0.4 }]);
    expect(alone['2026-12-01']).toMatchObject({ otc: 1, nd: 0.4, nep: 17, np: 300, nf: 0.65 });
    expect(alone['2026-12-01']!.sg).toEqual({ 'naked-put': 1 });
    expect(alone['2026-12-03']).toBeUndefined();
    // The open leg deleted: the long put alone, opened 1 December (-100) and closed 3 December.
    const other = records([closedLeg]);
    expect(other['2026-12-01']).toMatchObject({ otc: 1, nd: 0.15, nep: 17, np: -100 });
    expect(other['2026-12-01']!.sg).toEqual({ 'long-put': 1 });
    // The open leg's open date edited to 2 December: no day holds the spread as entered any more.
    const moved = records([closedLeg, { ...openLeg, tod: '2026-12-02' }]);
    expect([moved['2026-12-01']!.sg, moved['2026-12-02']!.sg]).toEqual([{ 'long-put': 1 }, { 'naked-put': 1 }]);
    expect([moved['2026-12-01']!.nep, moved['2026-12-02']!.nep]).toEqual([17, 16]);
    // Both legs there again: one spread.
    expect(records([closedLeg, openLeg])['2026-12-01']!.sg).toEqual({ 'bull-put-spread': 1 });
  });

  it("a leg partially closed after the split: the spread still counts once, and the leg's remainder is not another trade opened", () => {
    // The same spread on 2 contracts (credit 400: 600 sold, 200 bought). The naked put leg (L2) is bought back
    // 1 contract of 2 on 4 December for 100: L2 becomes the closed contract (300 at open, npc 200), the
    // remainder R (1 contract, 300 at open) stays open, with L2 as its `pf` and the spread as its ancestor.
    const l1: DayTrade = { ...closedLeg, cs: 2, pao: 200, npc: -140, c: 200 };
    const l2: DayTrade = { ...openLeg, cs: 1, pao: 300, status: 2, tcd: '2026-12-04', ct: 2, pac: 100, npc: 200, nftc: 0.65, held: 3 };
    const rest: DayTrade = { ...openLeg, uid: 'R', cs: 1, pao: 300, pf: 'L2' };
    const d = records([l1, l2, rest]);
    // 1 December: one Bull Put Spread opened; premium -200 + 300 + 300 = 400.
    expect(d['2026-12-01']).toMatchObject({ otc: 1, nd: 0.15, nep: 17, np: 400 });
    expect(d['2026-12-01']!.sg).toEqual({ 'bull-put-spread': 1 });
    // 4 December: the contract bought back is a trade closed, not opened.
    expect(d['2026-12-04']).toMatchObject({ otc: 0, ctc: 1, np: -100, npc: 200 });
    // The long put leg deleted: the naked put leg counts as itself, once (its remainder still not).
    const left = records([l2, rest]);
    expect(left['2026-12-01']).toMatchObject({ otc: 1, nd: 0.15, nep: 17, np: 600 });
    expect(left['2026-12-01']!.sg).toEqual({ 'naked-put': 1 });
  });

  it("a split of a partial close's remainder is not another trade opened: the position it was cut from counted already", () => {
    // P: the spread on 2 contracts, 1 of them closed on 2 December; its remainder Q (1 contract) split on
    // 3 December into L1 and L2, whose position as entered is Q (a remainder: `pf` P).
    const p: DayTrade = { ...closedLeg, uid: 'P', su: 'bull-put-spread', ot: 1, pao: 200, auid: null, split: null, tcd: '2026-12-02', pac: 50, ct: 2, npc: 150, held: 1, c: 900 };
    const fromRemainder = { ...spread, pf: 'P' };
    const d = records([p, { ...closedLeg, split: fromRemainder }, { ...openLeg, split: fromRemainder }]);
    expect(d['2026-12-01']).toMatchObject({ otc: 1, nd: 0.15, nep: 17, np: 200 - 100 + 300 });
    expect(d['2026-12-01']!.sg).toEqual({ 'bull-put-spread': 1 });
  });
});
