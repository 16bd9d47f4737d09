import { describe, expect, it } from 'vitest';
import { MAX_TREE_INDENT, rollTreeLayout } from './as-of-panel.tsx';

// QA 74: the as-of view indented each node by its lineage depth (20 px a level), so a 60-roll chain
// made the page 698 px wide on a 390 px phone.
describe('as-of roll tree layout', () => {
  it('keeps a chain of 60 rolls in one column', () => {
    const nodes = Array.from({ length: 61 }, (_, i) => ({ uid: `t${i}`, parent: i === 0 ? null : `t${i - 1}` }));
    const layout = rollTreeLayout(nodes);
    expect(layout.map((l) => l.indent)).toEqual(Array(61).fill(0));
    expect(layout.map((l) => l.hang)).toEqual(['root', ...Array(60).fill('chain')]);
  });

  it('indents a branch one level, a chain under it not further, and never past the cap', () => {
    // a: a closed part and its remainder r; r rolled to s, split into legs l1 and l2; l2 closed in part
    // (remainder l2r), rolled to m, closed in part again (remainder mr), rolled on twice.
    const nodes = [
      ['a', null], ['c', 'a'], ['r', 'a'], ['s', 'r'], ['l1', 's'], ['l2', 's'], ['l2c', 'l2'], ['l2r', 'l2'],
      ['m', 'l2r'], ['mc', 'm'], ['mr', 'm'], ['p1', 'mr'], ['p2', 'p1'],
    ].map(([uid, parent]) => ({ uid: uid!, parent: parent ?? null }));
    const layout = rollTreeLayout(nodes);
    expect(Object.fromEntries(nodes.map((n, i) => [n.uid, layout[i]?.indent]))).toEqual({
      a: 0, c: 1, r: 1, s: 1, l1: 2, l2: 2, l2c: 3, l2r: 3, m: 3, mc: 3, mr: 3, p1: 3, p2: 3,
    });
    expect(layout.map((l) => l.hang)).toEqual(['root', 'branch', 'branch', 'chain', 'branch', 'branch', 'branch', 'branch', 'chain', 'branch', 'branch', 'chain', 'chain']);
    expect(Math.max(...layout.map((l) => l.indent))).toBe(MAX_TREE_INDENT);
  });

  it('starts a node whose parent is not in the tree as a root', () => {
    expect(rollTreeLayout([{ uid: 'x', parent: 'gone' }])).toEqual([{ indent: 0, hang: 'root' }]);
  });
});
