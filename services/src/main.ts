import { listenError, loadConfigOrExit, orExitForConfigError } from '@oj/infra/config';
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
  // Listening before the projector starts: the console loads and says how far the start got while the
  // projector rebuilds or catches up its read models; the API answers 503 until they are up to date.
  runtime.deps.startup?.hold();
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
  await app.listen({ host: config.HOST, port: config.PORT }).catch((error: unknown) => {
    throw listenError(error, config.HOST, config.PORT, 'PORT');
  });
  await startBackgroundWorkers(runtime, { projector: true, mail: true });
  const url = `http://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${(app.server.address() as { port: number }).port}`;
  // PUBLIC_URL is the address users and mailed links use; behind a proxy it differs from the bound one.
  app.log.info(
    { mode: config.mode, dataDir: config.DATA_DIR, publicUrl: config.PUBLIC_URL },
    `Options Journal is listening on ${url}, public at ${config.PUBLIC_URL} (console at ${url}/, API at ${url}/api/v1, docs at ${url}/api/v1/docs)`,
  );
  const since = performance.now();
  void runtime.deps.startup?.opened.then(() =>
    app.log.info({ seconds: Math.round(performance.now() - since) / 1000 }, 'the read models are up to date: the API answers'),
  );
}

// A setting the operator must fix (database, port) ends start-up as a bad value does: one line, exit 2.
await orExitForConfigError(main);
