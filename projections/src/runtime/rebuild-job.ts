import { DelayedError, Queue, QueueEvents, UnrecoverableError, WaitingError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import { codeVersionLabel } from '@oj/contracts/operations';
import type { Logger } from 'pino';
import { isConnectionError } from '@oj/infra/connection-errors';
import { rebuild, RebuildLockedError, type RebuildProgress, type RebuildResult, type RuntimeDeps } from './rebuild.ts';
import type { Projection } from './projection.ts';

/** Services mode: rebuilds run as jobs of this queue, worked by the projector process (concurrency 1). */
export const REBUILD_QUEUE = 'projector-rebuild';

export interface RebuildJobData {
  target: string;
  userId?: string;
  batchSize?: number;
  segmentEvents?: number;
  switch?: boolean;
  /** Set by the worker: the projections of an `all` job already rebuilt (a stopped job resumes after them). */
  finished?: RebuildResult[];
  /**
   * The read-model code versions of the process that asked, by projection (set by `enqueueRebuild`): a
   * projector running other code leaves the job to one running the same (QA 75: in a rolling upgrade an
   * older projector took a newer release's rebuild and built it by its own older formulas).
   */
  codeVersions?: Record<string, number>;
  /** Set by the worker: how many times projectors running other code left the job. */
  leftByOtherCode?: number;
}

/** What `job.updateProgress` reports. */
export interface RebuildJobProgress {
  projection: string;
  version: number;
  phase: RebuildProgress['phase'];
  done: number;
  total: number | null;
  rate: number;
  etaSeconds: number | null;
}

/** Deterministic and `:`-free (BullMQ's key separator): the same rebuild is never queued twice at once. */
export function rebuildJobId(target: string, userId?: string): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_.-]/g, '_');
  return userId ? `rebuild-${clean(target)}-user-${clean(userId)}` : `rebuild-${clean(target)}`;
}

export function toJobProgress(p: RebuildProgress): RebuildJobProgress {
  return { projection: p.projection, version: p.version, phase: p.phase, done: p.eventsDone, total: p.eventsTotal, rate: p.rate, etaSeconds: p.etaSeconds };
}

export function fromJobProgress(p: RebuildJobProgress): RebuildProgress {
  return { projection: p.projection, version: p.version, phase: p.phase, eventsDone: p.done, eventsTotal: p.total, rate: p.rate, etaSeconds: p.etaSeconds };
}

/** Thrown from a rebuild's progress callback when its process stops: the rebuild resumes from its checkpoint next time. */
export class RebuildStoppingError extends Error {
  constructor() {
    super('The projector is stopping: the rebuild resumes from its checkpoint in the next one');
    this.name = 'RebuildStoppingError';
  }
}

export interface RebuildWorkerOptions {
  connection: ConnectionOptions;
  prefix: string;
  deps: RuntimeDeps;
  logger: Logger;
  /**
   * How long a job's lock lives without renewal (ms, default 30 s). A killed projector stops renewing
   * it; once it expired, the next stalled check of any projector puts the job back (retried from the
   * rebuild's checkpoint). Tests shorten it.
   */
  lockDurationMs?: number;
  /** How long a job waits for a projection's rebuild lock before failing (ms, default 10 s). */
  lockWaitMs?: number;
  /**
   * A job asked for by other read-model code is put back for this long (ms, default 1 s) for a projector
   * running that code, at most `otherCodeAttempts` times (default 30), then failed saying so. The
   * projector that put it back asks for no job until half a second after that delay.
   */
  otherCodeDelayMs?: number;
  otherCodeAttempts?: number;
}

/** Why this code must not run the job (it was asked for by other read-model code), or null. */
export function otherCodeOfJob(data: RebuildJobData, projections: readonly Projection[], names: readonly string[]): string | null {
  for (const name of names) {
    const asked = data.codeVersions?.[name];
    const mine = projections.find((p) => p.name === name)?.version;
    if (asked !== undefined && mine !== undefined && asked !== mine) {
      return `This rebuild of ${name} was asked for by ${codeVersionLabel(asked)}, and this projector runs ${codeVersionLabel(mine)}`;
    }
  }
  return null;
}

/** The code versions `enqueueRebuild` puts in a job: those of the process asking. */
export function codeVersionsOf(projections: readonly Projection[]): Record<string, number> {
  return Object.fromEntries(projections.map((p) => [p.name, p.version]));
}

const LOCK_RETRY_MS = 250;
/** How long past a job's delay a projector that left it for other code keeps from asking for it. */
const STAND_ASIDE_MARGIN_MS = 500;

/** Waits `ms`, or less once `stopped()` turns true (checked every 50 ms), so a stop is not held up. */
async function standAside(ms: number, stopped: () => boolean): Promise<void> {
  const until = Date.now() + ms;
  while (!stopped() && Date.now() < until) await new Promise((r) => setTimeout(r, Math.min(50, until - Date.now())));
}

