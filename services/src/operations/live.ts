import { Queue, type ConnectionOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import type { Registry } from 'prom-client';
import type { LagSample, LaneError, OperationsLive } from '@oj/contracts/operations';
import { readLag } from '@oj/projections/runtime/registry';
import { laneQueueName } from '@oj/projections/runtime/projector';
import type { RuntimeDeps } from '@oj/projections/runtime/rebuild';
import { BullRebuilds, InProcessRebuilds, type RebuildRunner } from './rebuilds.ts';

export const SAMPLE_SECONDS = 5;
const HISTORY_MS = 15 * 60 * 1000;

export interface ConsoleOptions {
  deps: () => RuntimeDeps;
  /** BullMQ connection and prefix when REDIS_URL is set (lanes and rebuilds are queues then). */
  bull: { connection: ConnectionOptions; prefix: string } | null;
  sampleSeconds?: number;
  /** This process's metrics: in process, the projector's stuck-lane gauge is read from it. */
  metrics?: Registry;
  onError?: (err: unknown, what: string) => void;
}

export type LiveEvent = { type: 'rebuilds' } | { type: 'lag'; sample: LagSample; laneErrors: LaneError[] };

/**
 * The console's live side, one per gateway process: the rebuild runner, and a lag sampler that keeps
 * the last 15 minutes per lane in memory (each gateway samples the shared registry and log itself, so
 * any gateway answers the same history). The sampler starts with the first console request rather than
 * with the gateway: a gateway nobody operates costs nothing.
 */
export class OperationsConsole {
  readonly rebuilds: RebuildRunner;
  readonly transport: 'bullmq' | 'in-process';
  readonly sampleSeconds: number;
  readonly #options: ConsoleOptions;
  readonly #history: LagSample[] = [];
  #laneErrors: LaneError[] = [];
  readonly #listeners = new Set<(e: LiveEvent) => void>();
  readonly #laneQueues = new Map<number, Queue>();
  #laneRedis: Redis | null = null;
  #timer: NodeJS.Timeout | null = null;
  #sampling: Promise<void> | null = null;
  #closed = false;
  #unsubscribe: (() => void) | null = null;

  constructor(options: ConsoleOptions) {
    this.#options = options;
    this.transport = options.bull ? 'bullmq' : 'in-process';
    this.sampleSeconds = options.sampleSeconds ?? SAMPLE_SECONDS;
    this.rebuilds = options.bull ? new BullRebuilds(options.bull.connection, options.bull.prefix) : new InProcessRebuilds(options.deps);
  }

  /** Starts sampling (idempotent) and resolves once there is at least one sample. */
  async ensureStarted(): Promise<void> {
    if (this.#closed) return;
    if (!this.#timer) {
      this.#unsubscribe = this.rebuilds.onChange(() => this.#emit({ type: 'rebuilds' }));
      this.#timer = setInterval(() => void this.sample(), this.sampleSeconds * 1000);
      this.#timer.unref();
      await this.sample();
    } else if (!this.#history.length) await this.sample();
  }

  /** Takes one lag sample now (also what the timer runs); concurrent calls share one. */
  sample(): Promise<void> {
    this.#sampling ??= this.#takeSample().finally(() => (this.#sampling = null));
    return this.#sampling;
  }

  async #takeSample(): Promise<void> {
    try {
      const deps = this.#options.deps();
      const lag = await readLag(deps.database.db, deps.eventStore, deps.projections, deps.lanes);
      const sample: LagSample = {
        at: new Date().toISOString(),
        lanes: lag.map((l) => ({ projection: l.projection, lane: l.lane, behindEvents: l.behindEvents, behindSeconds: Math.round(l.behindSeconds * 10) / 10 })),
      };
      this.#history.push(sample);
      const cutoff = Date.now() - HISTORY_MS;
      while (this.#history.length && Date.parse(this.#history[0]!.at) < cutoff) this.#history.shift();
      this.#laneErrors = await this.#readLaneErrors(deps.lanes);
      this.#emit({ type: 'lag', sample, laneErrors: this.#laneErrors });
    } catch (err) {
      this.#options.onError?.(err, 'lag sample');
    }
  }

  /**
   * BullMQ mode: a lane that keeps failing retries its job with a backoff, so the job waits `delayed`
   * with the reason of its last failure. A gap error only means an earlier batch is pending: the
   * earliest job's own error is the cause, so real errors are listed before gap errors.
   * In process, a failing batch is retried by the dispatcher and its error is only in the log.
   */
  async #readLaneErrors(lanes: number): Promise<LaneError[]> {
    const bull = this.#options.bull;
    if (!bull) return this.#stuckInProcess();
    const out: LaneError[] = [];
    for (let lane = 0; lane < lanes; lane++) {
      // One Redis connection for every lane queue read here.
      this.#laneRedis ??= new Redis(bull.connection as RedisOptions).on('error', (err) => this.#options.onError?.(err, 'lane queues'));
      let q = this.#laneQueues.get(lane);
      if (!q) this.#laneQueues.set(lane, (q = new Queue(laneQueueName(lane), { connection: this.#laneRedis, prefix: bull.prefix })));
      const jobs = (await q.getJobs(['delayed', 'active', 'waiting'], 0, 20)).filter((j) => j && j.failedReason && j.attemptsMade > 0);
      jobs.sort((a, b) => Number(/LaneGapError|not applied yet/.test(a.failedReason)) - Number(/LaneGapError|not applied yet/.test(b.failedReason)) || a.timestamp - b.timestamp);
      const j = jobs[0];
      if (j) out.push({ lane, message: j.failedReason, attempts: j.attemptsMade, at: j.processedOn ? new Date(j.processedOn).toISOString() : null });
    }
    return out;
  }

  /**
   * In process the projector keeps no failed job to read: it marks a lane that keeps failing with the
   * `oj_projector_lane_stuck` gauge (and counts failures by reason) in this process's registry, and
   * logs the error itself.
   */
  async #stuckInProcess(): Promise<LaneError[]> {
    const registry = this.#options.metrics;
    const stuck = registry?.getSingleMetric('oj_projector_lane_stuck');
    if (!stuck) return [];
    const failures = registry?.getSingleMetric('oj_projector_lane_failures_total');
    const counts = new Map<string, { n: number; reasons: string[] }>();
    for (const v of failures ? (await failures.get()).values : []) {
      const lane = String(v.labels.lane);
      const c = counts.get(lane) ?? { n: 0, reasons: [] };
      c.n += v.value;
      if (v.value > 0) c.reasons.push(String(v.labels.reason));
      counts.set(lane, c);
    }
    return (await stuck.get()).values
      .filter((v) => v.value > 0)
      .map((v) => {
        const c = counts.get(String(v.labels.lane));
        return {
          lane: Number(v.labels.lane),
          message: `Keeps failing on the same batch${c?.reasons.length ? ` (${c.reasons.join(', ')})` : ''}: the error is in the projector's log ("lane batch failed").`,
          attempts: c?.n ?? 0,
          at: null,
        };
      })
      .sort((a, b) => a.lane - b.lane);
  }

  async snapshot(): Promise<OperationsLive & { queuesUrl: null }> {
    return {
      transport: this.transport,
      sampleSeconds: this.sampleSeconds,
      lagHistory: [...this.#history],
      rebuilds: await this.rebuilds.list(),
      laneErrors: this.#laneErrors,
      queuesUrl: null,
    };
  }

  subscribe(listener: (e: LiveEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(e: LiveEvent): void {
    for (const l of this.#listeners) {
      try {
        l(e);
      } catch (err) {
        this.#options.onError?.(err, 'live listener');
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#unsubscribe?.();
    await this.#sampling?.catch(() => undefined);
    await this.rebuilds.close();
    await Promise.all([...this.#laneQueues.values()].map((q) => q.close().catch(() => undefined)));
    await this.#laneRedis?.quit().catch(() => this.#laneRedis?.disconnect());
    this.#listeners.clear();
  }
}
