import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { healthResponse, readyResponse } from '@oj/contracts/common';
import type { ReadinessCheck } from '../app/deps.ts';

export type Readiness = z.infer<typeof readyResponse>;

/** Liveness: the process answers (and since when). The gateway's `/api/v1/health` and the projector process's. */
export const liveness = (): z.infer<typeof healthResponse> => ({ status: 'ok', uptime_s: Math.round(process.uptime()) });

/**
 * Every dependency checked at once, each given `timeoutMs` (a dependency that hangs is down, not a
 * probe that hangs); the answer names the ones that are down. The gateway's `/api/v1/ready` and the
 * projector process's answer this alike.
 */
export async function checkReadiness(checks: readonly ReadinessCheck[], timeoutMs = 2000): Promise<Readiness> {
  const results = await Promise.all(
    checks.map(async (dep) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          dep.check(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs / 1000} s`)), timeoutMs);
          }),
        ]);
        return [dep.name, { up: true }] as const;
      } catch (error) {
        return [dep.name, { up: false, detail: error instanceof Error ? error.message : String(error) }] as const;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const down = results.filter(([, r]) => !r.up).map(([name]) => name);
  return { status: down.length ? 'degraded' : 'ready', dependencies: Object.fromEntries(results), down };
}

/**
 * A Redis readiness check on a connection of its own (one that reconnects by itself, and answers a probe
 * at once while it is down instead of queueing it): `PING` while connected; while not, down with the
 * connection's state and its last error. Every process role has it whenever REDIS_URL is set
 * (platform/workers.ts): the lanes and rebuilds stall without Redis, and the gateway's rate limits go
 * uncounted, so `/api/v1/ready` names it as it names any other dependency that is down.
 *
 * Given a logger it is also the process's one account of Redis outages: one line when Redis goes
 * down, one when it is back. The other connections (lane workers, queues, the board, the rate-limit
 * store) retry several times a second each and log their connection errors at debug level only
 * (`isConnectionError`), so an outage is not a flood of ECONNREFUSED.
 */
export function redisReadiness(url: string, name = 'redis', logger?: Logger): ReadinessCheck & { close(): Promise<void> } {
  const redis = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, connectionName: 'oj-readiness' });
  let lastError: string | undefined;
  // Down from the first failed attempt (or a lost connection) until the next 'ready'.
  let downSince: number | undefined;
  let everReady = false;
  redis.on('error', (error: Error) => {
    lastError = error.message;
    if (downSince !== undefined) return;
    downSince = Date.now();
    logger?.error(
      { dependency: name, err: error.message },
      `Redis is unreachable (${error.message}): commands are still accepted, the projector's lanes and rebuilds wait for it, and /api/v1/ready names ${name} as down until it is back (503 on a projector process's endpoint; further connection errors are not logged)`,
    );
  });
  redis.on('ready', () => {
    lastError = undefined;
    if (downSince !== undefined) logger?.info({ dependency: name, downForS: Math.round((Date.now() - downSince) / 1000) }, 'Redis is reachable again');
    else if (!everReady) logger?.debug({ dependency: name }, 'Redis is reachable');
    downSince = undefined;
    everReady = true;
  });
  redis.connect().catch(() => {}); // the 'error' handler keeps the reason; ioredis reconnects by itself
  return {
    name,
    async check() {
      if (redis.status !== 'ready') throw new Error(`not connected (${redis.status})${lastError ? `: ${lastError}` : ''}`);
      await redis.ping();
    },
    async close() {
      redis.disconnect();
    },
  };
}