/**
 * The BullMQ options of every rebuild worker. They must be the same in every process working the
 * queue: the stalled check is throttled by one `stalled-check` key per queue that lives for the
 * `stalledInterval` of whichever worker set it, so a single worker with a longer interval (BullMQ's
 * default is 30 s) delays every other worker's takeover of a killed projector's job by that long.
 */
export function rebuildWorkerOptions(lockDuration = 30_000): { concurrency: 1; lockDuration: number; stalledInterval: number; maxStalledCount: number } {
  return {
    concurrency: 1,
    lockDuration,
    stalledInterval: Math.max(1000, Math.floor(lockDuration / 2)),
    // A job whose projector was killed is put back, not failed, however often that happens.
    maxStalledCount: 1000,
  };
}

export interface RebuildWorker {
  /**
   * Stops at the next batch boundary (the batch and its checkpoint are committed) and puts the job
   * back in the queue, so the next projector resumes it from the checkpoint.
   */
  stop(): Promise<void>;
}

/**
 * The projector's rebuild worker: runs `rebuild(...)` for each job and reports progress. The rebuild's
 * advisory lock, not BullMQ, guarantees one rebuild per projection (a `--here` rebuild may run too).
 */
export function startRebuildWorker(options: RebuildWorkerOptions): RebuildWorker {
  const log = options.logger.child({ component: 'rebuild-worker' });
  let stopping = false;
  const lockWaitMs = options.lockWaitMs ?? 10_000;
  const worker = new Worker<RebuildJobData, RebuildResult[]>(
    REBUILD_QUEUE,
    async (job: Job<RebuildJobData, RebuildResult[]>, token?: string) => {
      const { target, userId, batchSize, segmentEvents } = job.data;
      const names = target === 'all' ? options.deps.projections.map((p) => p.name) : [target];
      const other = otherCodeOfJob(job.data, options.deps.projections, names);
      if (other) {
        // Left for a projector running the code that asked (a rolling upgrade has both for a while).
        const left = (job.data.leftByOtherCode ?? 0) + 1;
        if (left > (options.otherCodeAttempts ?? 30) || !token) {
          throw new UnrecoverableError(`${other}, and no projector running that code took it: run the rebuild with --here from that release, or again once its projectors run.`);
        }
        log.warn({ job: job.id, target, left }, `${other}: left for a projector running that code`);
        const delayMs = options.otherCodeDelayMs ?? 1000;
        await job.updateData({ ...job.data, leftByOtherCode: left });
        await job.moveToDelayed(Date.now() + delayMs, token);
        // Step aside past the delay: a worker that has just left a job is the first to ask for it again
        // when the delay ends (it knows the time to the millisecond), and would take it back from a
        // projector running the asking code time after time (seen: 20 of 30 turns). Busy here, it asks
        // for nothing, so that projector takes the job; with none, this one takes it again afterwards.
        await standAside(delayMs + STAND_ASIDE_MARGIN_MS, () => stopping);
        throw new DelayedError();
      }
      log.info({ job: job.id, target, userId }, 'rebuild started');
      try {
        // Projections of an `all` job finished before a stop: the job resumes after them, so a stop
        // never rebuilds (and switches) a finished projection a second time.
        const results: RebuildResult[] = [...(job.data.finished ?? [])];
        for (const name of names) {
          if (results.some((r) => r.projection === name)) continue;
          // One projection at a time, so a wait for the lock never repeats a rebuild already done.
          for (let waited = 0; ; waited += LOCK_RETRY_MS) {
            try {
              results.push(
                ...(await rebuild(options.deps, name, {
                  ...(userId ? { userId } : {}),
                  ...(batchSize ? { batchSize } : {}),
                  ...(segmentEvents ? { segmentEvents } : {}),
                  switch: job.data.switch !== false,
                  onProgress: (p) => {
                    // Called after each batch read and committed: a stop here loses at most the part of a
                    // segment folded and not yet written (it is read again on resume). Not at
                    // 'done': the switch has committed, and requeueing would run a second full rebuild.
                    if (stopping && p.phase !== 'done') throw new RebuildStoppingError();
                    job.updateProgress(toJobProgress(p)).catch((err) => log.warn({ err }, 'could not report rebuild progress'));
                  },
                })),
              );
              if (names.length > 1) await job.updateData({ ...job.data, finished: results });
              break;
            } catch (error) {
              // The lock may be held for a moment by a projector creating a new read model; a long
              // hold is another rebuild (e.g. `--here`): fail then, as the command would in process.
              if (!(error instanceof RebuildLockedError) || waited >= lockWaitMs || stopping) throw error;
              await new Promise((r) => setTimeout(r, LOCK_RETRY_MS));
            }
          }
        }
        return results;
      } catch (error) {
        if (error instanceof RebuildStoppingError && token) {
          await job.moveToWait(token);
          throw new WaitingError();
        }
        // Unknown projection, another rebuild holds the lock, a handler bug: retrying would not help.
        throw new UnrecoverableError(error instanceof Error ? error.message : String(error));
      }
    },
    { connection: options.connection, prefix: options.prefix, ...rebuildWorkerOptions(options.lockDurationMs) },
  );
  worker.on('failed', (job, err) => log.error({ job: job?.id, err }, 'rebuild failed'));
  worker.on('completed', (job) => log.info({ job: job.id }, 'rebuild finished'));
  // Redis unreachable: the process's Redis monitor logs the outage once (services/src/platform/readiness.ts).
  worker.on('error', (err) => (isConnectionError(err) ? log.debug({ err: err.message }, 'rebuild worker: redis connection error') : log.error({ err }, 'rebuild worker error')));
  return {
    async stop() {
      stopping = true;
      // As in the projector: a worker closed while it still connects rejects unhandled.
      await worker.waitUntilReady().catch(() => undefined);
      await worker.close();
    },
  };
}

