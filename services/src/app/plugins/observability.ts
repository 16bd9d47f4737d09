import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, type Registry } from 'prom-client';
import { errorBodyOf } from '@oj/contracts/common';
import { metricsRefusal } from '../../platform/metrics-access.ts';

/**
 * Prometheus metrics: HTTP latency by route, command results by command and outcome. Projection lag
 * gauges are registered by the projector runtime on the same registry.
 */
export function registerObservability(app: FastifyInstance): void {
  const registry = app.deps.metrics;
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status code',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    httpDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    // Node's request: the socket's own peer, not request.ip (X-Forwarded-For is the client's to write).
    const refusal = metricsRefusal(request.raw, app.deps.config.METRICS_TOKEN);
    if (refusal) return reply.status(refusal.status).headers(refusal.headers).send(errorBodyOf(refusal.message));
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}

/**
 * The registry's counter of this name, made on first use: an app built twice on one registry (the tests,
 * a gateway's restart in process) counts on in the same counter instead of failing to register it again.
 */
export function registeredCounter<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]): Counter<L> {
  return (registry.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter({ name, help, labelNames, registers: [registry] });
}

/** Counts command outcomes (`ok`, `rejected`, `conflict`, `error`) per command; used by the journal's handler. */
export function commandResultsCounter(app: FastifyInstance): Counter<'command' | 'result'> {
  return registeredCounter(app.deps.metrics, 'journal_command_results_total', 'Trade journal command results by command and outcome', ['command', 'result']);
}
