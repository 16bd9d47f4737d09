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

describe("a split's sentence", () => {
  it('says the day its leg was closed, as close and roll sentences do (QA)', () => {
    const before = new Map([['t-000777', { uid: 't-000777', ticker: 'SPY', strategyUid: 'bull-put-spread', strikePrices: [600, 590], contractSize: 1 } as unknown as TradeRecord]]);
    const sentence = describeEvent(
      {
        type: 'TradeSplit',
        data: {
          tradeId: 't-000777',
          closedLeg: { tradeId: 't-000778', legIndex: 1, strategyUid: 'long-put', strikePrice: 590, close: { premiumAtClose: 100, netFeeToClose: 0.65, closeDate: '2026-12-03' } },
          openLeg: { tradeId: 't-000779', legIndex: 0, strategyUid: 'naked-put', strikePrice: 600 },
        },
      } as never,
      before,
    );
    expect(sentence).toContain('closed at 1.00, fee 0.65 on 2026-12-03, as trade #000778');
  });
});
