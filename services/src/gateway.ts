import cluster from 'node:cluster';
import { Redis } from 'ioredis';
import { listenError, loadConfigOrExit, orExitForConfigError } from '@oj/infra/config';
import { createLogger } from '@oj/infra/logger';
import { endRedisClient, isConnectionError } from '@oj/infra/connection-errors';
import { buildApp } from './app/app.ts';
import { createRuntime } from './platform/runtime.ts';
import { startBackgroundWorkers } from './platform/workers.ts';
import { closeOnSignals } from './platform/shutdown.ts';
import { exportProjectionLag } from './platform/lag-metrics.ts';
import { warnOfMissingNodeOptions } from './platform/heap-options.ts';

/**
 * Services mode: the HTTP gateway (API and console). The projector runs as its own process.
 *
 * With GATEWAY_PROCESSES > 1 this process only supervises: Node's cluster module forks that many
 * gateways that accept connections on the one port (the primary hands them out in turn), and replaces
 * one that dies. Nothing a gateway holds needs to be shared: appends are guarded by stream revision in
 * the store, idempotency keys are claimed in PostgreSQL, the principal cache of each is kept fresh by
 * NOTIFY, and the mail outbox claims its rows with SKIP LOCKED. Rate-limit counters go to Redis. The
 * workers run with the primary's Node options (cluster.fork passes on process.execArgv), so the heap
 * settings `npm run gateway` starts it with (platform/heap-options.ts) hold in every one.
 */
const config = loadConfigOrExit();

if (config.GATEWAY_PROCESSES > 1 && cluster.isPrimary) {
  const logger = createLogger(config.LOG_LEVEL);
  let stopping = false;
  /** Ids of the processes that have listened: one that dies before it did could not start at all. */
  const started = new Set<number>();
  /** When processes that had started died lately: a crash loop ends the supervisor instead of hiding it. */
  let deaths: number[] = [];
  const fork = () => cluster.fork();
  const stopAll = (exitCode: number) => {
    stopping = true;
    process.exitCode = exitCode;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  };
  for (let i = 0; i < config.GATEWAY_PROCESSES; i++) fork();
  cluster.on('listening', (worker) => started.add(worker.id));
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    if (!started.has(worker.id)) {
      // It printed why (a setting to fix, a database a newer release migrated): a new one would fail the
      // same way, so stop with its exit code, as one gateway process would (QA 75: this exited 0, having
      // logged that it was starting another).
      logger.error({ pid: worker.process.pid, code, signal }, 'gateway process could not start; stopping');
      stopAll(code || 1);
      return;
    }
    const now = Date.now();
    deaths = [...deaths.filter((t) => now - t < 60_000), now];
    if (deaths.length > 5) {
      logger.error({ pid: worker.process.pid, code, signal, deathsInLastMinute: deaths.length }, 'gateway processes keep dying; stopping');
      stopAll(1);
      return;
    }
    logger.error({ pid: worker.process.pid, code, signal }, 'gateway process died; starting another');
    // Not at once: a process that dies right after it started would otherwise be forked in a tight loop.
    setTimeout(fork, 1000);
  });
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      stopping = true;
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(sig);
      // A moment past the gateways' own deadline (platform/shutdown.ts), which each exits by.
      const timer = setTimeout(() => process.exit(0), (config.SHUTDOWN_TIMEOUT_SECONDS + 1) * 1000);
      cluster.on('exit', () => {
        if (Object.keys(cluster.workers ?? {}).length === 0) {
          clearTimeout(timer);
          process.exit(0);
        }
      });
    });
  }
  logger.info({ processes: config.GATEWAY_PROCESSES, port: config.PORT }, 'gateway supervisor started');
} else {
  // A setting the operator must fix (database, port) ends start-up as a bad value does: one line, exit 2.
  const runtime = await orExitForConfigError(() => createRuntime(config));
  warnOfMissingNodeOptions('gateway', runtime.deps.logger);
  await startBackgroundWorkers(runtime, { projector: false, mail: true });
  exportProjectionLag(runtime);
  const rateLimitRedis = config.REDIS_URL ? new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false }) : undefined;
  // An unreachable Redis only means limits are not counted for a while (skipOnError): do not crash. The
  // outage itself is logged once by the process's Redis monitor (platform/readiness.ts).
  rateLimitRedis?.on('error', (err) =>
    isConnectionError(err) ? runtime.deps.logger.debug({ err: err.message }, 'rate-limit store unreachable') : runtime.deps.logger.warn({ err: err.message }, 'rate-limit store error'),
  );
  const app = await buildApp({ ...runtime.deps, rateLimitRedis }, { serveWeb: true });
  closeOnSignals({
    logger: runtime.deps.logger,
    deadlineSeconds: config.SHUTDOWN_TIMEOUT_SECONDS,
    async close(closing) {
      closing('the HTTP server');
      await app.close();
      closing('the rate-limit store');
      if (rateLimitRedis) await endRedisClient(rateLimitRedis);
      await runtime.close(closing);
    },
  });
  await orExitForConfigError(() =>
    app.listen({ host: config.HOST, port: config.PORT }).catch((error: unknown) => {
      throw listenError(error, config.HOST, config.PORT, 'PORT');
    }),
  );
  const url = `http://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${(app.server.address() as { port: number }).port}`;
  // PUBLIC_URL is the address users and mailed links use; behind a proxy it differs from the bound one.
  app.log.info(
    { mode: config.mode, pid: process.pid, publicUrl: config.PUBLIC_URL },
    `gateway listening on ${url}, public at ${config.PUBLIC_URL} (console at ${url}/, API at ${url}/api/v1, docs at ${url}/api/v1/docs)`,
  );
}
