import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { observeLiveHeap } from './live-heap.ts';

const value = async (registry: Registry) => (await registry.getSingleMetric('nodejs_heap_live_after_major_gc_bytes')!.get()).values[0]?.value;

describe('live heap after a full collection', () => {
  it('is set by a full collection, and holds a heap that garbage does not move', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as (options?: { type: 'major' }) => void;
    const registry = new Registry();
    const stop = observeLiveHeap(registry);
    try {
      expect(await value(registry)).toBe(0);
      gc({ type: 'major' });
      await new Promise((r) => setTimeout(r, 50));
      const before = (await value(registry))!;
      expect(before).toBeGreaterThan(1_000_000);
      // 100 MB of garbage, then a full collection: the live heap is where it was, within a few MB.
      for (let i = 0; i < 100; i++) void new Array(125_000).fill(i);
      gc({ type: 'major' });
      await new Promise((r) => setTimeout(r, 50));
      const after = (await value(registry))!;
      expect(Math.abs(after - before)).toBeLessThan(10_000_000);
      // 50 MB kept: the live heap rises by as much.
      const kept = Array.from({ length: 50 }, (_, i) => new Array(125_000).fill(i + 0.5));
      gc({ type: 'major' });
      await new Promise((r) => setTimeout(r, 50));
      expect((await value(registry))! - after).toBeGreaterThan(45_000_000);
      expect(kept.length).toBe(50);
    } finally {
      stop();
    }
  });
});
