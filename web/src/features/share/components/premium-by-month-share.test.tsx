// @vitest-environment jsdom
import '@/test/dom.ts';
import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { PremiumByMonthShareModal } from './premium-by-month-share.tsx';

describe('PremiumByMonthShareModal', () => {
  it('says No Data for twelve months with nothing in them, as the dashboard does (QA: an empty $0 to $1 axis)', () => {
    const months = Array.from({ length: 12 }, (_, i) => ({ month: `2026-${String(i + 1).padStart(2, '0')}`, premium: 0, active: false }));
    render(<PremiumByMonthShareModal open onClose={() => {}} months={months} />);
    expect(screen.getByRole('img', { name: 'Premium income by month: No Data' })).toBeTruthy();
    expect(screen.getByText('No income yet')).toBeTruthy();
  });
});
