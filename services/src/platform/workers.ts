import { allProjections } from '@oj/projections/catalogue';
import { startProjector } from '@oj/projections/runtime/projector';
import { startMailWorker } from '../mail/start.ts';
import { startBillingScheduler } from '../billing/scheduler-worker.ts';
import { startStateMaintenance } from '../audit/state-maintenance.ts';
import type { BackgroundWorker, Runtime } from './runtime.ts';
import { redisReadiness } from './readiness.ts';

type Which = { projector: boolean; mail: boolean };

interface WorkerStarter {
  name: string;
  enabled(which: Which): boolean;
  start(runtime: Runtime): Promise<BackgroundWorker>;
}

/**
 * Every background worker a process can run, started in this order and stopped in reverse
 * (runtime.close).
 */
const starters: WorkerStarter[] = [
  {
    // First, so it is stopped last: whenever REDIS_URL is set, readiness checks Redis (every role depends
    // on it then) and this connection logs its outages, once each way (platform/readiness.ts).
    name: 'redis-monitor',
    enabled: () => true,
    async start(runtime) {
      const { config, logger, readiness } = runtime.deps;
      if (!config.REDIS_URL) return { name: 'redis-monitor', stop: async () => {} };
      // Not critical to the gateway's readiness (it accepts commands without Redis); the projector
      // process's own endpoint counts it (projector-endpoints.ts counts every check).
      const redis = Object.assign(redisReadiness(config.REDIS_URL, 'redis', logger), { critical: false });
      readiness.push(redis);
      return {
        name: 'redis-monitor',
        async stop() {
          // In place: the app and the projector's endpoints hold this same array.
          const at = readiness.indexOf(redis);
          if (at >= 0) readiness.splice(at, 1);
          await redis.close();
        },
      };
    },
  },
  {
    name: 'projector',
    enabled: (which) => which.projector,
    async start(runtime) {
      const { config, database, eventStore, logger, metrics } = runtime.deps;
      const projector = await startProjector({ config, database, eventStore, logger, metrics, projections: allProjections });
      // Commands in this process can answer once their own events are visible in the read models.
      runtime.deps.waitForProjections = (timeoutMs, position) => projector.waitFor(position ?? 'head', timeoutMs);
      // In process, this process's API waits for the read models to answer for the whole log (startup-gate.ts).
      if (projector.transport === 'in-process') runtime.deps.startup?.follow(() => projector.startup(), projector.startedUp);
      else runtime.deps.startup?.open();
      return {
        name: 'projector',
        async stop() {
          delete runtime.deps.waitForProjections;
          await projector.stop();
        },
      };
    },
  },
  {
    // Beside the projector: it folds heavy users' logs for the audit's stored replay states, work that
    // belongs with the read models' and must not hold up the gateway. Stored states hold PostgreSQL log
    // positions: none on EventStoreDB.
    name: 'audit-replay-states',
    enabled: (which) => which.projector,
    async start(runtime) {
      const { config, database, eventStore, logger } = runtime.deps;
      if (config.AUDIT_REPLAY_STATES === 'off' || eventStore.kind === 'eventstoredb') return { name: 'audit-replay-states', stop: async () => {} };
      const maintenance = startStateMaintenance(database, {
        intervalMs: config.AUDIT_REPLAY_STATES_INTERVAL_SECONDS * 1000,
        chunkEvents: config.AUDIT_REPLAY_STATES_CHUNK_EVENTS,
        minEvents: config.AUDIT_REPLAY_STATES_MIN_EVENTS,
        maxEventsPerRun: config.AUDIT_REPLAY_STATES_MAX_EVENTS_PER_RUN,
        logger: logger.child({ worker: 'audit-replay-states' }),
      });
      return { name: 'audit-replay-states', stop: () => maintenance.stop() };
    },
  },
  {
    name: 'mail',
    enabled: (which) => which.mail,
    async start(runtime) {
      return startMailWorker(runtime.deps);
    },
  },
  {
    // Writes reminder mails through the outbox and ends grace periods: it runs where the mail worker
    // does (the gateway, the all-in-one process). Self-hosted mode has no lifecycle to run.
    name: 'billing-scheduler',
    enabled: (which) => which.mail,
    async start(runtime) {
      if (runtime.deps.config.mode.billing !== 'stripe') return { name: 'billing-scheduler', stop: async () => {} };
      return startBillingScheduler(runtime.deps);
    },
  },
];

/** Starts the background work a process role runs and registers it for shutdown. */
export async function startBackgroundWorkers(runtime: Runtime, which: Which): Promise<void> {
  for (const starter of starters) {
    if (starter.enabled(which)) runtime.workers.push(await starter.start(runtime));
  }
}