export interface EnqueuedRebuild {
  job: Job<RebuildJobData, RebuildResult[]>;
  /** True when a rebuild with this id was already queued or running: this call follows it. */
  existing: boolean;
}

/**
 * Adds the rebuild job, replacing a finished one with the same id; an unfinished one is followed instead.
 * The job carries the code versions of `projections` (the asking process's), so that only a projector
 * running the same code builds it.
 */
export async function enqueueRebuild(queue: Queue<RebuildJobData, RebuildResult[]>, data: RebuildJobData, projections: readonly Projection[]): Promise<EnqueuedRebuild> {
  const jobId = rebuildJobId(data.target, data.userId);
  const old = await queue.getJob(jobId);
  if (old) {
    const state = await old.getState();
    if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return { job: old, existing: true };
    await old.remove();
  }
  const job = await queue.add('rebuild', { ...data, codeVersions: codeVersionsOf(projections) }, { jobId, removeOnComplete: { age: 7 * 24 * 3600 }, removeOnFail: { age: 7 * 24 * 3600 } });
  return { job, existing: false };
}

/**
 * The rebuild queue and its events, read from the stream's current end: a `QueueEvents` that starts
 * at `$` only sees events after its first blocking read, which may come after a fast job finished.
 */
export async function openRebuildQueue(connection: ConnectionOptions, prefix: string): Promise<{ queue: Queue<RebuildJobData, RebuildResult[]>; events: QueueEvents; close(): Promise<void> }> {
  const queue = new Queue<RebuildJobData, RebuildResult[]>(REBUILD_QUEUE, { connection, prefix });
  let events: QueueEvents | undefined;
  try {
    // BullMQ's client type omits stream reads; it is an ioredis client.
    const client = (await queue.client) as unknown as { xrevrange(key: string, end: string, start: string, count: 'COUNT', n: number): Promise<Array<[string, string[]]>> };
    const last = (await client.xrevrange(queue.keys.events!, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0';
    events = new QueueEvents(REBUILD_QUEUE, { connection, prefix, lastEventId: last });
    await events.waitUntilReady();
  } catch (error) {
    await events?.close();
    await queue.close();
    throw error;
  }
  const ev = events;
  return {
    queue,
    events: ev,
    async close() {
      // Events first: its blocking read is on its own connection, which closing the queue does not end.
      await ev.close();
      await queue.close();
    },
  };
}

export interface FollowOptions {
  onProgress?: (p: RebuildProgress) => void;
  /** Called once if no worker took the job within `idleWarnMs` (default 5000). */
  onNotPickedUp?: () => void;
  idleWarnMs?: number;
}

/** Waits for the job's result, reporting its progress; rejects with the job's failure. */
export async function followRebuild(job: Job<RebuildJobData, RebuildResult[]>, events: QueueEvents, options: FollowOptions = {}): Promise<RebuildResult[]> {
  const onProgress = ({ jobId, data }: { jobId: string; data: unknown }) => {
    if (jobId === job.id && data && typeof data === 'object') options.onProgress?.(fromJobProgress(data as RebuildJobProgress));
  };
  events.on('progress', onProgress);
  const timer = setTimeout(async () => {
    const state = await job.getState().catch(() => 'unknown');
    if (state === 'waiting' || state === 'delayed' || state === 'prioritized') options.onNotPickedUp?.();
  }, options.idleWarnMs ?? 5000);
  try {
    return await job.waitUntilFinished(events);
  } finally {
    clearTimeout(timer);
    events.off('progress', onProgress);
  }
}
