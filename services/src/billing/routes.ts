import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  billingMessages as m,
  createPaymentIntentResponse,
  createSubscriptionRequest,
  createSubscriptionResponse,
  frontendDataResponse,
  updatePaymentMethodRequest,
  updatePaymentMethodResponse,
  webhookResponse,
} from '@oj/contracts/billing';
import { errorBody } from '@oj/contracts/common';
import { subscriptionDetails as subscriptionDetailsSchema } from '@oj/contracts/subscriptions';
import type { AppDeps } from '../app/deps.ts';
import { principalOf } from '../app/principal.ts';
import {
  cancelSubscription,
  createSetupIntent,
  createSubscription,
  reactivateSubscription,
  subscriptionDetails,
  updatePaymentMethod,
  type BillingContext,
} from './commands.ts';
import { createStripeClient } from './stripe-client.ts';
import { handleStripeWebhook } from './webhooks.ts';

const errors = { 400: errorBody, 401: errorBody, 402: errorBody, 403: errorBody, 404: errorBody, 409: errorBody, 413: errorBody, 422: errorBody, 503: errorBody };
/** The payment calls carry two Stripe ids at most: anything larger is refused before it is parsed (QA: 3 MB was). */
const BODY_LIMIT = 16 * 1024;

export const billingContext = (deps: AppDeps): BillingContext => ({
  db: deps.database.db,
  eventStore: deps.eventStore,
  clock: deps.clock,
  config: deps.config,
  stripe: createStripeClient(deps.config),
  logger: deps.logger.child({ module: 'billing' }),
});

/** Part 2 §7's payment calls, GET /subscription/current and Stripe's webhook. Thin: each calls a command. */
export const billingRoutes: FastifyPluginAsyncZod = async (app) => {
  const ctx = billingContext(app.deps);
  const guard = { onRequest: app.requireVerifiedUser };
  const security = [{ bearer: [] }];
  const tags = ['subscription'];
  const caller = (request: Parameters<typeof principalOf>[0]) => {
    const p = principalOf(request);
    return { userId: p.userId, email: p.email };
  };

  app.get('/subscription/current', { ...guard, schema: { tags, security, response: { 200: subscriptionDetailsSchema, ...errors } } }, async (request) =>
    subscriptionDetails(ctx, principalOf(request).userId),
  );

  app.post('/auth/create-payment-intent', { ...guard, bodyLimit: BODY_LIMIT, schema: { tags, security, response: { 200: createPaymentIntentResponse, ...errors } } }, async (request) =>
    createSetupIntent(ctx, caller(request)),
  );

  app.post(
    '/auth/create-subscription',
    { ...guard, bodyLimit: BODY_LIMIT, schema: { tags, security, body: createSubscriptionRequest, response: { 200: createSubscriptionResponse, ...errors } } },
    async (request) => ({ status: 'success' as const, message: m.activated, subscription_data: await createSubscription(ctx, caller(request), request.body) }),
  );

  app.post('/auth/cancel-subscription', { ...guard, bodyLimit: BODY_LIMIT, schema: { tags, security, response: { 200: frontendDataResponse, ...errors } } }, async (request) => ({
    message: m.canceled,
    frontend_data: await cancelSubscription(ctx, caller(request)),
  }));

  app.post('/auth/reactivate-subscription', { ...guard, bodyLimit: BODY_LIMIT, schema: { tags, security, response: { 200: frontendDataResponse, ...errors } } }, async (request) => {
    const { details, message } = await reactivateSubscription(ctx, caller(request));
    return { message, frontend_data: details };
  });

  app.post(
    '/auth/update-payment-method',
    { ...guard, bodyLimit: BODY_LIMIT, schema: { tags, security, body: updatePaymentMethodRequest, response: { 200: updatePaymentMethodResponse, ...errors } } },
    async (request) => ({ status: 'success' as const, message: m.paymentUpdated, subscription_data: await updatePaymentMethod(ctx, caller(request), request.body.paymentMethodId) }),
  );

  // Stripe signs the exact bytes it sent: this context keeps the body raw (its own JSON parser), and
  // only this route lives in it.
  await app.register(async (hooks) => {
    hooks.removeAllContentTypeParsers();
    hooks.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_request, body, done) => done(null, body));
    hooks.post('/payments/stripe/webhook', { schema: { tags: ['payments'], response: { 200: webhookResponse, 400: errorBody, 404: errorBody, 409: errorBody, 503: errorBody } } }, async (request) => {
      const signature = request.headers['stripe-signature'];
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const { duplicate } = await handleStripeWebhook(ctx, raw, typeof signature === 'string' ? signature : undefined);
      return { received: true as const, duplicate };
    });
  });
};
