import { Queue, type ConnectionOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import type { Registry } from 'prom-client';
import type { LagSample, LaneError, OperationsLive, RebuildState } from '@oj/contracts/operations';
import { readRoutedLag } from '@oj/projections/runtime/registry';
import { laneQueueName } from '@oj/projections/runtime/projector';
import { endRedisClient } from '@oj/infra/connection-errors';
import type { RuntimeDeps } from '@oj/projections/runtime/rebuild';
import { BullRebuilds, InProcessRebuilds, STOPPED_FOR_RESTART, type RebuildRunner } from './rebuilds.ts';
import { SYSTEM_ACTOR, recordActionOnce } from './actions.ts';
import { rebuildEnd } from './commands.ts';

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

/** A lane error with no attempts: no projector process works the lane's queue on this Redis. */
export const NO_LANE_WORKER =
  'No projector works this lane on this Redis: start `npm run projector` with the same REDIS_URL and BULLMQ_PREFIX, and this lane in its PROJECTOR_WORK_LANES (or none set). Its batches wait in the queue meanwhile.';

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
  /** Rebuild ends this console has appended to the operator log (or found there already). */
  readonly #endsRecorded = new Set<string>();
  /** Rebuilds whose request is being answered: their end waits for the request's own entry. */
  readonly #held = new Map<string, number>();
  #recordingEnds: Promise<void> = Promise.resolve();

  constructor(options: ConsoleOptions) {
    this.#options = options;
    this.transport = options.bull ? 'bullmq' : 'in-process';
    this.sampleSeconds = options.sampleSeconds ?? SAMPLE_SECONDS;
    this.rebuilds = options.bull ? new BullRebuilds(options.bull.connection, options.bull.prefix, () => options.deps().projections) : new InProcessRebuilds(options.deps);
  }

  /** Starts sampling (idempotent) and resolves once there is at least one sample. */
  async ensureStarted(): Promise<void> {
    if (this.#closed) return;
    if (!this.#timer) {
      this.#unsubscribe = this.rebuilds.onChange(() => {
        this.#emit({ type: 'rebuilds' });
        void this.recordEnds();
      });
      this.#timer = setInterval(() => void this.sample(), this.sampleSeconds * 1000);
      this.#timer.unref();
      // Ends of rebuilds that finished while no console watched (a job of the last day) are appended too.
      void this.recordEnds();
      await this.sample();
    } else if (!this.#history.length) await this.sample();
  }

  /**
   * Appends to the operator log how each finished rebuild ended (commands.ts `rebuildEnd`), once: every
   * gateway's console sees a BullMQ job end, and each appends it with the same ref, which the table
   * takes once. Runs one at a time; resolves when the rebuilds known now are recorded.
   */
  /**
   * A rebuild request is being answered: the end of that rebuild is not logged before the request's own
   * entry (a one-user recompute can end before its request is logged). `release` once it is logged;
   * `answered`: the state the answer gave, whose entry already says how it ended if it had.
   */
  holdEnds(id: string): void {
    this.#held.set(id, (this.#held.get(id) ?? 0) + 1);
  }

  releaseEnds(id: string, answered?: RebuildState): Promise<void> {
    const n = (this.#held.get(id) ?? 1) - 1;
    if (n > 0) this.#held.set(id, n);
    else this.#held.delete(id);
    const told = answered ? rebuildEnd(answered) : null;
    if (told) this.#endsRecorded.add(told.ref);
    return this.recordEnds();
  }

  recordEnds(): Promise<void> {
    this.#recordingEnds = this.#recordingEnds.then(async () => {
      try {
        const db = this.#options.deps().database.db;
        for (const state of await this.rebuilds.list()) {
          // Not an end: a console rebuild stopped with the server resumes at the next start, and one
          // refused at once (a CLI rebuild holds the lock) never started (its request is logged refused).
          if (state.error === STOPPED_FOR_RESTART || (this.rebuilds.kind === 'in-process' && state.phase === 'failed' && /already running/.test(state.error ?? ''))) continue;
          const end = rebuildEnd(state);
          if (!end || this.#endsRecorded.has(end.ref) || this.#held.has(state.id)) continue;
          await recordActionOnce(db, SYSTEM_ACTOR, end);
          this.#endsRecorded.add(end.ref);
        }
      } catch (err) {
        this.#options.onError?.(err, 'record rebuild ends');
      }
    });
    return this.#recordingEnds;
  }

  /** Takes one lag sample now (also what the timer runs); concurrent calls share one. */
  sample(): Promise<void> {
    this.#sampling ??= this.#takeSample().finally(() => (this.#sampling = null));
    return this.#sampling;
  }

  async #takeSample(): Promise<void> {
    try {
      const deps = this.#options.deps();
      const lag = await readRoutedLag(deps.database.db, deps.eventStore, deps.projections, deps.lanes);
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
      // Nobody working the lane is the cause whatever its jobs last failed on (QA: a projector pointed at
      // another Redis left lane 0 behind under an old gap error, and lane 1 "caught up" with no worker).
      if ((await q.getWorkersCount()) === 0) {
        out.push({ lane, message: NO_LANE_WORKER, attempts: 0, at: null });
        continue;
      }
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
    // The ends seen so far; then, in process, of the rebuilds that finished while stopping (listing a
    // closed BullMQ runner would open its queue again).
    // Not with Redis unreachable: listing the BullMQ runner's jobs would wait for a connection that may not
    // come (QA: the shutdown deadline); another console, or this one at its next start, records them.
    if (this.rebuilds.reachable) await this.recordEnds();
    await this.rebuilds.close();
    if (this.rebuilds.kind === 'in-process') await this.recordEnds();
    await Promise.all([...this.#laneQueues.values()].map((q) => q.close().catch(() => undefined)));
    if (this.#laneRedis) await endRedisClient(this.#laneRedis);
    this.#listeners.clear();
  }
}
