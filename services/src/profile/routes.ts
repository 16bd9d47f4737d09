import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, paginated, paginationQuery } from '@oj/contracts/common';
import {
  consoleConfig,
  contactMessage,
  contactMessageParams,
  contactMessageSummary,
  contactMessages,
  contactUsRequest,
  currentUser,
  profileChange,
  updateProfileRequest,
  userImageRequest,
  userImageResponse,
} from '@oj/contracts/users';
import { AppError } from '../app/errors.ts';
import { principalOf } from '../app/principal.ts';
import { sendContactMessage, setUserImage, updateProfile, type ProfileContext } from './commands.ts';
import { findContactMessage, listContactMessages, listProfileChanges } from './queries.ts';

const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 409: errorBody, 413: errorBody, 415: errorBody, 422: errorBody, 429: errorBody };
const security = [{ bearer: [] }];
/** Staff who read users' messages and profile history. */
const supportStaff = ['Admin', 'Support'] as const;

export const profileRoutes: FastifyPluginAsyncZod = async (app) => {
  const { config } = app.deps;
  const ctx: ProfileContext = { db: app.deps.database.db, clock: app.deps.clock, config };
  const guard = { onRequest: app.requireVerifiedUser };

  app.patch('/users/update-profile', { ...guard, schema: { tags: ['users'], security, body: updateProfileRequest, response: { 200: currentUser, ...errors } } }, async (request) =>
    updateProfile(ctx, principalOf(request), request.body),
  );

  app.post('/users/user-image', { ...guard, schema: { tags: ['users'], security, body: userImageRequest, response: { 200: userImageResponse, ...errors } } }, async (request) =>
    setUserImage(ctx, principalOf(request), request.body.image, request.body.image_for),
  );

  app.post(
    '/users/contact-us',
    {
      ...guard,
      config: {
        // Per user, not per address (people behind one NAT), so the limit runs after authentication.
        rateLimit: {
          max: config.RATE_LIMIT_CONTACT_PER_HOUR,
          timeWindow: '1 hour',
          hook: 'preHandler',
          keyGenerator: (request) => `contact:${request.principal?.userId ?? request.ip}`,
        },
      },
      schema: { tags: ['users'], security, body: contactUsRequest, response: { 201: z.object({ message: z.string(), id: z.string() }), ...errors } },
    },
    async (request, reply) => {
      const { id } = await sendContactMessage(ctx, principalOf(request), request.body);
      return reply.status(201).send({ message: contactMessages.success, id });
    },
  );

  // Public: the console needs it before sign-in screens draw trade rows, and it holds no secret.
  app.get('/console-config', { schema: { tags: ['platform'], response: { 200: consoleConfig } } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return { ticker_logo_url: config.TICKER_LOGO_URL ?? null, billing: config.mode.billing };
  });

  const staff = { onRequest: app.requireRole(...supportStaff) };

  app.get(
    '/admin/messages',
    { ...staff, schema: { tags: ['admin'], security, querystring: paginationQuery, response: { 200: paginated(contactMessageSummary), ...errors } } },
    async (request) => listContactMessages(ctx.db, request.query.page, request.query.size),
  );

  app.get('/admin/messages/:id', { ...staff, schema: { tags: ['admin'], security, params: contactMessageParams, response: { 200: contactMessage, ...errors } } }, async (request) => {
    const message = await findContactMessage(ctx.db, request.params.id);
    if (!message) throw new AppError('not_found', 'Message not found.');
    return message;
  });

  app.get(
    '/admin/users/:uid/profile-changes',
    { ...staff, schema: { tags: ['admin'], security, params: z.object({ uid: z.uuid({ error: 'User not found.' }) }), response: { 200: z.array(profileChange), ...errors } } },
    async (request) => listProfileChanges(ctx.db, request.params.uid),
  );
};
