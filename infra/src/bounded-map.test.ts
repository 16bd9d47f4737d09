import { describe, expect, it } from 'vitest';
import { BoundedMap } from './bounded-map.ts';

describe('BoundedMap', () => {
  it('drops the oldest key past its bound; setting a key again makes it the newest', () => {
    const m = new BoundedMap<string, number>(2);
    m.set('a', 1).set('b', 2);
    m.set('a', 3);
    m.set('c', 4);
    expect([...m]).toEqual([
      ['a', 3],
      ['c', 4],
    ]);
  });
});
