import { loadConfigOrExit } from '@oj/infra/config';
import { buildApp } from './app/app.ts';
import { createRuntime, type Runtime } from './platform/runtime.ts';
import { startBackgroundWorkers } from './platform/workers.ts';
import { closeOnSignals } from './platform/shutdown.ts';

/**
 * `npm start`: the whole product in one process. With no service URLs set that is the embedded mode:
 * PGlite under DATA_DIR, the in-process projector, mail as .eml files. The console and the API share
 * one port.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const runtime: Runtime = await createRuntime(config);
  await startBackgroundWorkers(runtime, { projector: true, mail: true });
  const app = await buildApp(runtime.deps, { serveWeb: true, sharedEventLoop: true });
  closeOnSignals({
    logger: runtime.deps.logger,
    deadlineSeconds: config.SHUTDOWN_TIMEOUT_SECONDS,
    async close(closing) {
      closing('the HTTP server');
      await app.close();
      await runtime.close(closing);
    },
  });
  await app.listen({ host: config.HOST, port: config.PORT });
  const url = `http://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${(app.server.address() as { port: number }).port}`;
  app.log.info({ mode: config.mode, dataDir: config.DATA_DIR }, `Options Journal is listening on ${url} (console at ${url}/, API at ${url}/api/v1, docs at ${url}/api/v1/docs)`);
}

await main();
