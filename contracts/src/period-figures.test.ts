import { describe, expect, it } from 'vitest';
import { exactPeriodFigures, figureChanges, periodFigures, type DaySums } from './formulas.ts';

const sums = (over: Partial<DaySums>): DaySums => ({ np: 0, nf: 0, nd: 0, nep: 0, otc: 0, ctc: 0, iw: 0, npc: 0, cpt: 0, cg: 0, hp: 0, pr: 0, ttf: 0, incap: 0, wdc: 0, ...over });

describe('period figures and their changes (part 2 §9; docs/formulas.md)', () => {
  it('changes come from the exact figures, rounded once at the end (QA: from the rounded ones, +8,357.4% read +6,800%)', () => {
    // The previous 30 days: MSFT closed for npc 150 (fees 1.30, collateral 40,000) and TSLA for -150 (fees 2, collateral 500).
    const previous = sums({ npc: 0, ttf: 3.3, incap: 40_500, wdc: 40_500, ctc: 2, iw: 1, otc: 2, nd: 0.4 });
    // This 30 days: net 1,885.60 on 280,250 of collateral; five trades opened with deltas summing 1.38.
    const current = sums({ npc: 1_900, ttf: 14.4, incap: 280_250, wdc: 280_250, ctc: 4, iw: 4, otc: 5, nd: 1.38 });
    const rorNow = (1_885.6 / 280_250) * 100;
    const rorBefore = (-3.3 / 40_500) * 100;
    const changes = figureChanges(['ror', 'delta'] as const, exactPeriodFigures(current), exactPeriodFigures(previous));
    expect(changes.ror).toBe(Math.round(((rorNow - rorBefore) / Math.abs(rorBefore)) * 100 * 100) / 100);
    expect(changes.ror).toBeCloseTo(8357.4, 0);
    // Delta 1.38 / 5 = 0.276 against 0.4 / 2 = 0.20: +38.00%, not (0.28 - 0.2) / 0.2 = +40%.
    expect(changes.delta).toBe(38);
    // The figures shown are rounded: ROR 0.67 and -0.01.
    expect(periodFigures(current).ror).toBe(0.67);
    expect(periodFigures(previous).ror).toBe(-0.01);
    expect(periodFigures(current).delta).toBe(0.28);
  });
});
