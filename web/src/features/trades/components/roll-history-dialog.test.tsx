// @vitest-environment jsdom
import '@/test/dom.ts';
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/react';
import type { RollHistoryItem, RollHistorySplit } from '@oj/contracts/trade-views';
import { formatStrikes } from '@/lib/format.ts';
import { MAX_ROLL_INDENT, RollTreeView, rollTree, type Node } from './roll-history-dialog.tsx';

// QA 74: every roll nested one level deeper than the trade it was rolled from, so a position rolled 60
// times drew cards of no width. Each trade here has its own strike, which names its card in the DOM.
const day = (n: number) => new Date(Date.UTC(2026, 0, 1 + n)).toISOString().slice(0, 10);
const item = (uid: string, strike: number, rolled_from_uid: string | null, tod: string, over: Partial<RollHistoryItem> = {}): RollHistoryItem => ({
  uid,
  rolled_from_uid,
  partial_of_uid: null,
  split_of_uid: null,
  strike_prices: [strike],
  premium_at_open: 100,
  premium_at_close: null,
  expiration_date: '2027-12-17',
  trade_open_date: tod,
  trade_close_date: null,
  status: 1,
  contract_size: 1,
  ...over,
});
const split = (uid: string, over: Partial<RollHistorySplit> = {}): RollHistorySplit => ({
  uid,
  rolled_from_uid: null,
  partial_of_uid: null,
  strike_prices: [390, 385],
  premium_at_open: 100,
  expiration_date: '2027-12-17',
  trade_open_date: day(10),
  contract_size: 2,
  split_date: day(12),
  ...over,
});

/** The tree's cards in walk order, named by their strikes, as rollTree built it. */
const walk = (nodes: readonly Node[]): string[] =>
  nodes.flatMap((n) => [formatStrikes(n.kind === 'trade' ? n.item.strike_prices : n.kind === 'split' ? n.split.strike_prices : n.entered.strike_prices), ...walk(n.children)]);

function drawn(container: HTMLElement) {
  return [...container.querySelectorAll<HTMLLIElement>('li[role="treeitem"]')].map((li) => {
    let branches = 0;
    for (let el = li.parentElement; el && !el.matches('[role="tree"]'); el = el.parentElement) if (el.matches('ul.roll-branch')) branches++;
    const card = li.querySelector(':scope > .roll-node');
    return {
      li,
      name: card?.querySelector('strong')?.textContent ?? '',
      indent: Number(li.dataset.indent),
      /** The rails that actually shift the card: one per indenting branch list around it. */
      branches,
      level: Number(li.getAttribute('aria-level')),
      head: card?.querySelector('.roll-node-head')?.textContent ?? '',
      link: li.querySelector(':scope > .roll-link')?.textContent ?? null,
    };
  });
}

