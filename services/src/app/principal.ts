import type { FastifyRequest } from 'fastify';
import { roleName, type RoleName } from '@oj/contracts/users';
import { AppError } from './errors.ts';

/**
 * Who is calling, from a verified access token. Every trade query and command is scoped by
 * `userId` taken from here, never from the request body or path.
 */
export const roles = roleName.options;
export type Role = RoleName;

export interface Principal {
  userId: string;
  email: string;
  name: string;
  role: Role;
  /** Subscription status code (1 trial, 2 active, 3 expired, 4 canceled, 5 due, 6 pending, 7 unknown). */
  subsStatus: number;
  /** Whether the subscription currently grants access (trial or paid and not past its end; staff roles always). */
  subscriptionActive: boolean;
  verified: boolean;
}

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
