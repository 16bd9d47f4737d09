import { allProjections } from '@oj/projections/catalogue';
import { projectorMetrics } from '@oj/projections/runtime/metrics';
import { readRoutedLag } from '@oj/projections/runtime/registry';
import type { Runtime } from './runtime.ts';

/**
 * Services mode: the projector runs in its own process, which serves no HTTP. The gateway's `/metrics`
 * answers the projection lag per projection and lane instead, computed at scrape time from the shared
 * registry, lane checkpoints and the log (the same computation as the projector's own gauges), for the
 * lanes the dispatcher routes with, whatever this process's PROJECTOR_LANES.
 */
export function exportProjectionLag(runtime: Runtime): void {
  const { config, database, eventStore, metrics } = runtime.deps;
  projectorMetrics(metrics, () => readRoutedLag(database.db, eventStore, allProjections, config.PROJECTOR_LANES));
}
