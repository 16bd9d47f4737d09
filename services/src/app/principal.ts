import type { FastifyRequest } from 'fastify';
import type { Principal, Role } from '../identity/principal.ts';
import { AppError } from './errors.ts';

// The principal is defined in identity (identity/principal.ts, a leaf, so identity never imports the
// gateway back); it is named here too so that a route module takes `principalOf` and its type from one place.
export { roles, type Principal, type Role } from '../identity/principal.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyInstance {
    /** The users behind access tokens, kept fresh by NOTIFY (identity/principal-cache.ts). */
    principals: import('../identity/principal-cache.ts').PrincipalCache;
    /** onRequest hook: 401 without a valid access token (runs before body validation, so an anonymous caller learns nothing about the body rules). */
    requireUser: (request: FastifyRequest) => Promise<void>;
    /** onRequest hook: 401 without a token, 403 for an unverified user. Used by every private endpoint. */
    requireVerifiedUser: (request: FastifyRequest) => Promise<void>;
    /** onRequest hook factory: 403 unless the verified user has one of the roles. */
    requireRole: (...allowed: Role[]) => (request: FastifyRequest) => Promise<void>;
  }
}

/** The principal of a request that passed `requireUser`/`requireVerifiedUser`. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('unauthorized', 'Not authenticated.');
  return request.principal;
}
