import type { Config } from '@oj/infra/config';
import type { Clock } from '@oj/infra/clock';
import type { Database } from '@oj/infra/db/database';
import type { EventStore, LogPosition } from '@oj/infra/eventstore/port';
import type { Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { Projection } from '@oj/projections/runtime/projection';
import type { StartupGate } from '../platform/startup-gate.ts';

/** A dependency `/ready` reports on. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
  /**
   * false: what the gateway can serve without (Redis: commands are accepted and appended while it is away,
   * the lanes catch up after). Its `/api/v1/ready` still names it in `down` (status degraded), but
   * answers 200, so a load balancer keeps every gateway in while Redis is down. A projector process's
   * own readiness counts every check (its lanes stall without Redis).
   */
  critical?: boolean;
}

/**
 * Everything the gateway's modules need, built once by the runtime (platform/runtime.ts) and handed to
 * `buildApp`. Tests build their own with real Postgres and a fixed clock.
 */
export interface AppDeps {
  config: Config;
  database: Database;
  eventStore: EventStore;
  clock: Clock;
  logger: Logger;
  metrics: Registry;
  readiness: ReadinessCheck[];
  /**
   * Resolves once the read models have applied everything up to `position` (the in-process projector),
   * or immediately when projections run elsewhere. Pass the append's position: the default, the log's
   * head now, may not include an append a reader cannot see yet. Lets a command answer after its own effects are
   * visible in embedded mode without making queries depend on it.
   */
  waitForProjections?: (timeoutMs?: number, position?: LogPosition) => Promise<void>;
  /**
   * Where rate-limit counters live when several gateway processes serve one port (Redis, shared by all
   * of them); unset: in the process's memory.
   */
  rateLimitRedis?: import('ioredis').Redis;
  /** Held while the projector in this process brings its read models up to date at start (embedded mode); unset or open: the API answers. */
  startup?: StartupGate;
  /** The read models the operations console works on (default: the catalogue, `allProjections`; tests pass their own). */
  projections?: readonly Projection[];
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps;
  }
}
