import { Queue, Worker } from 'bullmq';
import { redisConnection } from '@oj/projections/runtime/projector';
import type { AppDeps } from '../app/deps.ts';
import type { BackgroundWorker } from '../platform/runtime.ts';
import { runBillingTick, type TickContext } from './scheduler.ts';
import { createStripeClient } from './stripe-client.ts';

export const BILLING_QUEUE = 'billing';
const TICK_SCHEDULER_ID = 'billing-tick';

/**
 * Runs the billing scheduler every BILLING_SCHEDULER_INTERVAL_SECONDS. Services mode: a BullMQ job
 * scheduler (repeatable job), so however many gateways run, each interval is one job worked by one of
 * them. Embedded mode: a timer in this process. Either way a tick is safe to repeat (see runBillingTick).
 */
export async function startBillingScheduler(deps: AppDeps, options: { prefix?: string } = {}): Promise<BackgroundWorker> {
  const { config, logger } = deps;
  const log = logger.child({ worker: 'billing-scheduler' });
  const ctx: TickContext = { db: deps.database.db, eventStore: deps.eventStore, clock: deps.clock, publicUrl: config.PUBLIC_URL, stripe: createStripeClient(config), logger: log };
  const everyMs = config.BILLING_SCHEDULER_INTERVAL_SECONDS * 1000;
  const tick = async () => {
    const result = await runBillingTick(ctx);
    if (Object.values(result).some((n) => n > 0)) log.info(result, 'billing tick');
    return result;
  };

  if (config.REDIS_URL) {
    const connection = redisConnection(config.REDIS_URL);
    const prefix = options.prefix ?? config.BULLMQ_PREFIX;
    const queue = new Queue(BILLING_QUEUE, { connection, prefix });
    await queue.upsertJobScheduler(TICK_SCHEDULER_ID, { every: everyMs }, { name: 'tick', opts: { removeOnComplete: 100, removeOnFail: 100 } });
    const worker = new Worker(BILLING_QUEUE, tick, { connection, prefix, concurrency: 1 });
    worker.on('failed', (_job, err) => log.error({ err }, 'billing tick failed'));
    log.info({ everyMs, transport: 'bullmq' }, 'billing scheduler started');
    return {
      name: 'billing-scheduler',
      async stop() {
        await worker.close();
        await queue.close();
      },
    };
  }

  let running: Promise<unknown> = Promise.resolve();
  const run = () => {
    running = running.then(tick).catch((err) => log.error({ err }, 'billing tick failed'));
  };
  run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  log.info({ everyMs, transport: 'in-process' }, 'billing scheduler started');
  return {
    name: 'billing-scheduler',
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
