import { Registry, collectDefaultMetrics } from 'prom-client';
import { sql } from 'kysely';
import { ConfigError, loadConfig, type Config } from '@oj/infra/config';
import { systemClock, type Clock } from '@oj/infra/clock';
import { openDatabase, type Database } from '@oj/infra/db/database';
import { createEventStore } from '@oj/infra/eventstore/create';
import { createLogger } from '@oj/infra/logger';
import { observeLiveHeap } from '@oj/infra/live-heap';
import { claimDataDir, newJournalNotice, startsNewJournal } from '@oj/projections/runtime/data-dir-lock';
import type { AppDeps, ReadinessCheck } from '../app/deps.ts';
import { StartupGate } from './startup-gate.ts';
import { migrate } from './migrations.ts';

/** Long-running work beside the HTTP server: the projector, the mail outbox worker. */
export interface BackgroundWorker {
  name: string;
  stop(): Promise<void>;
}

export interface Runtime {
  deps: AppDeps;
  workers: BackgroundWorker[];
  /** Stops the workers (last started first), then the stores; `closing` hears the name of each as it starts. */
  close(closing?: (what: string) => void): Promise<void>;
}

export type ProcessRole = 'all' | 'gateway' | 'projector';

/**
 * Opens the stores the configuration selects, runs migrations, and returns the dependencies every
 * process role shares. `npm start` runs role `all` (gateway, projector and mail worker in one process
 * on the embedded stores); services mode runs `gateway` and `projector` as separate processes.
 */
export async function createRuntime(config: Config, options: { clock?: Clock; database?: Database; pendingMigrations?: 'apply' | 'refuse' } = {}): Promise<Runtime> {
  const logger = createLogger(config.LOG_LEVEL);
  // PGlite is single-process: refuse to open the data directory another process (the CLI) holds.
  const dataDirClaim = !options.database && !config.DATABASE_URL ? claimDataDir(config.DATA_DIR) : null;
  const database =
    options.database ?? (await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATABASE_URL ? undefined : `${config.DATA_DIR}/pg`, preparedStatements: config.DATABASE_PREPARED_STATEMENTS }));
  // The first statement is the first connection: a DATABASE_URL that cannot work fails here.
  const onNewerMigrations = (names: string[]) =>
    logger.warn({ migrations: names }, `running on a database a newer release migrated (${names.join(', ')}): each of its migrations lets older releases run; start that release again when the rollback is over`);
  // Starting a release upgrades its database; the log names the migrations, as the older release may
  // not open the database afterwards (QA 73: nothing said it had happened).
  const onUpgrade = (names: string[]) =>
    logger.info({ migrations: names }, `upgrading the database to this release: ${names.length} migration${names.length === 1 ? '' : 's'} (${names.join(', ')})`);
  await migrate(database.db, { onNewerMigrations, onUpgrade, pending: options.pendingMigrations ?? 'apply' }).catch(async (error: unknown) => {
    const fix = config.DATABASE_URL && !options.database ? databaseUrlError(error, config.DATABASE_URL) : undefined;
    // Nothing started yet: let the stores go, so a tool that refuses (a ConfigError) ends at once.
    if (!options.database) await database.close().catch(() => {});
    dataDirClaim?.release();
    throw fix ?? error;
  });
  const eventStore = await createEventStore(config, database);
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  const stopLiveHeap = observeLiveHeap(metrics);
  const readiness: ReadinessCheck[] = [
    { name: database.kind === 'pglite' ? 'pglite' : 'postgres', check: async () => void (await sql`select 1`.execute(database.db)) },
    { name: eventStore.kind === 'eventstoredb' ? 'eventstoredb' : 'event-store', check: async () => void (await eventStore.head()) },
  ];
  const deps: AppDeps = { config, database, eventStore, clock: options.clock ?? systemClock, logger, metrics, readiness, startup: new StartupGate() };
  const workers: BackgroundWorker[] = [];
  return {
    deps,
    workers,
    async close(closing = () => {}) {
      for (const w of workers.reverse()) {
        closing(`the ${w.name} worker`);
        await w.stop().catch((err) => logger.error({ err, worker: w.name }, 'worker stop failed'));
      }
      closing('the event store');
      await eventStore.close();
      closing('the database');
      if (!options.database) await database.close();
      dataDirClaim?.release();
      stopLiveHeap();
    },
  };
}

/**
 * A DATABASE_URL that cannot work, as one line naming it (ConfigError: the entry points end with it,
 * exit code 2, and the CLIs refuse with it); undefined for any other failure.
 */
function databaseUrlError(error: unknown, url: string): ConfigError | undefined {
  const where = (() => {
    try {
      const u = new URL(url);
      return `${u.hostname}:${u.port || 5432}`;
    } catch {
      return 'its host';
    }
  })();
  const { code, message } = error as { code?: string; message?: string };
  if (code === '3D000') return new ConfigError(`DATABASE_URL: ${message ?? 'the database does not exist'} on ${where}: create it (createdb) or name one that exists`);
  if (code === '28P01' || code === '28000') return new ConfigError(`DATABASE_URL: ${message ?? 'authentication failed'} on ${where}: check the user and password`);
  if (code && ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code)) {
    return new ConfigError(`DATABASE_URL: cannot connect to ${where} (${code}): is PostgreSQL running there, and is the URL right?`);
  }
  return undefined;
}

/**
 * A command-line tool's runtime from the environment, or null when it cannot start for a reason the user
 * can fix (a ConfigError): a setting that does not parse, a data directory another process holds or this
 * one cannot write or open, a database of an older release (unless `migrate`) or a newer one. That reason
 * is handed to `tell` as one line (not a stack trace); anything else is thrown. A data directory that held
 * no journal is said to `tell` too, once the new one is open (newJournalNotice).
 */
export async function createCliRuntime(env: Record<string, string | undefined>, tell: (message: string) => void, options: { migrate?: boolean } = {}): Promise<Runtime | null> {
  try {
    const config = loadConfig(env);
    const started = startsNewJournal(config);
    // A tool upgrades a database an older release migrated only when asked (`--migrate`): OlderDatabaseError.
    const runtime = await createRuntime(config, { pendingMigrations: options.migrate ? 'apply' : 'refuse' });
    if (started) tell(newJournalNotice(config.DATA_DIR));
    return runtime;
  } catch (error) {
    if (error instanceof ConfigError) {
      tell(error.message);
      return null;
    }
    throw error;
  }
}
