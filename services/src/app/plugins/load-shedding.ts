import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBodyOf, STARTUP_RESOLUTION, startupMessage } from '@oj/contracts/common';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { registeredCounter } from './observability.ts';
import { API_PREFIX } from '../api-prefix.ts';

export interface LoadSheddingOptions {
  /**
   * Refuse API requests while the event loop's mean delay has been above this (ms) in each of the last two
   * windows; 0 turns the check off. One long task (a 1.5 s audit replay) fills one window: it is not
   * overload, and the requests it held up are answered.
   */
  maxEventLoopDelayMs: number;
  /** Refuse API requests while this many are already being answered; 0 turns the check off. */
  maxInFlight: number;
  /** The event loop's delay is read (and its histogram restarted) this often (default 500 ms). */
  sampleIntervalMs?: number;
}

export const BUSY_MESSAGE = 'The journal is busy right now. Nothing was changed. Please try again in a moment.';

export const CLOSING_MESSAGE = 'The journal is restarting. Nothing was changed. Please try again in a moment.';

/**
 * A request that arrives while the server closes (on a connection kept alive, or pipelined behind one in
 * flight) is refused as the product refuses: 503, Retry-After, the connection closed, in the product's
 * error shape (QA: Fastify's own `{"error":"Service Unavailable",…}`, with `return503OnClosing`, which the
 * app turns off for this).
 */
export function registerClosingRefusal(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    return reply.status(503).header('retry-after', '1').header('connection', 'close').send(errorBodyOf(CLOSING_MESSAGE));
  });
}

/** Always answered: an operator reads these to see the overload, and a load balancer to route around it. */
const exempt = new Set([`${API_PREFIX}/health`, `${API_PREFIX}/ready`, '/metrics']);

/** An API request the refusals below apply to: not the console's files, not the exempt routes (by the route the router matched: it ignores a trailing slash and the query string; a request that matches no route is never exempt). */
const refusable = (request: FastifyRequest) => {
  const route = request.routeOptions.url;
  return request.url.startsWith(`${API_PREFIX}/`) && !(route !== undefined && exempt.has(route));
};

/**
 * While the process's start-up gate is held (platform/startup-gate.ts: the in-process projector
 * rebuilds or catches up its read models), API requests are refused before any route runs: 503,
 * Retry-After, what the start does and how far it got (the console shows it). Nothing is read from read
 * models that are behind, and nothing is written. The console's files, health and readiness answer.
 */
export function registerStartupRefusal(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    const progress = app.deps.startup?.current();
    if (!progress || !refusable(request)) return;
    return reply.status(503).header('retry-after', '2').send(errorBodyOf(startupMessage(progress), { detail: progress, resolution: STARTUP_RESOLUTION }));
  });
}

/**
 * Load shedding: past its capacity the gateway refuses new API requests at once with 503 and
 * `Retry-After: 1` instead of queueing them. Queued, every request waits behind all the ones before it
 * (a soak run at three times the capacity saw p50 go from 26 ms to 7.8 s, then timeouts); refused, the
 * excess costs a few microseconds each and the accepted requests keep their latency. Two signals:
 * - the event loop's delay (Node's own histogram, `monitorEventLoopDelay`), its mean above the limit in
 *   two windows in a row: Node is out of CPU;
 * - requests in flight: they wait on something else (PostgreSQL's connections, say).
 * A refusal happens before any route runs, so nothing is written; a command retried with the same
 * Idempotency-Key after it has its one effect. The console's static files and the health, readiness and
 * metrics routes are never refused.
 */
export function registerLoadShedding(app: FastifyInstance, options: LoadSheddingOptions): void {
  const { maxEventLoopDelayMs, maxInFlight } = options;
  if (maxEventLoopDelayMs <= 0 && maxInFlight <= 0) return;
  const sampleMs = options.sampleIntervalMs ?? 500;
  const resolution = 10;
  let delayMs = 0;
  /** Windows in a row whose mean delay was above the limit. */
  let overWindows = 0;
  let timer: NodeJS.Timeout | null = null;
  const histogram = maxEventLoopDelayMs > 0 ? monitorEventLoopDelay({ resolution }) : null;
  if (histogram) {
    histogram.enable();
    let sampledAt = performance.now();
    timer = setInterval(() => {
      const now = performance.now();
      // The histogram's timer fires every `resolution` ms; what it records beyond that is the delay. A
      // window with no record at all was one block from end to end.
      delayMs = histogram.count === 0 ? now - sampledAt : Math.max(0, histogram.mean / 1e6 - resolution);
      sampledAt = now;
      overWindows = delayMs > maxEventLoopDelayMs ? overWindows + 1 : 0;
      histogram.reset();
    }, sampleMs);
    timer.unref();
  }
  app.addHook('onClose', async () => {
    if (timer) clearInterval(timer);
    histogram?.disable();
  });

  const shed = registeredCounter(app.deps.metrics, 'http_requests_shed_total', 'API requests refused with 503 because the gateway was past its capacity, by reason', ['reason']);

  let inFlight = 0;
  const counted = new WeakSet<FastifyRequest>();
  let shedding: 'event_loop_delay' | 'in_flight' | null = null;
  const refuse = (request: FastifyRequest, reply: FastifyReply, reason: 'event_loop_delay' | 'in_flight') => {
    shed.inc({ reason });
    if (shedding !== reason) request.log.warn({ reason, eventLoopDelayMs: Math.round(delayMs), inFlight }, 'shedding load: refusing API requests with 503');
    shedding = reason;
    return reply.status(503).header('retry-after', '1').send(errorBodyOf(BUSY_MESSAGE));
  };

  app.addHook('onRequest', async (request, reply) => {
    // onRequest runs after routing: the exemption goes by the route the request reached (`refusable`).
    if (!refusable(request)) return;
    if (overWindows >= 2) return refuse(request, reply, 'event_loop_delay');
    if (maxInFlight > 0 && inFlight >= maxInFlight) return refuse(request, reply, 'in_flight');
    if (shedding) {
      request.log.info('load shedding over: accepting API requests again');
      shedding = null;
    }
    inFlight++;
    counted.add(request);
  });
  // onResponse runs once a reply went out; a request whose client hung up first ends without it.
  const release = async (request: FastifyRequest) => {
    if (counted.delete(request)) inFlight--;
  };
  app.addHook('onResponse', release);
  app.addHook('onRequestAbort', release);
}
