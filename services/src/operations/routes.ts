import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody } from '@oj/contracts/common';
import { projectionsStatusResponse } from '@oj/contracts/operations';
import { allProjections } from '@oj/projections/catalogue';
import { projectionsStatus } from '@oj/projections/runtime/status';

/** Operators' view of the read models. Rebuilds run from the CLI (`npm run projections`), not over HTTP. */
export const operationsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/operations/projections',
    {
      onRequest: app.requireRole('Admin'),
      schema: { tags: ['operations'], security: [{ bearer: [] }], response: { 200: projectionsStatusResponse, 401: errorBody, 403: errorBody } },
    },
    async () => {
      const { config, database, eventStore } = app.deps;
      return projectionsStatus({ database, eventStore, projections: allProjections, lanes: config.PROJECTOR_LANES }, config.mode.projector);
    },
  );
};
