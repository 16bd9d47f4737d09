import { afterEach, describe, expect, it, vi } from 'vitest';
import { PREFETCH_FRESH_MS, freshForMount } from './prefetch-freshness.ts';

describe('freshForMount', () => {
  afterEach(() => vi.useRealTimers());
  const at = (dataUpdatedAt: number, isInvalidated = false) => ({ state: { dataUpdatedAt, isInvalidated } });

  it('takes an answer the shell asked for in the last 2 s as the page\'s own, and asks again past that or once invalidated', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const asked = Date.now();
    expect(freshForMount(at(asked))).toBe(false);
    vi.advanceTimersByTime(PREFETCH_FRESH_MS);
    expect(freshForMount(at(asked))).toBe(false);
    vi.advanceTimersByTime(1);
    expect(freshForMount(at(asked))).toBe(true);
    // A trade command invalidated it meanwhile: asked again, however recent.
    expect(freshForMount(at(Date.now(), true))).toBe(true);
  });
});
