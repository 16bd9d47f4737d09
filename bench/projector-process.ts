import { openDatabase } from '@oj/infra/db/database';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { startLiveProjector, type ProjectorProcessMessage, type ProjectorProcessSetup } from './live-projector.ts';

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
const projector = await startLiveProjector({ database, eventStore, redisUrl: setup.redisUrl, prefix: setup.prefix });
process.on('message', (m: { t: 'take' | 'stop' }) => {
  void (async () => {
    if (m.t === 'take') return send({ t: 'taken', measured: await projector.take() });
    await projector.stop();
    await eventStore.close();
    await database.close();
    process.exit(0);
  })();
});
await send({ t: 'ready' });
