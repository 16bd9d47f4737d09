import { PerformanceObserver, constants } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { Gauge, type Registry } from 'prom-client';

/**
 * The V8 heap in use right after the last full (mark-compact) collection: the memory the process
 * really holds. Resident memory and `nodejs_heap_size_used_bytes` also count the garbage V8 lets pile up
 * between collections, which it lets grow for minutes on a machine with memory to spare; a leak shows
 * here, as a live heap that keeps rising from one full collection to the next.
 *
 * Returns a function that stops observing (the runtime's close).
 */
export function observeLiveHeap(registry: Registry): () => void {
  const gauge = new Gauge({
    name: 'nodejs_heap_live_after_major_gc_bytes',
    help: 'V8 heap in use right after the last full (mark-compact) garbage collection',
    registers: [registry],
  });
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) gauge.set(getHeapStatistics().used_heap_size);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}
