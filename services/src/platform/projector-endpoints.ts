import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { API_PREFIX } from '../app/api-prefix.ts';
import type { ReadinessCheck } from '../app/deps.ts';
import { checkReadiness, liveness } from './readiness.ts';
import { metricsRefusal } from './metrics-access.ts';

export interface ProjectorEndpoints {
  /** The port it listens on (the one asked for, or the one the OS chose for 0). */
  port: number;
  close(): Promise<void>;
}

/**
 * What a projector process answers over HTTP when `PROJECTOR_METRICS_PORT` is set: its own Prometheus
 * metrics at `/metrics` (lane batches, failures, `oj_projector_lane_stuck`, its memory: the process
 * records them, and only it can answer them; to this host only, or with `metricsToken` to its bearer:
 * metrics-access.ts) and, on the gateway's paths, liveness
 * (`/api/v1/health`) and readiness (`/api/v1/ready`: the checks it is given; `npm run projector` gives
 * PostgreSQL, the event store and, with BullMQ lanes, Redis) for a
 * supervisor's health check. Nothing else: no API, no console. GET and HEAD only.
 */
export async function serveProjectorEndpoints(options: { host: string; port: number; metrics: Registry; readiness: readonly ReadinessCheck[]; metricsToken?: string | undefined }): Promise<ProjectorEndpoints> {
  const { metrics, readiness } = options;
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const send = (status: number, contentType: string, body: string) => {
      response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    const json = (status: number, body: unknown) => send(status, 'application/json; charset=utf-8', JSON.stringify(body));
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('allow', 'GET, HEAD');
      return json(405, { error: 'Method Not Allowed', message: `${request.method} is not answered here: GET ${path}` });
    }
    const answer = async () => {
      switch (path) {
        case '/metrics': {
          const refusal = metricsRefusal(request, options.metricsToken);
          if (refusal) {
            for (const [name, value] of Object.entries(refusal.headers)) response.setHeader(name, value);
            return json(refusal.status, { error: refusal.status === 401 ? 'Unauthorized' : 'Forbidden', message: refusal.message });
          }
          return send(200, metrics.contentType, await metrics.metrics());
        }
        case `${API_PREFIX}/health`:
          return json(200, liveness());
        case `${API_PREFIX}/ready`: {
          const ready = await checkReadiness(readiness);
          return json(ready.down.length ? 503 : 200, ready);
        }
        default:
          return json(404, { error: 'Not Found', message: `a projector process answers /metrics, ${API_PREFIX}/health and ${API_PREFIX}/ready only` });
      }
    };
    answer().catch((error: unknown) => {
      if (!response.headersSent) json(500, { error: 'Internal Server Error', message: error instanceof Error ? error.message : String(error) });
      else response.destroy();
    });
  });
  server.listen(options.port, options.host);
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
