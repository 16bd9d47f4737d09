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
      auid: null,
      split: null,
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
