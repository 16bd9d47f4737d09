import { listenError, loadConfigOrExit, orExitForConfigError } from '@oj/infra/config';
import { createRuntime } from './platform/runtime.ts';
import { startBackgroundWorkers } from './platform/workers.ts';
import { warnOfMissingNodeOptions } from './platform/heap-options.ts';
import { closeOnSignals } from './platform/shutdown.ts';
import { serveProjectorEndpoints, type ProjectorEndpoints } from './platform/projector-endpoints.ts';

/** Services mode: the projector process (dispatcher and lane workers), scaled by lanes. */
const config = loadConfigOrExit();
// A setting the operator must fix (database, metrics port) ends start-up as a bad value does: one line, exit 2.
const runtime = await orExitForConfigError(() => createRuntime(config));
warnOfMissingNodeOptions('projector', runtime.deps.logger);
await startBackgroundWorkers(runtime, { projector: true, mail: false });
// Its own metrics live in this process: served when PROJECTOR_METRICS_PORT is set, closed last.
const endpoints = config.PROJECTOR_METRICS_PORT === undefined ? undefined : await serveEndpoints(config.PROJECTOR_METRICS_PORT);
// PROJECTOR_WORK_LANES (default all) lets several projector processes split the lanes between them;
// the dispatcher is elected among them whatever lanes each works.
runtime.deps.logger.info(
  { lanes: config.PROJECTOR_LANES, workLanes: config.PROJECTOR_WORK_LANES ?? 'all', mode: config.mode.projector, metrics: endpoints ? `http://${config.HOST}:${endpoints.port}/metrics` : 'off' },
  'projector running',
);
closeOnSignals({
  logger: runtime.deps.logger,
  deadlineSeconds: config.SHUTDOWN_TIMEOUT_SECONDS,
  async close(closing) {
    await runtime.close(closing);
    closing('the metrics endpoints');
    await endpoints?.close();
  },
});

/**
 * The metrics and health endpoints. Readiness is the runtime's checks, Redis among them when the lanes
 * are BullMQ queues (a `REDIS_URL` is what makes them so: the redis-monitor worker adds it). (Endpoints
 * that fail to listen end the process: the top-level await rejects.)
 */
async function serveEndpoints(port: number): Promise<ProjectorEndpoints> {
  return orExitForConfigError(() =>
    serveProjectorEndpoints({ host: config.HOST, port, metrics: runtime.deps.metrics, readiness: runtime.deps.readiness, metricsToken: config.METRICS_TOKEN }).catch((error: unknown) => {
      throw listenError(error, config.HOST, port, 'PROJECTOR_METRICS_PORT');
    }),
  );
}
