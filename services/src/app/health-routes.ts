import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { healthResponse, readyResponse } from '@oj/contracts/common';
import { checkReadiness, liveness } from '../platform/readiness.ts';

/**
 * Liveness says the process answers; readiness checks every dependency and names the ones that are down,
 * answering 503 only when one the gateway cannot serve without is among them (`ReadinessCheck.critical`).
 */
export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/health', { schema: { tags: ['platform'], response: { 200: healthResponse } } }, async () => liveness());

  app.get('/ready', { schema: { tags: ['platform'], response: { 200: readyResponse, 503: readyResponse } } }, async (_request, reply) => {
    const readiness = await checkReadiness(app.deps.readiness);
    const blocking = readiness.down.filter((name) => app.deps.readiness.find((c) => c.name === name)?.critical !== false);
    return reply.status(blocking.length ? 503 : 200).send(readiness);
  });
};
