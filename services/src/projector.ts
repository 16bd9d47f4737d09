import { loadConfigOrExit } from '@oj/infra/config';
import { createRuntime } from './platform/runtime.ts';
import { startBackgroundWorkers } from './platform/workers.ts';
import { warnOfMissingNodeOptions } from './platform/heap-options.ts';
import { serveProjectorEndpoints } from './platform/projector-endpoints.ts';
import { redisReadiness } from './platform/readiness.ts';

/** Services mode: the projector process (dispatcher and lane workers), scaled by lanes. */
const config = loadConfigOrExit();
const runtime = await createRuntime(config);
warnOfMissingNodeOptions('projector', runtime.deps.logger);
await startBackgroundWorkers(runtime, { projector: true, mail: false });
// Its own metrics live in this process: served when PROJECTOR_METRICS_PORT is set, closed last.
// Its readiness adds Redis when its lanes are BullMQ queues: without Redis they stall.
const redisCheck = config.PROJECTOR_METRICS_PORT !== undefined && config.mode.projector === 'bullmq' && config.REDIS_URL ? redisReadiness(config.REDIS_URL) : undefined;
const endpoints =
  config.PROJECTOR_METRICS_PORT === undefined
    ? undefined
    : await serveProjectorEndpoints({
        host: config.HOST,
        port: config.PROJECTOR_METRICS_PORT,
        metrics: runtime.deps.metrics,
        readiness: redisCheck ? [...runtime.deps.readiness, redisCheck] : runtime.deps.readiness,
      });
// PROJECTOR_WORK_LANES (default all) lets several projector processes split the lanes between them;
// the dispatcher is elected among them whatever lanes each works.
runtime.deps.logger.info(
  { lanes: config.PROJECTOR_LANES, workLanes: config.PROJECTOR_WORK_LANES ?? 'all', mode: config.mode.projector, metrics: endpoints ? `http://${config.HOST}:${endpoints.port}/metrics` : 'off' },
  'projector running',
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () =>
    void runtime
      .close()
      .then(() => endpoints?.close())
      .then(() => redisCheck?.close())
      .then(() => process.exit(0)),
  );
}
