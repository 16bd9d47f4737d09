import { Worker } from 'node:worker_threads';
import type { Kysely } from 'kysely';
import { StoredStateError } from './stored-states.ts';
import { partTasks, type PartTaskInput, type PartTaskName, type PartTaskOutput } from './partition-replay.ts';

/**
 * Runs a task for every part of a user's journal (partition-replay.ts): in worker threads, one per
 * part, so a heavy user's replay uses every core instead of one (and the gateway's event loop keeps
 * answering meanwhile), or in this thread one part after the other (PGlite, which one process owns, the
 * CLI, tests). Both run the same functions on the same inputs.
 */
export interface PartRunner {
  run<K extends PartTaskName>(task: K, inputs: ReadonlyArray<PartTaskInput<K>>): Promise<Array<PartTaskOutput<K>>>;
  /** Runs the task once where every part runs (each worker), with the same input. */
  everywhere<K extends PartTaskName>(task: K, input: PartTaskInput<K>): Promise<void>;
  /** Starts what the parts run in (the workers), so the first view does not wait for it. */
  start(): void;
  close(): Promise<void>;
}

export function inProcessParts(db: Kysely<any>): PartRunner {
  return {
    async run(task, inputs) {
      const out = [];
      for (const input of inputs) out.push(await (partTasks[task] as (db: Kysely<any>, i: typeof input) => Promise<PartTaskOutput<typeof task>>)(db, input));
      return out;
    },
    async everywhere(task, input) {
      await (partTasks[task] as (db: Kysely<any>, i: typeof input) => Promise<unknown>)(db, input);
    },
    start: () => {},
    close: async () => {},
  };
}

interface Reply {
  id: number;
  result?: unknown;
  error?: { name: string; message: string; seq?: number };
}

/** A task's error from a worker, as it was thrown there (a stored state's failed check keeps its chunk). */
function errorOf(e: NonNullable<Reply['error']>): Error {
  if (e.name === 'StoredStateError') return new StoredStateError(e.seq ?? 0, e.message);
  const error = new Error(e.message);
  error.name = e.name;
  return error;
}

/**
 * Worker threads for the parts, started at the first task and kept (each keeps its parts of the last
 * few users it replayed, as this process would). Part p always goes to worker p, whose caches hold it.
 * A worker that dies fails its tasks in flight and is started again at the next task.
 */
export function workerParts(databaseUrl: string, size: number): PartRunner {
  const workers: Array<{ worker: Worker; pending: Map<number, { resolve(v: unknown): void; reject(e: Error): void }> } | undefined> = [];
  let next = 0;
  const workerAt = (i: number) => {
    let w = workers[i];
    if (w) return w;
    const worker = new Worker(new URL('./part-worker.ts', import.meta.url), { workerData: { databaseUrl } });
    // An idle worker must not keep a CLI or a test process alive.
    worker.unref();
    const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
    w = { worker, pending };
    const entry = w;
    worker.on('message', (m: Reply) => {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.error) p.reject(errorOf(m.error));
      else p.resolve(m.result);
    });
    const fail = (error: Error) => {
      if (workers[i] === entry) workers[i] = undefined;
      for (const p of pending.values()) p.reject(error);
      pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`audit replay worker exited with code ${code}`)));
    workers[i] = w;
    return w;
  };
  const call = (i: number, task: PartTaskName, input: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      const w = workerAt(i);
      const id = next++;
      w.pending.set(id, { resolve, reject });
      // Referenced while a task is in flight, so an awaiting process does not exit under it.
      w.worker.ref();
      w.worker.postMessage({ id, task, input });
    }).finally(() => {
      const w = workers[i];
      if (w && !w.pending.size) w.worker.unref();
    });
  return {
    async run(task, inputs) {
      return (await Promise.all(inputs.map((input, i) => call(i % size, task, input)))) as Array<PartTaskOutput<typeof task>>;
    },
    async everywhere(task, input) {
      await Promise.all(Array.from({ length: size }, (_, i) => call(i, task, input)));
    },
    start() {
      for (let i = 0; i < size; i++) workerAt(i);
    },
    async close() {
      await Promise.all(workers.map((w) => w?.worker.terminate()));
      workers.length = 0;
    },
  };
}
