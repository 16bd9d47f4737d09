import type { Registry } from 'prom-client';

/** What a live run's projector is started with, wherever it runs (the bench's process or its own). */
export function benchProjectorOptions(redisUrl: string | undefined, prefix: string) {
  return { config: { PROJECTOR_LANES: 4, REDIS_URL: redisUrl }, bullPrefix: prefix, pollMs: 20 };
}

/** What a projector did over a run: each lane batch's size, and the lanes' apply time summed. */
export interface Measured {
  batchSizes: number[];
  applySeconds: number;
}

/**
 * What the projector did since the last call: the batches `onApplied` pushed to `batchSizes` (taken out),
 * and the growth of the batch duration histogram's sum.
 */
export function measuredSince(metrics: Registry, batchSizes: number[]): () => Promise<Measured> {
  let appliedBefore = 0;
  return async () => {
    const duration = (await metrics.getSingleMetric('oj_projector_batch_duration_seconds')?.get())?.values ?? [];
    const applied = duration.filter((v) => (v as { metricName?: string }).metricName?.endsWith('_sum')).reduce((a, v) => a + v.value, 0);
    const measured = { batchSizes: batchSizes.splice(0), applySeconds: applied - appliedBefore };
    appliedBefore = applied;
    return measured;
  };
}

/** `bench/projector-process.ts`'s argument. */
export interface ProjectorProcessSetup {
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  preparedStatements: 'auto' | 'off';
}

export type ProjectorProcessMessage = { t: 'ready' } | { t: 'taken'; measured: Measured };
