import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody } from '@oj/contracts/common';
import { strategyCatalogue, strategyList } from '@oj/contracts/strategies';

/** The strategy catalogue is reference data in contracts/ (see docs/strategies.md). */
export const strategyRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/strategies/',
    { onRequest: app.requireVerifiedUser, schema: { tags: ['strategies'], security: [{ bearer: [] }], response: { 200: strategyList, 401: errorBody, 403: errorBody } } },
    async () => [...strategyCatalogue],
  );
};