describe('roll history tree layout (QA 74)', () => {
  it('draws a chain of 60 rolls as 61 cards in one column, in order, each numbered and joined by "Rolled to"', () => {
    const chain = Array.from({ length: 61 }, (_, i) =>
      item(`t${i}`, 100 + i, i === 0 ? null : `t${i - 1}`, day(i), i < 60 ? { status: 3, trade_close_date: day(i + 1), premium_at_close: 50 } : {}),
    );
    const tree = rollTree([...chain].reverse());
    const { container } = render(<RollTreeView tree={tree} current="t60" />);
    const cards = drawn(container);
    expect(cards).toHaveLength(61);
    expect(cards.map((c) => c.name)).toEqual(chain.map((t) => formatStrikes(t.strike_prices)));
    expect(cards.map((c) => c.name)).toEqual(walk(tree));
    for (const [i, c] of cards.entries()) {
      // One indentation for the whole chain: no list around any card indents it.
      expect({ i, indent: c.indent, branches: c.branches }).toEqual({ i, indent: 0, branches: 0 });
      expect(c.li.dataset.testid).toBe('roll-trade');
      // The lineage depth stays what a screen reader announces (and the e2e suite reads).
      expect(c.level).toBe(i + 1);
      if (i === 0) {
        expect(c.link).toBeNull();
        expect(c.head).not.toMatch(/Roll \d/);
      } else {
        expect(c.link).toBe('↓Rolled to');
        expect(c.head).toContain(`Roll ${i}`);
      }
    }
    expect(container.querySelectorAll('ul.roll-branch, ul.roll-capped')).toHaveLength(0);
    expect(container.querySelectorAll('ul[role="group"].roll-chain')).toHaveLength(60);
    expect(container.querySelector('[aria-current="true"]')).toBe(cards[60]?.li);
  });

  it('indents a partial close and a split one level each, never more than the cap, and keeps the order', () => {
    // 3 contracts entered at $100: 1 closed, the remainder (2) rolled to a spread that was split; one leg
    // closed, the other partly closed, its remainder rolled, partly closed again, its remainder rolled on.
    const items = [
      item('a', 100, null, day(0), { status: 2, contract_size: 1, trade_close_date: day(5), premium_at_close: 40 }),
      item('r', 101, 'a', day(0), { partial_of_uid: 'a', status: 3, contract_size: 2, trade_close_date: day(10) }),
      item('l1', 385, null, day(10), { split_of_uid: 'b', status: 2, contract_size: 2, trade_close_date: day(12) }),
      item('l2', 390, null, day(10), { split_of_uid: 'b', status: 2, contract_size: 1, trade_close_date: day(14) }),
      item('l2r', 391, 'l2', day(10), { partial_of_uid: 'l2', status: 3, contract_size: 1, trade_close_date: day(20) }),
      item('m', 392, 'l2r', day(20), { status: 2, contract_size: 1, trade_close_date: day(25) }),
      item('mr', 393, 'm', day(20), { partial_of_uid: 'm', status: 3, contract_size: 1, trade_close_date: day(30) }),
      item('p1', 394, 'mr', day(30), { status: 3, trade_close_date: day(40) }),
      item('p2', 395, 'p1', day(40)),
    ];
    const tree = rollTree(items, [split('b', { rolled_from_uid: 'r', strike_prices: [400, 395] })]);
    const { container } = render(<RollTreeView tree={tree} current="p2" />);
    const cards = drawn(container);
    const at = Object.fromEntries(cards.map((c) => [c.name, c]));
    expect(cards.map((c) => c.name)).toEqual(walk(tree));
    // Position as entered (a, $100) at 0; its parts one level in; the roll to the split stays beside its part.
    expect(cards.map((c) => [c.name, c.indent])).toEqual([
      ['$100', 0], // a as entered
      ['$100', 1], // the closed part
      ['$101', 1], // the remainder, rolled
      ['$400 / $395', 1], // rolled to the spread, which was split
      ['$385', 2], // its legs
      ['$390', 2], // the leg partly closed, as entered
      ['$390', 3],
      ['$391', 3], // its remainder, rolled
      ['$392', 3], // rolled to, partly closed, as entered: its parts would be at 4, kept at the cap
      ['$392', 3],
      ['$393', 3],
      ['$394', 3],
      ['$395', 3],
    ]);
    expect(at['$400 / $395']?.li.dataset.testid).toBe('roll-split');
    expect(at['$400 / $395']?.link).toBe('↓Rolled to');
    expect(at['$400 / $395']?.head).toContain('Roll 1');
    expect(at['$395']?.head).toContain('Roll 4'); // r → b, l2r → m, mr → p1, p1 → p2
    for (const c of cards) {
      expect(c.indent).toBeLessThanOrEqual(MAX_ROLL_INDENT);
      // The indentation drawn is the count of indenting lists around the card.
      expect({ name: c.name, branches: c.branches }).toEqual({ name: c.name, branches: c.indent });
    }
    // Each branch's children are one level deeper than the branching node (up to the cap); a chain's are not.
    for (const c of cards) {
      const kids = [...c.li.querySelectorAll<HTMLLIElement>(':scope > ul > li')];
      for (const k of kids) expect(Number(k.dataset.indent)).toBe(kids.length > 1 ? Math.min(c.indent + 1, MAX_ROLL_INDENT) : c.indent);
    }
    // The nesting the e2e suite reads stays: the position's parts are its own list's items.
    const position = container.querySelector('li[data-testid="roll-position"]');
    expect(position?.querySelectorAll(':scope > ul > li')).toHaveLength(2);
    expect(container.querySelectorAll('ul.roll-capped')).toHaveLength(1);
  });
});
