import { allProjections } from '@oj/projections/catalogue';
import { projectorMetrics } from '@oj/projections/runtime/metrics';
import { readLag } from '@oj/projections/runtime/registry';
import type { Runtime } from './runtime.ts';

/**
 * Services mode: the projector runs in its own process, which serves no HTTP. The gateway's `/metrics`
 * answers the projection lag per projection and lane instead, computed at scrape time from the shared
 * registry, lane checkpoints and the log (the same computation as the projector's own gauges).
 */
export function exportProjectionLag(runtime: Runtime): void {
  const { config, database, eventStore, metrics } = runtime.deps;
  projectorMetrics(metrics, () => readLag(database.db, eventStore, allProjections, config.PROJECTOR_LANES));
}
