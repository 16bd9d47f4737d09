import { describe, expect, it } from 'vitest';
import { settleAll } from './settle.ts';

describe('settleAll', () => {
  it('returns every value, in the order given', async () => {
    expect(await settleAll([Promise.resolve(1), 2, new Promise<number>((r) => setTimeout(() => r(3), 5))])).toEqual([1, 2, 3]);
  });

  it('throws the first failure only once every promise has settled', async () => {
    let slowEnded = false;
    const slow = new Promise<void>((r) => setTimeout(() => ((slowEnded = true), r()), 20));
    await expect(settleAll([Promise.reject(new Error('first')), slow, Promise.reject(new Error('second'))])).rejects.toThrow('first');
    expect(slowEnded).toBe(true);
  });
});
