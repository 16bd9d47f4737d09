import { Queue, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from '@oj/infra/config';
import { isConnectionError } from '@oj/infra/connection-errors';
import { keepConnectionsOpen, type Database } from '@oj/infra/db/database';
import { START, comparePositions, positionFromString, positionToString, type EventStore, type LogPosition, type ProjectedEvent, type Subscription, type WakeUps } from '@oj/infra/eventstore/port';
import { logOriginOf } from '@oj/infra/eventstore/log-origin';
import { LocalSignal } from '@oj/infra/eventstore/subscription';
import { physicalTables, type Projection } from './projection.ts';
import { applyLaneBatch, LaneGapError, type AppliedCount, type LaneBatch } from './apply.ts';
import { LOCK_DISPATCHER, LOCK_REBUILD, tryLock, type SessionLock } from './locks.ts';
import { fromWire, laneOf, maxPosition, minPosition, toWire, type WireEvent } from './lanes.ts';
import { projectorMetrics } from './metrics.ts';
import { settleAll } from '@oj/infra/settle';
import type { StartupProgress } from '@oj/contracts/common';
import { claimTerm, DispatcherFencedError, issueVersion, lanesHandedOut, readCheckpoints, readDispatcher, readLag, readRegistry, recordDispatch, runnable, writeLaneCheckpoints, type LaneLag } from './registry.ts';
import { rebuild, RebuildLockedError } from './rebuild.ts';
import { relane } from './relane.ts';
import { RebuildStoppingError, startRebuildWorker, type RebuildWorker } from './rebuild-job.ts';

export interface ProjectorOptions {
  config: Pick<Config, 'PROJECTOR_LANES' | 'REDIS_URL'> & Partial<Pick<Config, 'PROJECTOR_WORK_LANES' | 'BULLMQ_PREFIX'>>;
  database: Database;
  eventStore: EventStore;
  logger: Logger;
  metrics: Registry;
  projections: readonly Projection[];
  /** BullMQ key prefix (tests isolate with a unique one). Default: `config.BULLMQ_PREFIX`, else `oj` (DEFAULT_BULL_PREFIX). */
  bullPrefix?: string;
  /** Events per dispatcher read (default 1000). */
  readBatch?: number;
  /**
   * With BullMQ lanes: how long in ms the dispatcher waits before its next read while a lane it just
   * handed a batch to has not started it yet (default 50; 0 never waits). A lane batch costs a
   * transaction, a WAL flush and BullMQ's round trips however few events it holds: read at every
   * append, 1,000 appends a second became batches of about 5 events, more than the lanes could apply.
   * Waiting only while a lane is behind keeps the lag of a quiet lane as it was, and lets the batches
   * of a busy one grow with its backlog (what the in-process transport does by itself). The wait ends
   * as soon as the lane has started the batch (asked every `BUSY_LANE_CHECK_MS`): a job the lane's worker
   * was about to take is not a backlog, and a whole wait for it was most of the p99 at 200 events/s.
   */
  busyLaneWaitMs?: number;
  /**
   * Safety-net poll of the idle dispatcher in ms (default 1000). New events wake it at once through the
   * store's subscription (NOTIFY / in-process signal / EventStoreDB push); `waitFor` wakes it too.
   */
  pollMs?: number;
  /** Called after a lane batch committed (in this process), e.g. to measure live lag. */
  onApplied?: (batch: LaneBatch) => void;
  /** Run the dispatcher (default true). False: only lane workers (extra projector processes). */
  dispatch?: boolean;
  /** How often a standby tries for the dispatcher's lead, in ms (default 2000): its takeover time at most. */
  electionMs?: number;
  /** Run lane workers (default true; BullMQ mode only). */
  work?: boolean;
  /**
   * Lanes this process works (default: all). Several projector processes may work the same lane
   * safely (the checkpoint row serializes them, a gap is retried), but splitting lanes avoids retries.
   * Default: `config.PROJECTOR_WORK_LANES`.
   */
  workLanes?: readonly number[];
  /**
   * Build read models the projector finds without a live version built by the running code:
   * `'missing'` only those with no live version (default with Redis: operators rebuild changed
   * formulas themselves), `'outdated'` also those whose live version has older formulas (default
   * in-process: embedded mode has no operator).
   */
  autoBuild?: 'missing' | 'outdated';
  /** Work the `projector-rebuild` queue (default true; BullMQ mode only). */
  rebuilds?: boolean;
  /** Lock duration of rebuild jobs in ms (default 30 s): how soon a killed projector's rebuild is taken over. */
  rebuildLockMs?: number;
  /** Lock duration of lane jobs in ms (default 30 s): how soon a killed projector's lane batch is taken over. */
  laneLockMs?: number;
  /**
   * A lane whose batches have failed without one succeeding for this long (ms, default 60 s) is stuck:
   * `oj_projector_lane_stuck{lane}` is 1 and an error is logged (again every interval while it lasts).
   */
  stuckAfterMs?: number;
  /**
   * A lane batch failure alike to the last one logged for its lane (same reason and message) is logged
   * again at most once in this long (ms, default 30 s), with how many there were since; it is counted in
   * `oj_projector_lane_failures_total` every time (QA 75: 717 stacks in 64 s for one skewed lane).
   */
  failureLogIntervalMs?: number;
  /**
   * How often (ms, default 10 s) the dispatcher checks BullMQ lanes for batches lost from Redis; a lane
   * is re-dispatched after two checks that found it behind, not moving, with nothing queued to continue it.
   */
  lostBatchCheckMs?: number;
  /** Test hook: awaited by the dispatcher just before it records a dispatched read (to stage a stale leader). */
  beforePersist?: () => Promise<void>;
}

export interface ProjectorHandle {
  readonly transport: 'bullmq' | 'in-process';
  /** Resolves once every live projection has applied the log up to `target` (or its head now). */
  waitFor(target: LogPosition | 'head', timeoutMs?: number): Promise<void>;
  lag(): Promise<LaneLag[]>;
  /** Whether this process holds the dispatcher lock. */
  isLeader(): boolean;
  /**
   * What the start still does before the read models answer for the whole log: building the read models
   * this code has none of (`autoBuild`), then reading the log up to its head as it was then; null
   * since. In process the events read are applied too; with BullMQ they are handed to the lanes. A
   * process that is not elected dispatcher is done at once (another process dispatches).
   */
  startup(): StartupProgress | null;
  /** Settles once `startup()` is null (rejects if the projector stops before). */
  readonly startedUp: Promise<void>;
  stop(): Promise<void>;
}

export const DEFAULT_BULL_PREFIX = 'oj';

/** The `reason` label of `oj_projector_lane_failures_total` for a lane batch failure. */
export function failureReason(err: unknown): 'gap' | 'version' | 'revision' | 'fenced' | 'error' {
  const name = err instanceof Error ? err.name : '';
  if (name === 'LaneGapError') return 'gap';
  if (name === 'ProjectionVersionError') return 'version';
  if (name === 'StreamRevisionError') return 'revision';
  if (name === 'DispatcherFencedError') return 'fenced';
  return 'error';
}

export const laneQueueName = (lane: number) => `projector-lane-${lane}`;

/**
 * The BullMQ options of every lane worker; every process working a lane queue must use the same (the
 * stalled check is throttled per queue by whichever worker ran it last, see rebuildWorkerOptions).
 */
export function laneWorkerOptions(lockDuration = 30_000) {
  return {
    concurrency: 1,
    lockDuration,
    stalledInterval: Math.max(500, Math.floor(lockDuration / 2)),
    // A batch whose worker died (however often) goes back to its lane, never to the failed set: BullMQ's
    // default (1) fails it for good on the second death, and every later batch of the lane then waits
    // behind it forever.
    maxStalledCount: Number.MAX_SAFE_INTEGER,
    // An idle worker blocks on the queue's marker and an added job wakes it at once; the drain
    // delay only bounds that block (no latency), and nothing in a lane job is delayed.
    // A gap resolves as soon as the earlier job lands: retry quickly, and never give up on a
    // lane (skipping a batch would break the user's order); a handler bug shows as a stuck lane.
    settings: { backoffStrategy: (attempts: number) => Math.min(5000, 20 * 2 ** Math.min(attempts, 8)) },
  };
}

interface LaneJob {
  lane: number;
  prev: string;
  events: WireEvent[];
  /**
   * The origin of the log whose positions the batch carries (`logOriginOf`: the cluster and database).
   * Jobs from before a logical restore (Redis kept, the database copied with pg_dump and restamped)
   * carry positions of the old copy; absent in jobs of releases before 3 December 2026.
   */
  origin?: string;
}

export function redisConnection(url: string): ConnectionOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : 6379,
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * How often a dispatcher waiting on a busy lane asks whether it has started its batch (`busyLaneWaitMs`).
 * Measured with the runtime's lag bench (`lag-bench.ts`, AMD EPYC, BullMQ p99): at 200 events/s 19 to
 * 20 ms against 57 to 62 with one sleep of the whole wait; at 1,000 events/s 33 to 36 ms against 72 (10 ms
 * apart: 34; 20: 44), for about a quarter more of the process's CPU (more, smaller batches).
 */
const BUSY_LANE_CHECK_MS = 5;
/**
 * First re-read after a read that found less than the subscription showed, or while events are held back
 * (doubles up to pollMs; while held, up to HELD_MAX_MS).
 */
const QUICK_MS = 5;
/** Re-reads while events are held back come at least this often: the hiding transaction's end wakes nobody. */
const HELD_MAX_MS = 250;

/**
 * The projector: one dispatcher (leader-elected with an advisory lock) reads the global log from its
 * checkpoint and routes each event to lane `hash(userId) % N`; lanes apply batches with
 * `applyLaneBatch`. With REDIS_URL a lane is a BullMQ queue with one worker at concurrency 1; without
 * it the dispatcher applies each lane's batch itself, in log order. Only the transport differs.
 */
export async function startProjector(options: ProjectorOptions): Promise<ProjectorHandle> {
  const { database, eventStore, logger, projections } = options;
  const db = database.db;
  const lanes = options.config.PROJECTOR_LANES;
  const transport: 'bullmq' | 'in-process' = options.config.REDIS_URL ? 'bullmq' : 'in-process';
  const prefix = options.bullPrefix ?? options.config.BULLMQ_PREFIX ?? DEFAULT_BULL_PREFIX;
  const readBatch = options.readBatch ?? 1000;
  const busyLaneWaitMs = transport === 'bullmq' ? (options.busyLaneWaitMs ?? 50) : 0;
  const workLanes = options.workLanes ?? options.config.PROJECTOR_WORK_LANES;
  const pollMs = options.pollMs ?? 1000;
  const autoBuild = options.autoBuild ?? (transport === 'in-process' ? 'outdated' : 'missing');
  const streamPrefixes = [...new Set(projections.flatMap((p) => p.streamPrefixes))];
  const log = logger.child({ component: 'projector' });
  const lagOf = () => readLag(db, eventStore, projections, lanes);
  const { metrics, detach } = projectorMetrics(options.metrics, lagOf);
  const stuckAfterMs = options.stuckAfterMs ?? 60_000;
  /** Per lane: when its current run of failures began (no batch applied since), and the last stuck alert. */
  const failingSince = new Map<number, number>();
  const stuckLogged = new Map<number, number>();
  /** Per lane: the failure last logged in full, when, and how many alike were not logged since. */
  const failureLogged = new Map<number, { alike: string; at: number; since: number }>();
  const failureLogIntervalMs = options.failureLogIntervalMs ?? 30_000;

  let stopped = false;
  let stopping: Promise<void> | undefined;
  let startup: StartupProgress | null = { phase: 'preparing', done: 0, total: null, retrying: false };
  const startedUp = {} as { promise: Promise<void>; resolve: () => void; reject: (err: Error) => void };
  startedUp.promise = new Promise<void>((resolve, reject) => Object.assign(startedUp, { resolve, reject }));
  startedUp.promise.catch(() => undefined);
  const startedUpNow = () => {
    startup = null;
    startedUp.resolve();
  };
  let leader: SessionLock | null = null;
  let seen: LogPosition = START;
  let wake: (() => void) | null = null;
  // Set by a wake-up that came while the dispatcher was busy reading: the next idle returns at once,
  // so a wake-up is never lost between "read found nothing" and "start waiting".
  let woken = false;
  const nudge = () => {
    woken = true;
    const w = wake;
    wake = null;
    w?.();
  };
  const idle = (ms: number) => {
    if (woken) {
      woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const t = setTimeout(() => ((wake = null), resolve()), ms);
      wake = () => (clearTimeout(t), (woken = false), resolve());
    });
  };
  /** The furthest position the store's subscription has shown us (where it has no `wakeUps`): visible to readers, so due. */
  let notified: LogPosition = START;

  const record = (lane: number, counts: AppliedCount[], seconds: number) => {
    metrics.batchDuration.observe({ lane: String(lane), transport }, seconds);
    for (const c of counts) if (c.applied) metrics.applied.inc({ projection: c.projection, lane: String(lane) }, c.applied);
  };
  /**
   * Every failed lane batch is counted by reason. A gap is routine (an earlier batch of the lane is
   * still pending or being retried) and logged at debug level; anything else means a lane that cannot
   * move until someone acts (version skew, a revision gap, a handler bug): error level.
   */
  const laneFailed = (lane: number, err: unknown) => {
    const reason = failureReason(err);
    metrics.laneFailures.inc({ lane: String(lane), reason });
    const now = Date.now();
    if (reason === 'gap') log.debug({ lane }, (err as Error).message);
    else {
      const alike = `${reason}:${err instanceof Error ? err.message : String(err)}`;
      const last = failureLogged.get(lane);
      if (last && last.alike === alike && now - last.at < failureLogIntervalMs) last.since++;
      else {
        const again = last?.alike === alike && last.since > 0 ? { alikeSinceLastLine: last.since } : {};
        log.error({ lane, reason, err, ...again }, again.alikeSinceLastLine ? `lane batch failed; retrying (${again.alikeSinceLastLine} failures alike since the last line)` : 'lane batch failed; retrying');
        failureLogged.set(lane, { alike, at: now, since: 0 });
      }
    }
    // A gap is routine for a moment (the earlier batch lands next); failures with no success between
    // them for stuckAfterMs are an alert, whatever the reason: the lane's users' read models stand still.
    const since = failingSince.get(lane) ?? now;
    failingSince.set(lane, since);
    if (now - since >= stuckAfterMs && now - (stuckLogged.get(lane) ?? 0) >= stuckAfterMs) {
      stuckLogged.set(lane, now);
      metrics.laneStuck.set({ lane: String(lane) }, 1);
      log.error({ lane, reason, err, failingForMs: now - since }, 'lane stuck: its batches keep failing and none has applied since; its users read models stand still');
    }
  };
  const laneApplied = (lane: number) => {
    failingSince.delete(lane);
    failureLogged.delete(lane);
    if (stuckLogged.delete(lane)) log.info({ lane }, 'lane applies again');
    metrics.laneStuck.set({ lane: String(lane) }, 0);
  };
  const applyTimed = async (batch: LaneBatch) => {
    const started = performance.now();
    let counts: AppliedCount[];
    try {
      counts = await applyLaneBatch(db, projections, batch);
    } catch (err) {
      laneFailed(batch.lane, err);
      throw err;
    }
    laneApplied(batch.lane);
    record(batch.lane, counts, (performance.now() - started) / 1000);
    options.onApplied?.(batch);
    applied.fire();
  };
  // Local lane workers finishing a batch: BullMQ-mode waiters re-check at once instead of on their timer.
  const applied = new LocalSignal();

  /**
   * The events of (after, upTo] that `lane` gets when routed with `laneCount`, a read of the log at a
   * time (each page non-empty): what the dispatcher handed that lane over that range. Lost batches are
   * handed out again from it, and a gap is filled from it.
   */
  async function* laneEventsBetween(lane: number, laneCount: number, after: LogPosition, upTo: LogPosition): AsyncGenerator<ProjectedEvent[]> {
    for (;;) {
      const events = await eventStore.readAll({ after, streamPrefixes, limit: readBatch, metadata: 'projected' });
      const mine = events.filter((e) => comparePositions(e.position, upTo) <= 0 && laneOf(e.metadata.userId, laneCount) === lane);
      if (mine.length) yield mine;
      const last = events.at(-1);
      if (!last || events.length < readBatch || comparePositions(last.position, upTo) >= 0) return;
      after = last.position;
    }
  }

  /**
   * A batch that follows events its lane has not applied (a gap: the batches before it are held by a
   * dead worker until the stalled check returns them, or wait in BullMQ's retry delays), with those
   * events read from the log in front of it, so the lane catches up at once. Left to the retries, each
   * batch of a long gap waited up to 5 s for its turn in an order BullMQ does not keep, and under
   * steady writes a lane never caught up after its projector was killed (QA: lane 0 fell from 1 to
   * 1,094 events behind in 6 minutes, all its batches bouncing as gaps). The events are exactly the
   * missing batches': those of (checkpoint, prev] routed to this lane with the recorded lane count
   * (the count its checkpoints are keyed with; a count change waits for drained lanes, so none is
   * under way while a lane has a gap). The log below a dispatched position is final (the dispatcher
   * hands out nothing past an append still in flight). The earlier batches, when they come, are at or
   * below the checkpoint and change nothing. Null, and the gap is retried as before, when anything does
   * not line up: live versions keyed with different counts, the last event read not the batch's `prev`,
   * or a gap too long for one transaction.
   */
  const GAP_FILL_MAX_EVENTS = 20_000;
  const withGapFilled = async (batch: LaneBatch): Promise<LaneBatch | null> => {
    const [registry, state] = await Promise.all([readRegistry(db), readDispatcher(db)]);
    const live = runnable(projections, registry).filter(({ row }) => row.status === 'live');
    const count = state.lanes;
    if (!live.length || count === null || live.some(({ row }) => row.lanes !== count)) return null;
    const checkpoints = await Promise.all(live.map(({ row }) => readCheckpoints(db, row.name, row.version)));
    const from = checkpoints.map((cps) => cps.get(batch.lane) ?? START).reduce(minPosition);
    if (comparePositions(from, batch.prev) >= 0) return batch; // the earlier batches landed meanwhile
    const missing: ProjectedEvent[] = [];
    for await (const page of laneEventsBetween(batch.lane, count, from, batch.prev)) {
      missing.push(...page);
      if (missing.length > GAP_FILL_MAX_EVENTS) return null;
    }
    const end = missing.at(-1);
    if (!end || comparePositions(end.position, batch.prev) !== 0) return null;
    log.info({ lane: batch.lane, from: positionToString(from), prev: positionToString(batch.prev), events: missing.length }, 'lane gap filled from the log: the batches before this one were not applied yet (a projector died, or retries came out of order)');
    metrics.laneGapFills.inc({ lane: String(batch.lane) });
    return { lane: batch.lane, prev: from, events: [...missing, ...batch.events] };
  };

  // Lane workers (BullMQ).
  const connection = options.config.REDIS_URL ? redisConnection(options.config.REDIS_URL) : null;
  /**
   * The log's origin, read once: a restamp (the only thing that moves a log to new positions in place)
   * runs with every process stopped. Each lane job carries it, and a worker drops a job of another
   * origin unapplied: its positions are the old copy's, so applying it could move a lane's checkpoint
   * past events it never applied (a restored cluster's new transaction ids grow into the old range),
   * and the lane would skip them silently. Dropping is safe: the lane is then behind what the
   * dispatcher handed it with nothing queued, and `recoverLostBatches` hands it its events again.
   */
  const origin = connection ? await logOriginOf(db) : null;
  const sameOrigin = (job: LaneJob) => job.origin === origin;
  /** A lane job, as the dispatcher and the lost-batch recovery hand it out: stamped with the log's origin. */
  const laneJob = (lane: number, prev: LogPosition, events: readonly ProjectedEvent[]): LaneJob => ({
    lane,
    prev: positionToString(prev),
    events: events.map(toWire),
    ...(origin === null ? {} : { origin }),
  });
  const queues = new Map<number, Queue>();
  const workers: Worker[] = [];
  const queueFor = (lane: number) => {
    let q = queues.get(lane);
    if (!q) {
      q = new Queue(laneQueueName(lane), {
        connection: connection!,
        prefix,
        defaultJobOptions: { attempts: Number.MAX_SAFE_INTEGER, backoff: { type: 'lane' }, removeOnComplete: { age: 3600, count: 10_000 }, removeOnFail: { age: 7 * 24 * 3600 } },
      });
      queues.set(lane, q);
    }
    return q;
  };
  const worked: number[] = [];
  let sweeper: NodeJS.Timeout | undefined;
  /** The sweep in flight, if any: one at a time, and shutdown waits for it, so none reads a lane queue (or opens one) after the queues close. */
  let sweep: Promise<void> | null = null;
  /**
   * A lane job in the failed set (failed for good by an older release, e.g. after BullMQ's stall limit,
   * or by hand) would hold its lane forever: put its batch back, as a new job with the same contents
   * (a retried job would keep a deferred failure and fail again at once). Applying it is idempotent.
   */
  const sweepFailed = async () => {
    try {
      for (const lane of worked) {
        const queue = queueFor(lane);
        for (const job of await queue.getFailed(0, 99)) {
          log.error({ lane, job: job.id, failedReason: job.failedReason }, 'lane batch had failed for good: queued again (a lane never skips a batch)');
          await queue.add('batch', job.data as LaneJob, { jobId: `${job.id}-again-${Date.now()}` });
          await job.remove();
        }
      }
    } catch (err) {
      log.error({ err }, 'could not check the lanes for failed batches');
    }
  };
  const startSweep = () => {
    if (stopped) return;
    sweep ??= sweepFailed().finally(() => {
      sweep = null;
    });
  };
  /**
   * Works lanes 0 to `count` - 1 here (those of PROJECTOR_WORK_LANES, when it is set), each once. Called
   * at start, and again by a dispatcher elected to drain a lane count recorded since this process
   * started (`drainIfLanesChanged`): a standby that started under 1 lane, elected after another release
   * moved to 5 and died, must work lanes 1 to 4 itself, or their batches wait for ever.
   */
  const workLanesUpTo = (count: number) => {
    if (!connection || options.work === false) return;
    for (let lane = 0; lane < count; lane++) {
      if (worked.includes(lane) || (workLanes && !workLanes.includes(lane))) continue;
      const worker = new Worker<LaneJob>(
        laneQueueName(lane),
        async (job: Job<LaneJob>) => {
          if (!sameOrigin(job.data)) {
            metrics.laneFailures.inc({ lane: String(lane), reason: 'foreign' });
            log.warn(
              { lane, job: job.id, jobOrigin: job.data.origin ?? null, origin },
              'lane batch from another copy of the log (queued before a logical restore, or by a release before log origins): dropped unapplied; the lane takes its events again from its checkpoint',
            );
            return;
          }
          const batch: LaneBatch = { lane: job.data.lane, prev: positionFromString(job.data.prev), events: job.data.events.map(fromWire) };
          try {
            await applyTimed(batch);
          } catch (err) {
            if (!(err instanceof LaneGapError)) throw err;
            const filled = await withGapFilled(batch);
            if (!filled) throw err;
            await applyTimed(filled);
          }
        },
        { connection, prefix, ...laneWorkerOptions(options.laneLockMs) },
      );
      // Batch failures are logged and counted where they happen (applyTimed); this sees the rest.
      worker.on('failed', (job, err) => {
        if (!job) log.error({ lane, err }, 'lane job failed');
      });
      // Redis unreachable: the process's Redis monitor logs the outage once (services/src/platform/readiness.ts).
      worker.on('error', (err) => (isConnectionError(err) ? log.debug({ lane, err: err.message }, 'lane worker: redis connection error') : log.error({ lane, err }, 'lane worker error')));
      workers.push(worker);
      worked.push(lane);
    }
  };
  if (connection && options.work !== false) {
    // While the lane count changes, the old lanes keep running until they are drained.
    workLanesUpTo(Math.max(lanes, lanesHandedOut(await readDispatcher(db), lanes)));
    sweeper = setInterval(startSweep, laneWorkerOptions(options.laneLockMs).stalledInterval);
    startSweep();
  }

  // Operators' rebuilds (`npm run projections -- rebuild`) run here as jobs, one at a time.
  const rebuildWorker: RebuildWorker | null =
    connection && options.rebuilds !== false
      ? startRebuildWorker({ connection, prefix, logger, deps: { database, eventStore, projections, lanes }, ...(options.rebuildLockMs ? { lockDurationMs: options.rebuildLockMs } : {}) })
      : null;

  const ensureLive = async () => {
    const dispatcher = await readDispatcher(db);
    for (const projection of projections) {
      const rows = await readRegistry(db, projection.name);
      const live = rows.find((r) => r.status === 'live');
      if (!rows.length && comparePositions(dispatcher.checkpoint, START) === 0) {
        // Nothing dispatched yet: the lanes will deliver the whole log, no build needed. Under the
        // rebuild lock: an operator's rebuild job may be creating the same version's tables right now
        // (its lock makes this wait, through the caller's retry, until it switched).
        const lock = await tryLock(database, LOCK_REBUILD, projection.name);
        if (!lock) throw new RebuildLockedError(projection.name);
        try {
          if ((await readRegistry(db, projection.name)).length) continue;
          // The code's version, unless a build of that number was abandoned before the first start.
          const version = await issueVersion(db, projection.name, projection.version);
          const tables = physicalTables(projection, version);
          await projection.createTables(db, tables);
          // Live with a checkpoint for every lane, as after any switch: a lane's row says what it applied,
          // and a version never has a lane without one (a rollback's catch-up reads each lane from it).
          await db.transaction().execute(async (trx) => {
            await trx
              .insertInto('projection_registry')
              .values({ name: projection.name, version, code_version: projection.version, status: 'live', lanes, tables: JSON.stringify(tables), live_since: new Date(), revision_guard: true })
              .execute();
            await writeLaneCheckpoints(trx, projection.name, version, lanes, START);
          });
        } finally {
          await lock.release();
        }
        continue;
      }
      if (live && live.codeVersion === projection.version) {
        await projection.createTables(db, live.tables);
        continue;
      }
      if (live && autoBuild === 'missing') {
        log.error(
          { projection: projection.name, live: live.version, liveFormulas: live.codeVersion, code: projection.version },
          'live read model was built by other formulas: lane batches are refused (not acknowledged) until an operator rebuilds and switches with this code, or the code of the live version is deployed',
        );
        continue;
      }
      log.info({ projection: projection.name }, 'building read model');
      await rebuild({ database, eventStore, projections, lanes }, projection.name, {
        // On PGlite the rebuild runs on the thread that answers requests (the console's start-up screen
        // among them), which get a turn between reads and segments: smaller ones keep it answering.
        ...(database.kind === 'pglite' ? { batchSize: 2000, segmentEvents: 2000 } : {}),
        onProgress: (p) => {
          // Stopped (SIGTERM during a start-up rebuild): the rebuild stops after the batch it committed and
          // resumes from its checkpoint at the next start (QA 78: it ran on to the shutdown deadline).
          if (stopped && p.phase !== 'done') throw new RebuildStoppingError();
          if (startup) startup = { phase: 'rebuilding', projection: projection.name, done: p.eventsDone, total: p.eventsTotal, retrying: false };
          log.info(p, 'rebuild progress');
        },
      });
    }
  };

  const persist = async (checkpoint: LogPosition, dispatched: Map<number, LogPosition>) => {
    await options.beforePersist?.();
    await recordDispatch(db, term, lanes, checkpoint, dispatched);
  };
  /** This dispatcher's term (taken at election): every write of the dispatcher is checked against it. */
  let term = 0;
  /** A fenced write: another dispatcher was elected; give up the lock and run for election again. */
  const stepDown = async (err: unknown) => {
    metrics.laneFailures.inc({ lane: 'dispatcher', reason: 'fenced' });
    log.error({ err, term }, 'dispatcher fenced: another dispatcher was elected since; stepping down');
    const lock = leader;
    leader = null;
    await lock?.release().catch(() => undefined);
  };

  /**
   * Lanes of the previous lane count must be empty before routing changes, or a user's order could
   * break. Nothing is recorded until they are: a projector stopped during the drain leaves the old
   * count in place, and the next start drains again. Then `relane` re-keys every lane row in one
   * transaction (see there).
   */
  const drainIfLanesChanged = async () => {
    const state = await readDispatcher(db);
    if (state.lanes === null) return;
    const stray = [...state.lastDispatched.keys()].some((lane) => lane >= lanes);
    if (state.lanes === lanes && !stray) return;
    log.info({ from: state.lanes, to: lanes }, 'lane count changed: draining the old lanes first');
    let waited = 0;
    // A dispatcher killed between queueing a read and recording it leaves old-lane batches past D in
    // Redis. Applied after the re-key, one would land on the new lane of its number and move it past
    // events of that lane's new users: the old queues must be empty first (their batches apply, since
    // each continues from what its lane applied).
    const oldLaneCount = lanesHandedOut(state, lanes);
    if (!stopped) workLanesUpTo(oldLaneCount);
    const oldQueuesEmpty = async () => {
      if (transport !== 'bullmq') return true;
      for (let lane = 0; lane < oldLaneCount; lane++) {
        const counts = await queueFor(lane).getJobCounts('active', 'waiting', 'delayed', 'prioritized', 'paused', 'failed', 'waiting-children');
        if (Object.values(counts).some((c) => c > 0)) return false;
      }
      return true;
    };
    while (!stopped) {
      if ((await oldQueuesEmpty()) && (await relane({ db, eventStore, projections }, lanes, term))) {
        log.info({ from: state.lanes, to: lanes }, 'old lanes drained: routing with the new lane count');
        return;
      }
      // Old-lane batches lost from Redis would hold the drain for ever: hand them out again, routed
      // with the old count they were dispatched with.
      await recoverLostBatches(state.lastDispatched, state.lanes);
      // A drain that does not end is a lane that does not move (nobody works it, or it fails): say so.
      if ((waited += 200) % 30_000 === 0) log.error({ from: state.lanes, to: lanes, waitedMs: waited }, 'lane count change still waiting for the old lanes to drain: is every old lane worked (PROJECTOR_WORK_LANES), and none stuck?');
      await sleep(200);
    }
  };

  const lanesDrained = async (lastDispatched: Map<number, LogPosition>, goal?: LogPosition) => {
    for (const { row } of runnable(projections, await readRegistry(db))) {
      const cps = await readCheckpoints(db, row.name, row.version);
      for (const [lane, last] of lastDispatched) {
        const cp = cps.get(lane) ?? START;
        if (comparePositions(cp, last) >= 0) continue;
        if (goal && comparePositions(cp, goal) >= 0) continue;
        return false;
      }
    }
    return true;
  };

  /**
   * Lane batches lost with Redis's data (a restart without persistence, FLUSHALL, eviction): the
   * dispatcher has handed a lane events beyond what the lane applied, but no queued job continues from
   * the lane's checkpoint, so the lane would wait for them for ever (its later batches are refused as a
   * gap). The leader hands the lane its events again from its checkpoint. That is safe to repeat and to
   * race with a job finishing: a lane skips events at or below its checkpoint, and the revision guard
   * skips revisions already applied. It runs on a slow timer, never on the path of a live event.
   */
  const lostBatchCheckMs = options.lostBatchCheckMs ?? 10_000;
  const stalled = new Map<number, LogPosition>();
  let lastLostBatchCheck = Date.now();
  const recoverLostBatches = async (lastDispatched: ReadonlyMap<number, LogPosition>, laneCount = lanes) => {
    if (transport !== 'bullmq' || Date.now() - lastLostBatchCheck < lostBatchCheckMs) return;
    lastLostBatchCheck = Date.now();
    const live = runnable(projections, await readRegistry(db)).filter(({ row }) => row.status === 'live');
    if (!live.length) return;
    const checkpoints = await Promise.all(live.map(({ row }) => readCheckpoints(db, row.name, row.version)));
    for (const [lane, handedTo] of lastDispatched) {
      const cp = checkpoints.map((cps) => cps.get(lane) ?? START).reduce(minPosition);
      const before = stalled.get(lane);
      // Caught up, or moving since the last check: nothing is lost.
      if (comparePositions(cp, handedTo) >= 0 || !before || comparePositions(before, cp) !== 0) {
        if (comparePositions(cp, handedTo) >= 0) stalled.delete(lane);
        else stalled.set(lane, cp);
        continue;
      }
      const queue = queueFor(lane);
      const queued = await queue.getJobs(['active', 'waiting', 'prioritized', 'delayed', 'paused', 'failed'], 0, 999, true);
      if (queued.some((job) => job && sameOrigin(job.data as LaneJob) && comparePositions(positionFromString((job.data as LaneJob).prev), cp) <= 0)) continue;
      log.error(
        { lane, checkpoint: positionToString(cp), handedTo: positionToString(handedTo), queued: queued.length },
        'lane batches were lost from Redis (restarted without persistence, flushed or evicted): handing the lane its events again from its checkpoint',
      );
      metrics.laneFailures.inc({ lane: String(lane), reason: 'lost' });
      let prev = cp;
      for await (const mine of laneEventsBetween(lane, laneCount, cp, handedTo)) {
        const end = mine.at(-1)!.position;
        await queue.add('batch', laneJob(lane, prev, mine), { jobId: `r${lane}-${positionToString(mine[0]!.position)}-${positionToString(end)}` });
        prev = end;
      }
      stalled.delete(lane);
    }
  };

  const dispatchLoop = async (): Promise<void> => {
    while (!stopped) {
      leader = await tryLock(database, LOCK_DISPATCHER, 'main');
      if (leader) break;
      // Another process dispatches: this one's start has nothing to bring up to date.
      if (startup) startedUpNow();
      await idle(options.electionMs ?? 2000);
    }
    if (stopped || !leader) return;
    // After the lock: a stale leader's later writes are refused from here on.
    term = await claimTerm(db, lanes);
    log.info({ transport, lanes, term }, 'dispatcher elected');
    for (;;) {
      try {
        await ensureLive();
        await drainIfLanesChanged();
        break;
      } catch (err) {
        if (err instanceof DispatcherFencedError) {
          await stepDown(err);
          return stopped ? undefined : dispatchLoop();
        }
        if (stopped) return;
        // E.g. an operator's rebuild of a new read model holds its lock: wait for it to switch.
        log.error({ err }, 'could not prepare the read models; retrying');
        if (startup) startup = { ...startup, retrying: true };
        await idle(5000);
        if (stopped) return;
      }
    }
    let state = await readDispatcher(db);
    if (startup) {
      startup = { phase: 'catching-up', done: 0, total: eventStore.countAfter ? await eventStore.countAfter(state.checkpoint, streamPrefixes) : null, retrying: false };
      if (startup.total) log.info({ events: startup.total }, 'catching up with the log before answering');
    }
    let catchUpLoggedAt = performance.now();
    const watcher = watchAppends();
    let quick = QUICK_MS;
    // Lanes the last read handed batches to: while one of them has not started its batch, wait.
    let handedTo: number[] = [];
    try {
      while (!stopped) {
        if (!leader.held()) {
          log.error('dispatcher lost its lock (database connection broke); re-electing');
          leader = null;
          break;
        }
        try {
          if (busyLaneWaitMs > 0 && handedTo.length) {
            // Until every lane handed a batch has started it, for at most busyLaneWaitMs.
            const began = performance.now();
            const until = began + busyLaneWaitMs;
            let outcome: 'started' | 'deadline' = 'deadline';
            while (!stopped && performance.now() < until) {
              const waiting = await Promise.all(handedTo.map((lane) => queueFor(lane).getWaitingCount()));
              if (!waiting.some((n) => n > 0)) {
                outcome = 'started';
                break;
              }
              const left = until - performance.now();
              if (left <= 0) break;
              await sleep(Math.min(BUSY_LANE_CHECK_MS, left));
            }
            if (!stopped) metrics.busyLaneWait.observe({ outcome }, (performance.now() - began) / 1000);
          }
          woken = false;
          // Asked before the read, in one snapshot: nothing held back means the read gets every event
          // committed until now; an append after it wakes the dispatcher (woken is reset above).
          const { head, held } = eventStore.headAndHeld ? await eventStore.headAndHeld() : { head: await eventStore.head(), held: false };
          const events = await eventStore.readAll({ after: state.checkpoint, streamPrefixes, limit: readBatch, metadata: 'projected' });
          const last = events.at(-1);
          if (!last) handedTo = [];
          if (last) {
            const byLane = new Map<number, ProjectedEvent[]>();
            for (const e of events) {
              const lane = laneOf(e.metadata.userId, lanes);
              let list = byLane.get(lane);
              if (!list) byLane.set(lane, (list = []));
              list.push(e);
            }
            const dispatched = new Map<number, LogPosition>();
            // The lanes' jobs are added side by side (one queue each: a lane's own order is kept by one
            // job per read); in process the dispatcher applies each lane's batch itself, in turn.
            const adds: Promise<unknown>[] = [];
            for (const [lane, list] of [...byLane].sort(([a], [b]) => a - b)) {
              const prev = state.lastDispatched.get(lane) ?? START;
              const end = list.at(-1)!.position;
              if (transport === 'in-process') {
                await applyTimed({ lane, prev, events: list });
                // PGlite runs every statement on this thread and answers in microtasks: without a turn
                // of the event loop here, a catch-up of a long log (a journal's first start after a
                // seed or a restore) held every request, the console's files too, until it ended.
                if (database.kind === 'pglite') await new Promise<void>((resolve) => setImmediate(resolve));
              } else {
                // Deterministic, `:`-free id: a re-dispatch of the same batch after a crash is deduplicated.
                adds.push(queueFor(lane).add('batch', laneJob(lane, prev, list), { jobId: `l${lane}-${positionToString(list[0]!.position)}-${positionToString(end)}` }));
              }
              dispatched.set(lane, end);
            }
            await settleAll(adds);
            await persist(last.position, dispatched);
            handedTo = [...dispatched.keys()];
            for (const [lane, p] of dispatched) state.lastDispatched.set(lane, p);
            state.checkpoint = last.position;
            if (startup) {
              startup = { ...startup, done: startup.done + events.length, retrying: false };
              // As the rebuild logs its progress (QA 78: a 72,325-event catch-up said nothing for 50 s).
              if (performance.now() - catchUpLoggedAt >= 5000) {
                catchUpLoggedAt = performance.now();
                log.info({ eventsDone: startup.done, eventsTotal: startup.total }, 'catch-up progress');
              }
            }
          }
          if (events.length < readBatch) {
            // The read reached the head: in process, everything before it is applied.
            if (startup) startedUpNow();
            await recoverLostBatches(state.lastDispatched);
            seen = maxPosition(seen, maxPosition(head ?? START, state.checkpoint));
            if (transport === 'in-process') settle();
            if (held || comparePositions(notified, state.checkpoint) > 0) {
              // Events committed before the read were held back from it behind an older transaction,
              // whose end wakes nobody; or the subscription showed an event this read did not return
              // (e.g. reads served by a node that is behind): read again shortly rather than waiting
              // for the next wake-up or poll.
              await idle(quick);
              quick = Math.min(quick * 2, held ? Math.min(HELD_MAX_MS, pollMs) : pollMs);
            } else {
              quick = QUICK_MS;
              await idle(pollMs);
            }
          }
        } catch (err) {
          if (err instanceof DispatcherFencedError) {
            await stepDown(err);
            break;
          }
          log.error({ err }, 'dispatch failed; retrying from the checkpoint');
          if (startup) startup = { ...startup, retrying: true };
          state = await readDispatcher(db).catch(() => state);
          await idle(1000);
        }
      }
    } finally {
      await watcher.stop();
    }
    if (!stopped && !leader) return dispatchLoop();
  };

  /**
   * Wake-ups. Where the store has them (`wakeUps`: NOTIFY or the in-process signal on PostgreSQL, the
   * signal on PGlite), each append nudges the dispatcher straight away; a committed event hidden behind
   * an older transaction is found by the dispatcher's own `headAndHeld` before each read. Elsewhere
   * (EventStoreDB) a subscription from the head (the server's push) nudges it for each new event. Either
   * way it only wakes: the dispatcher reads its own batches from its checkpoint, so the xid8 visibility
   * rule is the store's. The subscription read every new event (its data and metadata) only to wake the
   * dispatcher, which then read it again: a round trip on the path of every live event, and the CPU of a
   * second read.
   */
  const watchAppends = () => {
    let closed = false;
    let subscription: Subscription | WakeUps | null = null;
    const run = (async () => {
      while (!closed && !stopped) {
        try {
          if (eventStore.wakeUps) {
            const wakeUps = (subscription = eventStore.wakeUps());
            for await (const _ of wakeUps) nudge();
          } else {
            const after = (await eventStore.head()) ?? START;
            if (closed) return;
            const events = (subscription = eventStore.subscribe({ after, streamPrefixes }));
            for await (const event of events) {
              notified = maxPosition(notified, event.position);
              nudge();
            }
          }
        } catch (err) {
          log.warn({ err }, 'append wake-ups failed; polling until they resume');
        } finally {
          await (subscription as Subscription | WakeUps | null)?.close().catch(() => undefined);
          subscription = null;
        }
        if (!closed) await sleep(1000);
      }
    })();
    return {
      async stop() {
        closed = true;
        await (subscription as Subscription | WakeUps | null)?.close().catch(() => undefined);
        await run;
      },
    };
  };

  /**
   * The dispatcher runs until the projector stops, whatever the database does. Its loop retries a
   * failed read or dispatch itself; what fails around it (the election, claiming the term, the first
   * read of its state: a connection killed or a failover at that moment) ends the loop with an error.
   * Without this the dispatcher stopped for good on such an error: nothing was dispatched again, and a
   * projector process with lanes in process had nothing left to run and exited with 0. The lead is
   * given up (a lock left on a live session would keep every projector, this one too, from being
   * elected) and the election starts again.
   */
  const superviseDispatch = async (): Promise<void> => {
    while (!stopped) {
      try {
        await dispatchLoop();
        return;
      } catch (err) {
        log.error({ err }, 'dispatcher failed (database unreachable?); giving up the lead and standing for election again');
        const held = leader;
        leader = null;
        await held?.release().catch(() => undefined);
        await idle(1000);
      }
    }
  };
  // The connections a running projector uses at once (a lane worker's each, the dispatcher's reads and
  // records, its in-process batches) stay open through quiet spells: a new one would be slow for its
  // first batches (`keepConnectionsOpen`), and the first events after a quiet spell would wait for them.
  // Taken once nothing of the start can fail any more (undone by `shutdown`).
  const letConnectionsClose = keepConnectionsOpen(database, 2 + (connection && options.work !== false ? (workLanes?.length ?? lanes) : 0));
  // Without a dispatcher this process's start has nothing to bring up to date (`startup`).
  if (options.dispatch === false) startedUpNow();
  const loop = options.dispatch === false ? Promise.resolve() : superviseDispatch();
  loop.catch((err) => log.error({ err }, 'dispatcher stopped'));

  // In process, the leader applies every batch before it moves on: all it has seen is applied, so
  // waiters are answered from memory, without polling the database (commands wait on this).
  const waiters = new Set<{ goal: LogPosition; resolve: () => void }>();
  const settle = () => {
    for (const w of waiters) {
      if (comparePositions(seen, w.goal) >= 0) {
        waiters.delete(w);
        w.resolve();
      }
    }
  };

  const reached = async (goal: LogPosition) => {
    // `seen` is taken before the recorded state is read: the dispatcher moves `seen` only after it has
    // recorded what it handed to the lanes, so a state read after this value includes every lane the
    // events up to it went to. Taken after the read, a newer `seen` beside an older state let a lane
    // look drained while its batch with the goal was still queued.
    const seenBefore = seen;
    const state = await readDispatcher(db);
    const dispatchedUpTo = maxPosition(state.checkpoint, seenBefore);
    if (comparePositions(dispatchedUpTo, goal) < 0) return false;
    return lanesDrained(state.lastDispatched, goal);
  };

  return {
    transport,
    isLeader: () => leader?.held() ?? false,
    startup: () => startup,
    startedUp: startedUp.promise,
    async waitFor(target, timeoutMs = 10_000) {
      const goal = target === 'head' ? await eventStore.head() : target;
      if (!goal) return;
      const deadline = Date.now() + timeoutMs;
      if (transport === 'in-process' && leader?.held()) {
        if (comparePositions(seen, goal) >= 0) return;
        let timer: NodeJS.Timeout | undefined;
        const waiter = { goal, resolve: () => {} };
        try {
          await new Promise<void>((resolve, reject) => {
            waiter.resolve = resolve;
            waiters.add(waiter);
            timer = setTimeout(() => reject(new Error(`Read models did not reach ${positionToString(goal)} within ${timeoutMs} ms`)), timeoutMs);
            nudge();
          });
          return;
        } finally {
          clearTimeout(timer);
          waiters.delete(waiter);
        }
      }
      for (;;) {
        if (await reached(goal)) return;
        if (Date.now() > deadline) throw new Error(`Read models did not reach ${positionToString(goal)} within ${timeoutMs} ms`);
        nudge();
        const { done } = applied.wait(applied.generation, transport === 'in-process' ? 5 : 20);
        await done;
      }
    },
    lag: lagOf,
    stop() {
      // Idempotent: closing a BullMQ worker or queue twice rejects on the already closed connection.
      stopping ??= shutdown();
      return stopping;
    },
  };

  async function shutdown() {
    stopped = true;
    if (startup) startedUp.reject(new Error('the projector stopped before its read models were up to date'));
    letConnectionsClose();
    clearInterval(sweeper);
    // Bounded: with Redis down, a sweep's command waits for a reconnection that may not come.
    await Promise.race([sweep, new Promise((r) => setTimeout(r, 2000).unref())]);
    nudge();
    // A running rebuild stops after its current batch and goes back to the queue for the next projector.
    await rebuildWorker?.stop();
    await loop.catch(() => undefined);
    // Closing a BullMQ client while it still connects leaves its connection check rejecting with
    // "Connection is closed" where nobody handles it: let each finish connecting (or fail) first.
    await Promise.all([...workers, ...queues.values()].map((c) => c.waitUntilReady().catch(() => undefined)));
    await Promise.all(workers.map((w) => w.close()));
    await Promise.all([...queues.values()].map((q) => q.close()));
    await leader?.release();
    leader = null;
    detach();
  }
}
