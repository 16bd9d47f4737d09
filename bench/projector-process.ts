import { Registry } from 'prom-client';
import { openDatabase } from '@oj/infra/db/database';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { createLogger } from '@oj/infra/logger';
import { startProjector } from '@oj/projections/runtime/projector';
import { tradesProjection } from '@oj/projections/trades/projection';
import { benchProjectorOptions, measuredSince, type ProjectorProcessMessage, type ProjectorProcessSetup } from './projector-options.ts';

/**
 * The BullMQ live runs' projector in a process of its own (`bench/projections.ts` starts it), as a
 * deployment runs `npm run projector`: its own pool of the runtime's default size, its own event loop,
 * woken by NOTIFY. Says `ready` once caught up to the head; answers `take` with what it measured since
 * the last one; on `stop`, stops and exits.
 */
const setup = JSON.parse(process.argv[2]!) as ProjectorProcessSetup;
const send = (m: ProjectorProcessMessage) => new Promise<void>((resolve, reject) => process.send!(m, (err: Error | null) => (err ? reject(err) : resolve())));

const database = await openDatabase({ url: setup.databaseUrl, preparedStatements: setup.preparedStatements });
const eventStore = new PostgresEventStore(database);
const metrics = new Registry();
const batchSizes: number[] = [];
const projector = await startProjector({
  ...benchProjectorOptions(setup.redisUrl, setup.prefix),
  database,
  eventStore,
  logger: createLogger('warn'),
  metrics,
  projections: [tradesProjection],
  onApplied: (b) => void batchSizes.push(b.events.length),
});
await projector.waitFor('head', 120_000);
const take = measuredSince(metrics, batchSizes);
process.on('message', (m: { t: 'take' | 'stop' }) => {
  void (async () => {
    if (m.t === 'take') return send({ t: 'taken', measured: await take() });
    await projector.stop();
    await eventStore.close();
    await database.close();
    process.exit(0);
  })();
});
await send({ t: 'ready' });
