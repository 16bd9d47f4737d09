import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { healthResponse, readyResponse } from '@oj/contracts/common';

/** Liveness says the process answers; readiness checks every dependency and names the ones that are down. */
export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/health', { schema: { tags: ['platform'], response: { 200: healthResponse } } }, async () => ({
    status: 'ok' as const,
    uptime_s: Math.round(process.uptime()),
  }));

  app.get('/ready', { schema: { tags: ['platform'], response: { 200: readyResponse, 503: readyResponse } } }, async (_request, reply) => {
    const results = await Promise.all(
      app.deps.readiness.map(async (dep) => {
        try {
          await Promise.race([dep.check(), new Promise((_, reject) => setTimeout(() => reject(new Error('timed out after 2 s')), 2000))]);
          return [dep.name, { up: true }] as const;
        } catch (error) {
          return [dep.name, { up: false, detail: error instanceof Error ? error.message : String(error) }] as const;
        }
      }),
    );
    const dependencies = Object.fromEntries(results);
    const down = results.filter(([, r]) => !r.up).map(([name]) => name);
    return reply.status(down.length ? 503 : 200).send({ status: down.length ? 'degraded' : 'ready', dependencies, down });
  });
};
