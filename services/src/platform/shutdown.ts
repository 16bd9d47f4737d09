import type { Logger } from 'pino';

/**
 * SIGINT and SIGTERM close the process in order and exit 0. A close can hang on a dependency that is
 * gone (a BullMQ worker or queue waits for a Redis connection that never comes back), and a supervisor
 * or an operator at a terminal should not have to reach for SIGKILL: after `deadlineSeconds`
 * (SHUTDOWN_TIMEOUT_SECONDS) the process exits 1 with one line naming what was still closing, and a
 * second signal exits 1 at once. Kept below the usual grace periods (Docker's 10 s stop timeout,
 * Kubernetes' 30 s) only by the operator's choice: the default is 10 s.
 */
export function closeOnSignals(options: {
  logger: Logger;
  deadlineSeconds: number;
  /** Closes everything, calling `closing` with the name of each part as it starts closing it. */
  close(closing: (what: string) => void): Promise<void>;
}): void {
  const { logger, deadlineSeconds } = options;
  let stopping: NodeJS.Signals | undefined;
  let closing = 'the process';
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.error({ signal, closing }, `second signal (${signal}) while shutting down: exiting at once (${closing} had not closed)`);
      process.exit(1);
    }
    stopping = signal;
    logger.info({ signal, deadlineSeconds }, 'shutting down');
    // A part being closed can still throw from a dependency that is gone (a BullMQ connection to a Redis
    // that is down emitted 'error' with no listener left: a stack trace, about one shutdown in eight).
    // Once shutting down, that ends the process as a failed close does: one line naming the part, exit 1.
    const onFailure = (error: unknown) => {
      logger.error({ err: error, closing }, `shutdown failed while closing ${closing}: ${error instanceof Error ? error.message : String(error)}; exiting`);
      process.exit(1);
    };
    process.on('uncaughtException', onFailure);
    process.on('unhandledRejection', onFailure);
    setTimeout(() => {
      logger.error({ signal, closing, deadlineSeconds }, `shutdown deadline: did not close within ${deadlineSeconds} s: ${closing}; exiting`);
      process.exit(1);
    }, deadlineSeconds * 1000);
    options
      .close((what) => (closing = what))
      .then(
        () => {
          // The last line of a clean stop says so (QA: "shutting down" was the last, with nothing after it).
          logger.info({ signal }, 'stopped');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error, closing }, `shutdown failed while closing ${closing}`);
          process.exit(1);
        },
      );
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, onSignal);
}
