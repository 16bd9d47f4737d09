// @vitest-environment jsdom
import '@/test/dom.ts';
import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { TradeShareModal } from './trade-share.tsx';

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

  it('keeps the cents of an amount under 1000', () => {
    const open = { ...base, status: 1, c: 950, npc: null, pao: 412.5, tcd: null, dis: null } as unknown as TradeListItem;
    render(<TradeShareModal open onClose={() => {}} trade={open} strategyName="Bull Put Spread" />);
    expect(statValue('Collateral')).toBe('$950.00');
    expect(document.querySelector('.share-hero span')?.textContent).toBe('$412.50');
  });
});
