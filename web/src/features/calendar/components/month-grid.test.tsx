// @vitest-environment jsdom
import '@/test/dom.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { DailyIncome } from '@oj/contracts/trade-views';
import { MonthGrid } from './month-grid.tsx';

const day = (income_date: string, o: Partial<DailyIncome>): DailyIncome => ({
  id: income_date, income_date, np: 0, nf: 0, nd: 0, nep: 0, otc: 0, ctc: 0, iw: 0, npc: 0, cpt: 0, cg: 0, hp: 0, pr: 0, ttf: 0, incap: 0, wdc: 0,
  net_premium_so_far: 0, tickers: {}, ct: {}, sg: {}, dg: {}, snpc: {}, tnpc: {}, ...o,
});

/** The style rules of calendar.css whose selector is exactly `selector`, with the media they apply under. */
function rulesFor(selector: string): { media: string; style: CSSStyleDeclaration }[] {
  const sheet = document.createElement('style');
  // Read from disk: Vitest hands a component test an empty string for an imported stylesheet.
  sheet.textContent = readFileSync(join(import.meta.dirname, '../calendar.css'), 'utf8');
  document.head.append(sheet);
  const out: { media: string; style: CSSStyleDeclaration }[] = [];
  const walk = (rules: CSSRuleList, media: string) => {
    for (const rule of Array.from(rules)) {
      if (rule instanceof CSSMediaRule) walk(rule.cssRules, rule.media.mediaText);
      else if (rule instanceof CSSStyleRule && rule.selectorText === selector) out.push({ media, style: rule.style });
    }
  };
  walk(sheet.sheet!.cssRules, '');
  sheet.remove();
  return out;
}

describe('MonthGrid', () => {
  it("a day's trade count is a target of at least 32 x 32 px of its own on a phone, around a small badge (QA: 18 x 16)", async () => {
    const onOpenDay = vi.fn();
    const onViewTrades = vi.fn();
    const user = userEvent.setup();
    render(<MonthGrid month="2026-11" byDate={new Map([['2026-11-23', day('2026-11-23', { np: 650, otc: 2 })]])} today="2026-11-30" onOpenDay={onOpenDay} onViewTrades={onViewTrades} />);
    const count = screen.getByRole('button', { name: '2 trades on November 23, 2026' });
    // The visible pill is inside the button; the button's own box is the target, not something drawn
    // outside it (a pseudo-element past the button's edge is what QA's phone did not count).
    const badge = count.querySelector('.cal-day-trades-badge');
    expect(badge?.textContent).toBe('2 trades2');
    const target = rulesFor('.cal-day-trades').filter((r) => /max-width:\s*720px/.test(r.media) && /pointer:\s*coarse/.test(r.media));
    expect(target.map((r) => [r.style.minWidth, r.style.minHeight])).toEqual([['32px', '32px']]);
    expect(rulesFor('.cal-day-trades::before')).toEqual([]);
    // Square: a rounded corner is not hit.
    expect(rulesFor('.cal-day-trades').some((r) => /max-width:\s*720px/.test(r.media) && r.style.borderRadius === '0px')).toBe(true);

    // The day still opens the add-trade form, the count the day's trades.
    await user.click(screen.getByRole('button', { name: /^November 23: / }));
    expect(onOpenDay).toHaveBeenCalledWith('2026-11-23');
    await user.click(count);
    expect(onViewTrades).toHaveBeenCalledWith('2026-11-23');
    expect(onOpenDay).toHaveBeenCalledTimes(1);
  });
});
