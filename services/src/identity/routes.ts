import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody } from '@oj/contracts/common';
import {
  PASSWORD_UPDATED_MESSAGE,
  RESEND_VERIFICATION_MESSAGE,
  RESET_REQUEST_MESSAGE,
  RESET_SUCCESS_MESSAGE,
  SIGNUP_SUCCESS_MESSAGE,
  VERIFY_SUCCESS_MESSAGE,
  currentUser,
  emailQuery,
  loginRequest,
  loginResponse,
  messageResponse,
  passwordResetBody,
  passwordResetRequest,
  refreshResponse,
  signupRequest,
  tokenParams,
  updatePasswordRequest,
} from '@oj/contracts/users';
import { API_PREFIX } from '../app/api-prefix.ts';
import { principalOf } from '../app/principal.ts';
import type { AppDeps } from '../app/deps.ts';
import {
  changePassword,
  login,
  logout,
  refreshSession,
  requestPasswordReset,
  requestVerificationLink,
  resendVerification,
  resetPassword,
  signUp,
  verifyEmail,
  type IdentityContext,
  type IssuedSession,
} from './commands.ts';
import { currentUserOf, findUserByUid } from './users.ts';
import { AppError } from '../app/errors.ts';

export const REFRESH_COOKIE = 'oj_refresh';
// The cookie only travels to the two endpoints that read it.
const REFRESH_COOKIE_PATH = `${API_PREFIX}/users`;

export const identityContext = (deps: AppDeps): IdentityContext => ({ db: deps.database.db, clock: deps.clock, config: deps.config });

const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 409: errorBody, 422: errorBody, 429: errorBody };

export const identityRoutes: FastifyPluginAsyncZod = async (app) => {
  const ctx = identityContext(app.deps);
  const { config } = app.deps;
  const authLimit = { rateLimit: { max: config.RATE_LIMIT_AUTH_PER_MINUTE, timeWindow: '1 minute' } };
  // Set and cleared with the same attributes (QA: cleared as SameSite=Lax, Fastify's default).
  const refreshCookie = { httpOnly: true, secure: config.PUBLIC_URL.startsWith('https:'), sameSite: 'strict', path: REFRESH_COOKIE_PATH } as const;
  const setRefreshCookie = (reply: FastifyReply, session: IssuedSession) =>
    reply.setCookie(REFRESH_COOKIE, session.refreshToken, { ...refreshCookie, expires: session.refreshExpiresAt });
  const clearRefreshCookie = (reply: FastifyReply) => reply.clearCookie(REFRESH_COOKIE, refreshCookie);

  app.post(
    '/users/signup',
    { config: authLimit, schema: { tags: ['users'], body: signupRequest, response: { 201: messageResponse.extend({ uid: z.string() }), ...errors } } },
    async (request, reply) => {
      const uid = await signUp(ctx, request.body);
      return reply.status(201).send({ message: SIGNUP_SUCCESS_MESSAGE, uid });
    },
  );

  app.get('/users/verify/:token', { schema: { tags: ['users'], params: tokenParams, response: { 200: messageResponse, ...errors } } }, async (request) => {
    await verifyEmail(ctx, request.params.token);
    return { message: VERIFY_SUCCESS_MESSAGE };
  });

  app.get(
    '/users/resend-verification-link/',
    { config: authLimit, schema: { tags: ['users'], querystring: emailQuery, response: { 200: messageResponse, ...errors } } },
    async (request) => {
      await resendVerification(ctx, request.query.email);
      return { message: RESEND_VERIFICATION_MESSAGE };
    },
  );

  // Reachable by unverified users: it is how they get a new link.
  app.get(
    '/users/request-verification-link',
    { config: authLimit, onRequest: app.requireUser, schema: { tags: ['users'], security: [{ bearer: [] }], response: { 200: messageResponse, ...errors } } },
    async (request) => ({ message: await requestVerificationLink(ctx, principalOf(request).userId) }),
  );

  app.post('/users/login', { config: authLimit, schema: { tags: ['users'], body: loginRequest, response: { 200: loginResponse, ...errors } } }, async (request, reply) => {
    const session = await login(ctx, request.body);
    setRefreshCookie(reply, session);
    return { user: session.user, access_token: session.accessToken, token_type: 'bearer' as const };
  });

  app.post('/users/refresh_token', { schema: { tags: ['users'], response: { 200: refreshResponse, ...errors } } }, async (request, reply) => {
    try {
      const session = await refreshSession(ctx, request.cookies[REFRESH_COOKIE]);
      setRefreshCookie(reply, session);
      return { access_token: session.accessToken, token_type: 'bearer' as const };
    } catch (error) {
      if (error instanceof AppError && error.kind === 'unauthorized') clearRefreshCookie(reply);
      throw error;
    }
  });

  app.post('/users/logout', { schema: { tags: ['users'], response: { 200: messageResponse } } }, async (request, reply) => {
    await logout(ctx, request.cookies[REFRESH_COOKIE]);
    clearRefreshCookie(reply);
    return { message: 'Signed out.' };
  });

  app.post(
    '/users/password-reset-request',
    { config: authLimit, schema: { tags: ['users'], body: passwordResetRequest, response: { 200: messageResponse, ...errors } } },
    async (request) => {
      await requestPasswordReset(ctx, request.body.email);
      return { message: RESET_REQUEST_MESSAGE };
    },
  );

  app.post(
    '/users/password-reset/:token',
    { config: authLimit, schema: { tags: ['users'], params: tokenParams, body: passwordResetBody, response: { 200: messageResponse, ...errors } } },
    async (request) => {
      await resetPassword(ctx, request.params.token, request.body);
      return { message: RESET_SUCCESS_MESSAGE };
    },
  );

  app.get(
    '/users/current_user',
    { onRequest: app.requireVerifiedUser, schema: { tags: ['users'], security: [{ bearer: [] }], response: { 200: currentUser, ...errors } } },
    async (request) => {
      const user = await findUserByUid(ctx.db, principalOf(request).userId);
      if (!user) throw new AppError('unauthorized', 'Not authenticated.');
      return currentUserOf(user, ctx.clock.now(), ctx.config.mode?.billing);
    },
  );

  app.patch(
    '/users/update-password',
    { onRequest: app.requireVerifiedUser, schema: { tags: ['users'], security: [{ bearer: [] }], body: updatePasswordRequest, response: { 200: messageResponse, ...errors } } },
    async (request) => {
      await changePassword(ctx, principalOf(request).userId, request.body, request.cookies[REFRESH_COOKIE]);
      return { message: PASSWORD_UPDATED_MESSAGE };
    },
  );

  // GET /subscription/current is billing's (billing/routes.ts): the subscription is its projection.
};
