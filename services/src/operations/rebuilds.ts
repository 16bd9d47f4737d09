import type { Job, QueueEvents, Queue, ConnectionOptions } from 'bullmq';
import { DAY_MS } from '@oj/contracts/business-date';
import type { RebuildState } from '@oj/contracts/operations';
import { rebuild, type RebuildProgress, type RebuildResult, type RuntimeDeps } from '@oj/projections/runtime/rebuild';
import type { Projection } from '@oj/projections/runtime/projection';
import { enqueueRebuild, openRebuildQueue, rebuildJobId, type RebuildJobData, type RebuildJobProgress } from '@oj/projections/runtime/rebuild-job';
import { AppError } from '../app/errors.ts';

export interface RebuildStart {
  projection: string;
  userId?: string;
  /** The user's e-mail, when the operator named the user by it. */
  userEmail?: string;
  switch: boolean;
  requestedBy: string;
}

/**
 * Runs the console's rebuilds and tells who follows them what they are doing. Two runners, one
 * behaviour: with REDIS_URL a rebuild is the projector's `projector-rebuild` job (it survives a
 * projector restart: the job goes back to the queue and the next projector resumes from the
 * checkpoint); without it (embedded mode) it runs in this process, as the projector itself does there.
 */
export interface RebuildRunner {
  readonly kind: 'bullmq' | 'in-process';
  /** Starts a rebuild, or answers the one already running with that id (`existing`). */
  start(request: RebuildStart): Promise<{ state: RebuildState; existing: boolean }>;
  /** Rebuilds running, queued, or finished within the last day, newest first. */
  list(): Promise<RebuildState[]>;
  onChange(listener: () => void): () => void;
  /** False while its store cannot be reached yet (BullMQ: Redis still connecting); reading it then would wait. */
  readonly reachable: boolean;
  close(): Promise<void>;
}

export const isFinished = (s: Pick<RebuildState, 'phase'>) => s.phase === 'done' || s.phase === 'failed';

function lockedConflict(message: string): AppError {
  return new AppError('conflict', message, { resolution: 'Wait for the running rebuild (its progress is on this page or in `npm run projections -- status`), then try again.' });
}

/** Why a console rebuild stopped with the server: not its end, the next start resumes it (embedded mode). */
export const STOPPED_FOR_RESTART = 'The server is stopping: run the rebuild again to resume it from its checkpoint.';

class StopRequested extends Error {}

export class InProcessRebuilds implements RebuildRunner {
  readonly reachable = true;
  readonly kind = 'in-process' as const;
  readonly #deps: () => RuntimeDeps;
  readonly #states = new Map<string, RebuildState>();
  readonly #running = new Set<Promise<unknown>>();
  readonly #listeners = new Set<() => void>();
  #stopping = false;

  constructor(deps: () => RuntimeDeps) {
    this.#deps = deps;
  }

  #emit(): void {
    for (const l of this.#listeners) l();
  }

