import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '@oj/infra/db/database';
import type { DaysWorkerData, DaysWorkerReply } from './days-workers.ts';
import { claimer, dayTradeChunks, writeDays } from './tables.ts';

/**
 * A worker thread of `writeDaysInWorkers`: claims chunks of users until none is left, reads their trade
 * rows and writes their day records, in one transaction on connections of its own (one reads ahead
 * while the other writes). Its last message says what it wrote, or why it failed; then it ends.
 */
const { databaseUrl, tables, chunks, claimed } = workerData as DaysWorkerData;
// A few statements per chunk, run once each: nothing to gain from preparing, and safe behind any pooler.
const database = await openDatabase({ url: databaseUrl, poolSize: 2, preparedStatements: 'off' });
let reply: DaysWorkerReply;
try {
  const written = await writeDays(database, tables.daily_premium, dayTradeChunks(database.db, tables, claimer(chunks, new Int32Array(claimed))));
  reply = { written };
} catch (error) {
  const e = error as Error;
  reply = { error: { name: e.name, message: e.message } };
} finally {
  await database.close();
}
parentPort!.postMessage(reply);
