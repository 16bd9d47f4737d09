import { loadConfigOrExit } from '@oj/infra/config';
import { buildApp } from './app/app.ts';
import { createRuntime } from './platform/runtime.ts';
import { startBackgroundWorkers } from './platform/workers.ts';
import { exportProjectionLag } from './platform/lag-metrics.ts';

/** Services mode: the HTTP gateway (API and console). The projector runs as its own process. */
const config = loadConfigOrExit();
const runtime = await createRuntime(config);
await startBackgroundWorkers(runtime, { projector: false, mail: true });
exportProjectionLag(runtime);
const app = await buildApp(runtime.deps, { serveWeb: true });
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void app.close().then(() => runtime.close()).then(() => process.exit(0)));
}
await app.listen({ host: config.HOST, port: config.PORT });
const url = `http://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${(app.server.address() as { port: number }).port}`;
app.log.info({ mode: config.mode }, `gateway listening on ${url} (console at ${url}/, API at ${url}/api/v1, docs at ${url}/api/v1/docs)`);
