import { Registry } from 'prom-client';
import type { Database } from '@oj/infra/db/database';
import type { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { createLogger } from '@oj/infra/logger';
import { startProjector } from '@oj/projections/runtime/projector';
import { tradesProjection } from '@oj/projections/trades/projection';

/** What a projector did over a run: each lane batch's size, and the lanes' apply time summed. */
export interface Measured {
  batchSizes: number[];
  applySeconds: number;
}

/**
 * A live run's projector, started and caught up to the head. `take` gives what it measured since the
 * last `take`: each lane batch's size, and the lanes' apply time summed (the batch duration histogram's sum).
 */
export interface LiveProjector {
  take(): Promise<Measured>;
  stop(): Promise<void>;
}

/**
 * The live runs' projector of the trades read models, wherever it runs (the bench's process, or its own:
 * `projector-process.ts`): 4 lanes, BullMQ with `redisUrl`, else in process; caught up to the head.
 */
export async function startLiveProjector(o: { database: Database; eventStore: PostgresEventStore; redisUrl: string | undefined; prefix: string }): Promise<LiveProjector> {
  const metrics = new Registry();
  const batchSizes: number[] = [];
  const projector = await startProjector({
    config: { PROJECTOR_LANES: 4, REDIS_URL: o.redisUrl },
    database: o.database,
    eventStore: o.eventStore,
    logger: createLogger('warn'),
    metrics,
    projections: [tradesProjection],
    bullPrefix: o.prefix,
    pollMs: 20,
    onApplied: (b) => void batchSizes.push(b.events.length),
  });
  await projector.waitFor('head', 120_000);
  let appliedBefore = 0;
  return {
    async take() {
      const duration = (await metrics.getSingleMetric('oj_projector_batch_duration_seconds')?.get())?.values ?? [];
      const applied = duration.filter((v) => (v as { metricName?: string }).metricName?.endsWith('_sum')).reduce((a, v) => a + v.value, 0);
      const measured = { batchSizes: batchSizes.splice(0), applySeconds: applied - appliedBefore };
      appliedBefore = applied;
      return measured;
    },
    stop: () => projector.stop(),
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
