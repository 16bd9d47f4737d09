import { loadConfig } from '@oj/infra/config';
import { buildApp } from './app/app.ts';
import { createRuntime } from './platform/runtime.ts';
import { startBackgroundWorkers } from './platform/workers.ts';

/** Services mode: the HTTP gateway (API and console). The projector runs as its own process. */
const config = loadConfig();
const runtime = await createRuntime(config);
await startBackgroundWorkers(runtime, { projector: false, mail: true });
const app = await buildApp(runtime.deps, { serveWeb: true });
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void app.close().then(() => runtime.close()).then(() => process.exit(0)));
}
await app.listen({ host: config.HOST, port: config.PORT });
app.log.info(`gateway listening on ${config.HOST}:${config.PORT}`);
