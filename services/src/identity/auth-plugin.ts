import fp from 'fastify-plugin';
import { AppError } from '../app/errors.ts';

// Placeholder until the identity issue: every private route answers 401.
export const authPlugin = fp(async (app) => {
  app.decorateRequest('principal', null);
  const deny = async () => {
    throw new AppError('unauthorized', 'Not authenticated.');
  };
  app.decorate('requireUser', deny);
  app.decorate('requireVerifiedUser', deny);
  app.decorate('requireRole', () => deny);
});
