import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '@oj/infra/db/database';
import { partTasks, type PartTaskName } from './partition-replay.ts';

/**
 * A worker thread of the audit's part runner (part-runner.ts): its own connections, the same part
 * functions as the gateway's thread would run. Messages that arrive while it opens its pool wait in the
 * port until the listener below starts it.
 */
// Unprepared statements: safe behind any connection pooler whatever the deployment's setting.
const database = await openDatabase({ url: (workerData as { databaseUrl: string }).databaseUrl, poolSize: 4, preparedStatements: 'off' });
parentPort!.on('message', async ({ id, task, input }: { id: number; task: PartTaskName; input: never }) => {
  try {
    parentPort!.postMessage({ id, result: await partTasks[task](database.db, input) });
  } catch (error) {
    const e = error as Error & { seq?: number };
    parentPort!.postMessage({ id, error: { name: e.name, message: e.message, seq: e.seq } });
  }
});
