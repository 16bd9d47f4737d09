import { describe, expect, it } from 'vitest';
import { tradeDaySummary, type TradeDaySection, type TradeOfDay } from './trade-views.ts';

/** A trade of the day with only what the summary reads set; the rest is inert. */
function trade(section: TradeDaySection, f: { ot: number; pao: number; nfto: number; ct?: number; pac?: number; nftc?: number }): TradeOfDay {
  return {
    uid: `${section}-${f.pao}`, lid: 'L', ticker: 'T', sp: [1], c: 0, tod: '2026-03-02', tcd: f.ct ? '2026-03-02' : null, ed: '2026-03-20', status: f.ct ? 2 : 1,
    pao: f.pao, pac: f.pac ?? null, npc: null, nd: 0.2, cs: 1, notes: '', tags: [], ot: f.ot, ct: f.ct ?? null, su: 'cash-secured-put', au: 'A', auid: null,
    spo: null, cb: null, lv: null, rf: null, pf: null, up: '', nfto: f.nfto, nftc: f.nftc ?? null, ror: null, aroc: null, cg: null, do: 0, dis: null, rh: false,
    created_at: '', section,
  };
}

describe('the trades-by-date summary (part 1 §9)', () => {
  it('counts a scalp as two trades; credits add, debits subtract; a close adds its close only', () => {
    const day = [
      // A position of 3 contracts opened for a 600 credit (fee 3), one contract of it bought back the same day.
      trade('open', { ot: 1, pao: 600, nfto: 3 }),
      // Opened for a 300 debit (fee 1), sold the same day for 360 (fee 1).
      trade('scalp', { ot: 2, pao: 300, nfto: 1, ct: 1, pac: 360, nftc: 1 }),
      // The bought-back contract: its 200 of open premium is in the position above; its close is a 150 debit.
      trade('closed', { ot: 1, pao: 200, nfto: 1, ct: 2, pac: 150, nftc: 0.65 }),
      // An earlier trade closed by expiry: neutral, nothing.
      trade('closed', { ot: 1, pao: 80, nfto: 1, ct: 3, pac: 0, nftc: 0 }),
    ];
    // Premium 600 - 300 + 360 - 150 + 0 = 510; fees 3 + 1 + 1 + 0.65 + 0 = 5.65; trades 1 + 2 + 2.
    expect(tradeDaySummary(day)).toEqual({ trades: 5, open_count: 1, scalp_count: 1, closed_count: 2, premium: 510, fees: 5.65, net: 504.35 });
  });

  it('is all zeros for a day without trades', () => {
    expect(tradeDaySummary([])).toEqual({ trades: 0, open_count: 0, scalp_count: 0, closed_count: 0, premium: 0, fees: 0, net: 0 });
  });
});
