import { describe, expect, it } from 'vitest';
import { canon, sameJson } from './queries.ts';

/** Verify compares rows with `sameJson`; it must answer what comparing the `canon` texts answers. */
describe('sameJson', () => {
  const cases: Array<[unknown, unknown]> = [
    [1, 1],
    [1, 2],
    [0, -0],
    [1, '1'],
    [null, undefined],
    [null, 0],
    ['2026-03-30', '2026-03-30'],
    [new Date('2026-03-30T00:00:00Z'), '2026-03-30T00:00:00.000Z'],
    [new Date('2026-03-30T00:00:00Z'), '2026-03-30'],
    [[400, 395], [400, 395]],
    [[400, 395], [395, 400]],
    [[400], [400, 395]],
    [[], {}],
    [{ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }],
    [{ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 3 }], a: 1 }],
    [{ a: 1 }, { a: 1, b: 2 }],
    [{ a: 1, b: 2 }, { a: 1 }],
    [{ a: undefined }, { a: null }],
    [{ a: undefined }, {}],
    [{ a: null, b: 1 }, { b: 1, c: null }],
    [{ cause: 'roll', legs: ['T1', 'T2'] }, { legs: ['T1', 'T2'], cause: 'roll' }],
  ];
  it.each(cases)('%j and %j: as their canonical texts compare', (x, y) => {
    expect(sameJson(x, y)).toBe(canon(x) === canon(y));
    expect(sameJson(y, x)).toBe(canon(x) === canon(y));
  });
  it('tells key order inside JSON columns apart from a changed value', () => {
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1.5 })).toBe(false);
  });
});