  async start(request: RebuildStart): Promise<{ state: RebuildState; existing: boolean }> {
    const id = rebuildJobId(request.projection, request.userId);
    const current = this.#states.get(id);
    if (current && !isFinished(current)) return { state: current, existing: true };
    const now = new Date().toISOString();
    const state: RebuildState = {
      id,
      projection: request.projection,
      userId: request.userId ?? null,
      userEmail: (request.userId && request.userEmail) || null,
      switch: request.switch,
      version: null,
      phase: 'queued',
      eventsDone: 0,
      eventsTotal: null,
      rate: 0,
      etaSeconds: null,
      changes: null,
      error: null,
      requestedBy: request.requestedBy,
      startedAt: now,
      updatedAt: now,
      runner: 'in-process',
    };
    this.#states.set(id, state);
    let started!: () => void;
    const firstReport = new Promise<void>((resolve) => (started = resolve));
    const update = (patch: Partial<RebuildState>) => {
      Object.assign(state, patch, { updatedAt: new Date().toISOString() });
      this.#emit();
      started();
    };
    const onProgress = (p: RebuildProgress) => {
      // Thrown after a committed batch, the one safe place: the rebuild resumes from its checkpoint.
      if (this.#stopping && p.phase === 'building') throw new StopRequested(STOPPED_FOR_RESTART);
      update({ version: p.version, phase: p.phase === 'done' ? 'switching' : p.phase, eventsDone: p.eventsDone, eventsTotal: p.eventsTotal, rate: p.rate, etaSeconds: p.etaSeconds });
    };
    const run = rebuild(this.#deps(), request.projection, { ...(request.userId ? { userId: request.userId } : {}), switch: request.switch, onProgress })
      .then((results: RebuildResult[]) => {
        const r = results[0];
        update({ phase: 'done', version: r?.version ?? state.version, eventsDone: request.userId ? (r?.eventsApplied ?? 0) : state.eventsDone, etaSeconds: 0, changes: r?.changes ?? null });
      })
      .catch((error: unknown) => update({ phase: 'failed', error: error instanceof Error ? error.message : String(error) }));
    this.#running.add(run);
    void run.finally(() => this.#running.delete(run));
    await firstReport;
    if (state.phase === 'failed' && state.error && /already running/.test(state.error)) {
      // Another process (a CLI `--here` rebuild) holds the projection's rebuild lock: nothing started.
      this.#states.delete(id);
      this.#emit();
      throw lockedConflict(state.error);
    }
    return { state: { ...state }, existing: false };
  }

  async list(): Promise<RebuildState[]> {
    const since = Date.now() - DAY_MS;
    return [...this.#states.values()]
      .filter((s) => !isFinished(s) || Date.parse(s.updatedAt) > since)
      .map((s) => ({ ...s }))
      .sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.#stopping = true;
    await Promise.allSettled([...this.#running]);
  }
}

/** The job's data with what only the console shows: who asked, and the user's e-mail when asked by it. */
type ConsoleJobData = RebuildJobData & { requestedBy?: string; userEmail?: string };
type RebuildJob = Job<ConsoleJobData, RebuildResult[]>;

export class BullRebuilds implements RebuildRunner {
  readonly kind = 'bullmq' as const;
  readonly #connection: ConnectionOptions;
  readonly #prefix: string;
  /** This process's read models: a job carries their code versions, for a projector running the same code. */
  readonly #projections: () => readonly Projection[];
  readonly #listeners = new Set<() => void>();
  #opened: Promise<{ queue: Queue<RebuildJobData, RebuildResult[]>; events: QueueEvents; close(): Promise<void> }> | null = null;
  /** The queue's Redis client once opened: whether it is connected now, not only once. */
  #client: { status: string } | null = null;

  constructor(connection: ConnectionOptions, prefix: string, projections: () => readonly Projection[]) {
    this.#connection = connection;
    this.#prefix = prefix;
    this.#projections = projections;
  }

  #open() {
    this.#opened ??= openRebuildQueue(this.#connection, this.#prefix).then(async (q) => {
      this.#client = (await q.queue.client) as unknown as { status: string };
      const changed = () => {
        for (const l of this.#listeners) l();
      };
      for (const e of ['added', 'waiting', 'active', 'progress', 'completed', 'failed', 'stalled'] as const) q.events.on(e, changed);
      return q;
    });
    this.#opened.catch(() => (this.#opened = null));
    return this.#opened;
  }

  get reachable(): boolean {
    return this.#client?.status === 'ready';
  }

  async start(request: RebuildStart): Promise<{ state: RebuildState; existing: boolean }> {
    const { queue } = await this.#open();
    const data: ConsoleJobData = {
      target: request.projection,
      ...(request.userId ? { userId: request.userId } : {}),
      ...(request.userId && request.userEmail ? { userEmail: request.userEmail } : {}),
      switch: request.switch,
      requestedBy: request.requestedBy,
    };
    const { job, existing } = await enqueueRebuild(queue, data, this.#projections());
    return { state: await toState(job as RebuildJob), existing };
  }

  async list(): Promise<RebuildState[]> {
    const { queue } = await this.#open();
    const jobs = (await queue.getJobs(['active', 'waiting', 'delayed', 'prioritized', 'paused', 'completed', 'failed'], 0, 100)) as RebuildJob[];
    const since = Date.now() - DAY_MS;
    const states = await Promise.all(jobs.filter(Boolean).map((j) => toState(j)));
    return states.filter((s) => !isFinished(s) || Date.parse(s.updatedAt) > since).sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    void this.#open().catch(() => undefined);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    const opened = this.#opened;
    this.#opened = null;
    if (!opened) return;
    // A queue whose Redis is not connected (still connecting, or lost since) waits for a server that may not
    // come: closing does not wait with it, and closes it if it ever opens or reconnects (QA: a gateway's
    // SIGTERM ran out its whole deadline).
    if (!this.reachable) void opened.then((q) => q.close(), () => undefined);
    else await (await opened.catch(() => null))?.close();
    this.#client = null;
  }
}

async function toState(job: RebuildJob): Promise<RebuildState> {
  const state = await job.getState();
  const p = (job.progress && typeof job.progress === 'object' ? job.progress : null) as RebuildJobProgress | null;
  const result = Array.isArray(job.returnvalue) ? job.returnvalue[0] : undefined;
  // The job's fields were read before its state: one that ended in between has no result or reason in
  // them yet (BullMQ writes them with `finishedOn`, at once). It is still running for this answer, so its
  // end is never logged without its version and counts (a one-user recompute logged "v-, 0 events").
  const endedUnseen = (state === 'completed' || state === 'failed') && !job.finishedOn;
  const running = (): RebuildState['phase'] => (p?.phase === 'done' ? 'switching' : (p?.phase ?? 'building'));
  const phase: RebuildState['phase'] = endedUnseen
    ? running()
    : state === 'completed' ? 'done' : state === 'failed' ? 'failed' : state === 'active' ? running() : 'queued';
  const at = (ms: number | undefined | null) => new Date(ms ?? job.timestamp).toISOString();
  return {
    id: job.id ?? rebuildJobId(job.data.target, job.data.userId),
    projection: job.data.target,
    userId: job.data.userId ?? null,
    userEmail: (job.data.userId && job.data.userEmail) || null,
    switch: job.data.switch !== false,
    version: result?.version ?? p?.version ?? null,
    phase,
    eventsDone: job.data.userId && result ? result.eventsApplied : (p?.done ?? 0),
    changes: (job.data.userId && result?.changes) || null,
    eventsTotal: p?.total ?? null,
    rate: phase === 'building' || phase === 'finishing' ? (p?.rate ?? 0) : 0,
    etaSeconds: phase === 'done' ? 0 : (p?.etaSeconds ?? null),
    error: phase === 'failed' ? (job.failedReason ?? 'failed') : null,
    requestedBy: job.data.requestedBy ?? null,
    startedAt: at(job.timestamp),
    updatedAt: state === 'active' || endedUnseen ? new Date().toISOString() : at(job.finishedOn ?? job.processedOn),
    runner: 'bullmq',
  };
}

