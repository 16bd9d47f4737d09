import { randomBytes, randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { migrateToLatest } from '@oj/infra/db/migrate';
import { migrations as storeMigrations } from '@oj/infra/eventstore/migrations';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { createLogger } from '@oj/infra/logger';
import { createTestDatabase } from '@oj/infra/testing/postgres';
import { deleteRedisPrefix } from '@oj/infra/testing/redis';
import { migrations } from './migrations.ts';
import { startProjector } from './projector.ts';
import { countingProjection } from './test-projection.ts';

export interface LiveLagOptions {
  eventsPerSecond: number;
  seconds: number;
  /** Default: BullMQ lanes when REDIS_URL is set, else in process. */
  transport?: 'bullmq' | 'in-process';
  lanes?: number;
  /** Default: REDIS_URL. */
  redisUrl?: string;
}

export interface LiveLagReport {
  transport: 'bullmq' | 'in-process';
  lanes: number;
  eventsPerSecond: number;
  appended: number;
  achievedRate: number;
  unseen: number;
  /** From the append call to the commit of the lane batch that applied the event. */
  lagMs: { p50: number; p90: number; p99: number; max: number };
  /** The append itself (part of the lag above). */
  appendMs: { p50: number; p99: number };
}

const quantile = (xs: number[], q: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const r2 = (n: number) => Math.round(n * 100) / 100;

/**
 * Live lag of the real projector on the real store: in a fresh PostgreSQL database (DATABASE_URL),
 * appends one event per stream at a fixed rate through `PostgresEventStore` and measures, per event,
 * the time from the append call to the commit of the lane batch that applied it (the projector's
 * `onApplied` hook, so no sampling by polling). The read model is the runtime's small counting
 * projection: this measures the runtime and transport, not a read model's handler.
 */
export async function measureLiveLag(options: LiveLagOptions): Promise<LiveLagReport> {
  const redisUrl = options.redisUrl ?? process.env.REDIS_URL;
  const transport = options.transport ?? (redisUrl ? 'bullmq' : 'in-process');
  if (transport === 'bullmq' && !redisUrl) throw new Error('measureLiveLag: the bullmq transport needs REDIS_URL');
  const lanes = options.lanes ?? 4;
  const database = await createTestDatabase('lag_bench');
  const prefix = `ojlag${randomBytes(3).toString('hex')}`;
  const store = new PostgresEventStore(database);
  const started = new Map<string, number>();
  const lags: number[] = [];
  const appends: number[] = [];
  try {
    await migrateToLatest(database.db, [storeMigrations, migrations]);
    const projector = await startProjector({
      config: { PROJECTOR_LANES: lanes, REDIS_URL: transport === 'bullmq' ? redisUrl : undefined },
      database,
      eventStore: store,
      logger: createLogger('warn'),
      metrics: new Registry(),
      projections: [countingProjection({ name: 'lag_bench' })],
      bullPrefix: prefix,
      onApplied: (batch) => {
        const now = performance.now();
        for (const e of batch.events) {
          const at = started.get(e.id);
          if (at === undefined) continue;
          lags.push(now - at);
          started.delete(e.id);
        }
      },
    });
    try {
      await projector.waitFor('head', 30_000);
      const total = Math.round(options.eventsPerSecond * options.seconds);
      const t0 = performance.now();
      const inflight = new Set<Promise<void>>();
      let appended = 0;
      for (let i = 0; i < total; i++) {
        const wait = t0 + (i * 1000) / options.eventsPerSecond - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const user = `lag-user-${i % 500}`;
        const id = randomUUID();
        const p = (async () => {
          const at = performance.now();
          started.set(id, at);
          await store.append(
            `trade-${user}.l${i}`,
            [{ id, type: 'LagProbe', schemaVersion: 1, data: { i }, metadata: { userId: user, actor: { id: user, role: 'system' }, correlationId: id, causationId: null, idempotencyKey: null, recordedAt: new Date().toISOString(), businessDate: '2026-11-20' } }],
            'no_stream',
          );
          appends.push(performance.now() - at);
          appended++;
        })();
        inflight.add(p);
        void p.finally(() => inflight.delete(p));
      }
      await Promise.all(inflight);
      const seconds = (performance.now() - t0) / 1000;
      const deadline = performance.now() + 30_000;
      while (started.size && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return {
        transport,
        lanes,
        eventsPerSecond: options.eventsPerSecond,
        appended,
        achievedRate: Math.round(appended / seconds),
        unseen: started.size,
        lagMs: { p50: r2(quantile(lags, 0.5)), p90: r2(quantile(lags, 0.9)), p99: r2(quantile(lags, 0.99)), max: r2(Math.max(...lags)) },
        appendMs: { p50: r2(quantile(appends, 0.5)), p99: r2(quantile(appends, 0.99)) },
      };
    } finally {
      await projector.stop();
    }
  } finally {
    await store.close();
    await database.drop();
    if (transport === 'bullmq') await deleteRedisPrefix(redisUrl!, prefix);
  }
}

// `node projections/src/runtime/lag-bench.ts [eventsPerSecond] [seconds]`: both transports (BullMQ when REDIS_URL is set).
if (import.meta.main) {
  const eventsPerSecond = Number(process.argv[2] ?? 200);
  const seconds = Number(process.argv[3] ?? 20);
  const reports = [await measureLiveLag({ eventsPerSecond, seconds, transport: 'in-process' })];
  if (process.env.REDIS_URL) reports.push(await measureLiveLag({ eventsPerSecond, seconds, transport: 'bullmq' }));
  console.log(JSON.stringify(reports, null, 2));
  process.exit(0);
}
