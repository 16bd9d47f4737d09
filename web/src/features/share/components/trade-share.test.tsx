// @vitest-environment jsdom
import '@/test/dom.ts';
import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { TradeShareModal, tradeShareText } from './trade-share.tsx';
import { cardStyle } from './share-modal.tsx';
import { CARD_COLORS } from '../utils/card-theme.ts';

// The fields the card reads.
const base = { uid: 't1', ticker: 'NVDA', su: 's', sp: [830, 820], cs: 4, tod: '2026-01-05', ed: '2026-02-20', do: 12, ror: 2.41, aroc: 73.3 };

const statValue = (label: string) => {
  const stat = screen.getByText(label, { selector: '.share-stat-label' }).closest('.share-stat');
  return stat?.querySelector('.share-stat-value')?.textContent;
};

describe('TradeShareModal', () => {
  it('abbreviates the card\'s amounts with K and M from 1000 (part 1 §9; QA: "COLLATERAL $166,000…" cut off)', () => {
    const closed = { ...base, status: 2, c: 166_000, npc: 4_012.5, pao: 5_100, tcd: '2026-01-17', dis: 'Early Exit' } as unknown as TradeListItem;
    render(<TradeShareModal open onClose={() => {}} trade={closed} strategyName="Bull Put Spread" />);
    expect(statValue('Collateral')).toBe('$166K');
    expect(document.querySelector('.share-hero span')?.textContent).toBe('$4.01K');
  });

  it("names the headline: premium captured before fees, beside a return on risk after fees (QA: read as the loss)", () => {
    const closed = { ...base, status: 2, c: 200.17, npc: -200.17, pao: 200.17, tcd: '2026-01-17', dis: 'Manual Close' } as unknown as TradeListItem;
    render(<TradeShareModal open onClose={() => {}} trade={closed} strategyName="Long Strangle" />);
    expect(document.querySelectorAll('.share-hero span')[1]?.textContent).toBe('Premium captured, before fees · Manual Close');
  });

  it("signs an open trade's premium by its opening: a debit paid is money out, a credit received money in (QA: a debit read like income)", () => {
    const debit = { ...base, status: 1, ot: 2, c: 1_577, npc: null, pao: 1_577, tcd: null, dis: null } as unknown as TradeListItem;
    const { unmount } = render(<TradeShareModal open onClose={() => {}} trade={debit} strategyName="Long Strangle" />);
    const hero = document.querySelectorAll('.share-hero span');
    expect(hero[0]?.textContent).toBe('-$1.58K');
    expect(hero[1]?.textContent).toBe('Debit paid at open');
    expect(tradeShareText(debit, 'Long Strangle')).toBe('Opened NVDA Long Strangle $830 / $820 for a $1,577.00 debit, expiring Feb 20, 2026. #options');
    unmount();
    const credit = { ...debit, ot: 1, pao: 412.5 } as TradeListItem;
    render(<TradeShareModal open onClose={() => {}} trade={credit} strategyName="Bull Put Spread" />);
    expect(document.querySelectorAll('.share-hero span')[1]?.textContent).toBe('Credit received at open');
    expect(tradeShareText(credit, 'Bull Put Spread')).toBe('Opened NVDA Bull Put Spread $830 / $820 for a $412.50 credit, expiring Feb 20, 2026. #options');
  });

  it('keeps the cents of an amount under 1000', () => {
    const open = { ...base, status: 1, ot: 1, c: 950, npc: null, pao: 412.5, tcd: null, dis: null } as unknown as TradeListItem;
    render(<TradeShareModal open onClose={() => {}} trade={open} strategyName="Bull Put Spread" />);
    expect(statValue('Collateral')).toBe('$950.00');
    expect(document.querySelector('.share-hero span')?.textContent).toBe('$412.50');
  });

  it("gives what the card holds in the console's colours (a chart's No Data box) the card's own (QA: a bright box in the dark card)", () => {
    for (const theme of ['light', 'dark'] as const) {
      const style = cardStyle(CARD_COLORS[theme]) as Record<string, string>;
      expect(style['--color-surface-2']).toBe(CARD_COLORS[theme].surface);
      expect(style['--color-text-subtle']).toBe(CARD_COLORS[theme].muted);
    }
    const closed = { ...base, status: 2, ot: 1, c: 950, npc: 100, pao: 100, tcd: '2026-01-17', dis: 'Expired' } as unknown as TradeListItem;
    render(<TradeShareModal open onClose={() => {}} trade={closed} strategyName="Bull Put Spread" />);
    const card = screen.getByTestId('share-card');
    const theme = card.dataset.cardTheme as 'light' | 'dark';
    expect(card.style.getPropertyValue('--color-surface-2')).toBe(CARD_COLORS[theme].surface);
  });
});
