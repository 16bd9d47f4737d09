import { describe, expect, it } from 'vitest';
import type { TradeRecord } from '@oj/contracts/trade-record';
import { describeEvent } from './describe.ts';

describe("an edit's sentence", () => {
  it('says that premium and fee at open are totals, where the other sentences give per-share prices (QA)', () => {
    const before = new Map([['t-000123', { uid: 't-000123', ticker: 'SPY', strategyUid: 'cash-secured-put', strikePrices: [400], premiumAtOpen: 500, netFeeToOpen: 1.3 } as unknown as TradeRecord]]);
    const sentence = describeEvent({ type: 'TradeEdited', data: { tradeId: 't-000123', changes: { premiumAtOpen: 450, netFeeToOpen: 0.65 } } } as never, before);
    expect(sentence).toContain('premium at open (total) 500 → 450, fee to open (total) 1.3 → 0.65');
  });
});
