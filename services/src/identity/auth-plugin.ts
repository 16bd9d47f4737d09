import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../app/errors.ts';
import type { Principal, Role } from './principal.ts';
import { verifyAccessToken } from './tokens.ts';
import { PrincipalCache } from './principal-cache.ts';
import { endedSessions, findUserByUid, principalOfUser } from './users.ts';

export const authMessages = {
  missing: 'Not authenticated.',
  invalid: 'Invalid or expired access token.',
  unverified: 'Please verify your e-mail address before using this page. Check your inbox or request a new verification link.',
  forbidden: 'You do not have permission to do this.',
} as const;

/**
 * Bearer access tokens. The token proves who calls; the principal's role, verification and
 * subscription come from the database (through the principal cache, which the database keeps fresh by
 * NOTIFY), so verifying the e-mail, a role change or an expiring subscription take effect at once rather
 * than when the short-lived token runs out.
 */
export const authPlugin = fp(async (app) => {
  app.decorateRequest('principal', null);
  const { database, clock, config } = app.deps;
  // With the user, the sign-ins ended within an access token's lifetime (a logout, a password reset or
  // change, a stolen refresh token): their access tokens are refused from then on, not when they expire. The
  // cache hears of every ending (a trigger on refresh_tokens) and reads the user again.
  const principals = new PrincipalCache(database, {
    load: async (uid) => {
      const user = await findUserByUid(database.db, uid);
      if (!user) return undefined;
      const since = new Date(clock.now().getTime() - config.ACCESS_TOKEN_TTL_SECONDS * 1000);
      return { ...user, ended_sessions: await endedSessions(database.db, uid, since) };
    },
  });
  app.decorate('principals', principals);
  app.addHook('onClose', () => principals.close());

  const authenticate = async (request: FastifyRequest): Promise<Principal> => {
    if (request.principal) return request.principal;
    const header = request.headers.authorization;
    if (!header) throw new AppError('unauthorized', authMessages.missing);
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match?.[1]) throw new AppError('unauthorized', authMessages.invalid);
    const now = clock.now();
    const claims = await verifyAccessToken(match[1], config.JWT_SECRET, now);
    if (!claims) throw new AppError('unauthorized', authMessages.invalid);
    const user = await principals.find(claims.sub);
    if (!user || (claims.sid !== undefined && user.ended_sessions?.includes(claims.sid))) throw new AppError('unauthorized', authMessages.invalid);
    request.principal = principalOfUser(user, now, config.mode.billing);
    return request.principal;
  };

  app.decorate('requireUser', async (request: FastifyRequest) => {
    await authenticate(request);
  });
  const requireVerifiedUser = async (request: FastifyRequest) => {
    const principal = await authenticate(request);
    if (!principal.verified) throw new AppError('forbidden', authMessages.unverified, { resolution: 'Open the link in the verification e-mail, or request a new one.' });
  };
  app.decorate('requireVerifiedUser', requireVerifiedUser);
  app.decorate('requireRole', (...allowed: Role[]) => async (request: FastifyRequest) => {
    await requireVerifiedUser(request);
    if (!allowed.includes(request.principal!.role)) throw new AppError('forbidden', authMessages.forbidden);
  });
});
