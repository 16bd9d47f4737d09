import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { LaneLag } from './registry.ts';

export interface ProjectorMetrics {
  applied: Counter<'projection' | 'lane'>;
  batchDuration: Histogram<'lane' | 'transport'>;
  /**
   * Lane batches refused, failed or dropped, by reason (`gap`, `version`, `revision`, `fenced`, `error`;
   * `lost`: handed again after Redis lost them; `foreign`: dropped, queued on another copy of the log).
   */
  laneFailures: Counter<'lane' | 'reason'>;
  /** 1 while a lane keeps failing on the same batch (alert on it), 0 once it applies again. */
  laneStuck: Gauge<'lane'>;
  /** BullMQ only: lane batches applied with the events of the batches before them read from the log (a gap filled). */
  laneGapFills: Counter<'lane'>;
  /**
   * BullMQ only: how long the dispatcher held its next read while a lane it had just handed a batch to had
   * not started it; `outcome` is `started` (every such lane took its batch) or `deadline` (it waited the
   * whole `busyLaneWaitMs`: a lane's worker is behind or down).
   */
  busyLaneWait: Histogram<'outcome'>;
}

/** The projector running in this process answers the lag gauges (one per registry). */
const lagSources = new WeakMap<Registry, () => Promise<LaneLag[]>>();

function getOrCreate<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

/**
 * Lag is computed when Prometheus scrapes (both gauges share one computation per scrape), so it is
 * exact at scrape time and costs nothing between scrapes.
 */
export function projectorMetrics(registry: Registry, lag: () => Promise<LaneLag[]>): { metrics: ProjectorMetrics; detach(): void } {
  lagSources.set(registry, lag);
  let pending: { at: number; value: Promise<LaneLag[]> } | null = null;
  const current = () => {
    const source = lagSources.get(registry);
    if (!source) return Promise.resolve([]);
    if (!pending || Date.now() - pending.at > 1000) pending = { at: Date.now(), value: source().catch(() => []) };
    return pending.value;
  };
  getOrCreate(registry, 'oj_projector_lag_events', () =>
    new Gauge({
      name: 'oj_projector_lag_events',
      help: 'Events in the log not yet applied, per projection and lane',
      labelNames: ['projection', 'lane'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const l of await current()) this.set({ projection: l.projection, lane: String(l.lane) }, l.behindEvents);
      },
    }),
  );
  getOrCreate(registry, 'oj_projector_lag_seconds', () =>
    new Gauge({
      name: 'oj_projector_lag_seconds',
      help: 'Age of the oldest event not yet applied, per projection and lane (0 when caught up)',
      labelNames: ['projection', 'lane'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const l of await current()) this.set({ projection: l.projection, lane: String(l.lane) }, l.behindSeconds);
      },
    }),
  );
  const applied = getOrCreate(
    registry,
    'oj_projector_events_applied_total',
    () => new Counter({ name: 'oj_projector_events_applied_total', help: 'Events applied to live read models', labelNames: ['projection', 'lane'], registers: [registry] }),
  );
  const batchDuration = getOrCreate(
    registry,
    'oj_projector_batch_duration_seconds',
    () =>
      new Histogram({
        name: 'oj_projector_batch_duration_seconds',
        help: 'Time to apply one lane batch (one transaction)',
        labelNames: ['lane', 'transport'],
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
        registers: [registry],
      }),
  );
  const laneFailures = getOrCreate(
    registry,
    'oj_projector_lane_failures_total',
    () =>
      new Counter({
        name: 'oj_projector_lane_failures_total',
        help: 'Lane batches refused or failed (gap: an earlier batch is pending; version: code and data versions out of step; revision: a stream revision gap; fenced: a stale dispatcher; error: anything else)',
        labelNames: ['lane', 'reason'],
        registers: [registry],
      }),
  );
  const laneStuck = getOrCreate(
    registry,
    'oj_projector_lane_stuck',
    () => new Gauge({ name: 'oj_projector_lane_stuck', help: '1 while a lane keeps failing on the same batch (its users read models stand still)', labelNames: ['lane'], registers: [registry] }),
  );
  const laneGapFills = getOrCreate(
    registry,
    'oj_projector_lane_gap_fills_total',
    () =>
      new Counter({
        name: 'oj_projector_lane_gap_fills_total',
        help: 'Lane batches applied with the events of the batches before them read from the log (those batches were held by a dead worker or waiting in retries)',
        labelNames: ['lane'],
        registers: [registry],
      }),
  );
  const busyLaneWait = getOrCreate(
    registry,
    'oj_projector_busy_lane_wait_seconds',
    () =>
      new Histogram({
        name: 'oj_projector_busy_lane_wait_seconds',
        help: 'Time the dispatcher held its next read for a lane that had not started the batch it was handed (outcome: started, or deadline when it waited the whole busy-lane wait)',
        labelNames: ['outcome'],
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
        registers: [registry],
      }),
  );
  return {
    metrics: { applied, batchDuration, laneFailures, laneStuck, laneGapFills, busyLaneWait },
    detach() {
      if (lagSources.get(registry) === lag) lagSources.delete(registry);
    },
  };
}
