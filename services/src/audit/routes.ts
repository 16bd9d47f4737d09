import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

// Placeholder: filled in by its module's issue.
export const auditRoutes: FastifyPluginAsyncZod = async () => {};
