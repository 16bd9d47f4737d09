import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { healthResponse, readyResponse } from '@oj/contracts/common';
import { checkReadiness, liveness } from '../platform/readiness.ts';

/**
 * Liveness says the process answers; readiness checks every dependency and names the ones that are down,
 * answering 503 when one the gateway cannot serve without is among them (`ReadinessCheck.critical`), and
 * while the process's start-up gate holds the API (status `starting`, with the progress).
 */
export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/health', { schema: { tags: ['platform'], response: { 200: healthResponse } } }, async () => liveness());

  app.get('/ready', { schema: { tags: ['platform'], response: { 200: readyResponse, 503: readyResponse } } }, async (_request, reply) => {
    // Not ready while the start brings the read models up to date (the API refuses until then). Said
    // without asking the dependencies: on PGlite the question would wait behind the rebuild's statements.
    const startup = app.deps.startup?.current();
    if (startup) return reply.status(503).send({ status: 'starting', startup, dependencies: {}, down: [] });
    const readiness = await checkReadiness(app.deps.readiness);
    const blocking = readiness.down.filter((name) => app.deps.readiness.find((c) => c.name === name)?.critical !== false);
    return reply.status(blocking.length ? 503 : 200).send(readiness);
  });
};
