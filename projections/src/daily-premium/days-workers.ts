import { Worker } from 'node:worker_threads';
import { settleAll } from '@oj/infra/settle';
import type { DayTables } from './tables.ts';

/** What a day records worker is started with (`days-worker.ts`). */
export interface DaysWorkerData {
  databaseUrl: string;
  tables: DayTables;
  /** Every chunk of users; each worker claims the next one through `claimed`. */
  chunks: string[][];
  /** A shared counter (one Int32): the index of the next chunk to claim. */
  claimed: SharedArrayBuffer;
}

/** A worker's last message: its records written (committed), or why not. */
export type DaysWorkerReply = { written: number } | { error: { name: string; message: string } };

/**
 * Writes the day records of every chunk of users with `workers` worker threads (`days-worker.ts`),
 * each with its own connection and transaction, claiming chunks from a shared counter until none is
 * left. The table must hold none of these users' records. Every worker settles (its transaction
 * committed or rolled back, its thread ended) before this resolves or throws: nothing may outlive the
 * rebuild's lock. Resolves to the records written.
 */
export async function writeDaysInWorkers(databaseUrl: string, tables: DayTables, chunks: string[][], workers: number): Promise<number> {
  const data: DaysWorkerData = { databaseUrl, tables, chunks, claimed: new SharedArrayBuffer(4) };
  const written = await settleAll(Array.from({ length: workers }, () => runWorker(data)));
  return written.reduce((n, w) => n + w, 0);
}

function runWorker(data: DaysWorkerData): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./days-worker.ts', import.meta.url), { workerData: data });
    let reply: DaysWorkerReply | undefined;
    worker.on('message', (m: DaysWorkerReply) => (reply = m));
    worker.on('error', reject);
    worker.on('exit', (code) => {
      if (reply && 'written' in reply) return resolve(reply.written);
      const error = new Error(reply && 'error' in reply ? reply.error.message : `day records worker exited with code ${code}`);
      if (reply && 'error' in reply) error.name = reply.error.name;
      reject(error);
    });
  });
}
