import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { randomUUID } from 'node:crypto';
import { CONSOLE_BUILD_HEADER, REQUEST_BODY_MESSAGES, errorBodyOf } from '@oj/contracts/common';
import type { AppDeps } from './deps.ts';
import { AppError } from './errors.ts';
import { registerAnswerCompression, type AnswerCompressionOptions } from './plugins/answer-compression.ts';
import { registerErrorHandler } from './plugins/error-handler.ts';
import { registerInputHygiene } from './plugins/input-hygiene.ts';
import { registerClosingRefusal, registerLoadShedding, registerStartupRefusal } from './plugins/load-shedding.ts';
import { registerObservability } from './plugins/observability.ts';
import { registerSecurityHeaders } from './plugins/security-headers.ts';
import { consoleBuildOf, registerWebConsole } from './plugins/web-console.ts';
import { healthRoutes } from './health-routes.ts';
import { authPlugin } from '../identity/auth-plugin.ts';
import { identityRoutes } from '../identity/routes.ts';
import { accountRoutes } from '../accounts/routes.ts';
import { strategyRoutes } from '../strategies/routes.ts';
import { adminRoutes } from '../admin/routes.ts';
import { journalRoutes } from '../journal/routes.ts';
import { tradeViewRoutes } from '../trade-views/routes.ts';
import { auditRoutes } from '../audit/routes.ts';
import { operationsRoutes } from '../operations/routes.ts';
import { billingRoutes } from '../billing/routes.ts';
import { profileRoutes } from '../profile/routes.ts';

export { API_PREFIX } from './api-prefix.ts';
import { API_PREFIX } from './api-prefix.ts';

export interface BuildAppOptions {
  /** Serve the built console from web/dist (the embedded `npm start`). */
  serveWeb?: boolean;
  logger?: boolean;
  /**
   * Other work runs on this process's event loop (`npm start`: the projector, mail): its delay then says
   * nothing about the API's load, so load shedding does not read it unless GATEWAY_MAX_EVENT_LOOP_DELAY_MS
   * is set.
   */
  sharedEventLoop?: boolean;
  /** How the API's answers are compressed: tests that check what is sent say the process is never too busy. */
  answerCompression?: AnswerCompressionOptions;
}

/**
 * Builds the gateway. Plugins register in a fixed order, because each layer relies on the one before:
 * 1. external plugins (security headers, CORS, cookies, rate limiting, OpenAPI) wrap every route;
 * 2. application plugins (error handler, metrics, authentication) decorate the instance routes use;
 * 3. routes, each module under /api/v1, thin: request in, command or query out.
 */
export async function buildApp(deps: AppDeps, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger === false ? undefined : (deps.logger as FastifyBaseLogger),
    genReqId: (req) => (typeof req.headers['x-request-id'] === 'string' && req.headers['x-request-id'].length <= 128 ? req.headers['x-request-id'] : randomUUID()),
    // Every request log line carries the id under `requestId` (fastify 5: set on the log controller).
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    // Only a configured proxy may set the client address (rate limits key on it).
    trustProxy: deps.config.TRUST_PROXY,
    bodyLimit: 8 * 1024 * 1024,
    // While closing, requests are refused by `registerClosingRefusal`, in the product's error shape.
    return503OnClosing: false,
    // `/strategies` and `/strategies/` are one route: the spec writes some paths with a trailing slash
    // and some without, and clients add or drop it.
    // A path parameter longer than find-my-way's default of 100 characters made the route itself unknown
    // ("Route GET /api/v1/admin/messages/999… not found."): up to 500 it reaches the route, whose schema
    // says what is wrong with it (QA).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // A path Fastify cannot decode (`%ED%A0%80`, half a UTF-16 pair) is refused before any route: in the
    // product's error shape, not Fastify's own `{error, code, statusCode}` (QA).
    frameworkErrors: (error, _request, res) => {
      const reply = res as unknown as FastifyReply;
      if (error.code === 'FST_ERR_BAD_URL') return void reply.status(400).send(errorBodyOf('The address is not valid: a part of its path is not a valid percent-encoded UTF-8 text.'));
      return void reply.status(error.statusCode ?? 400).send(errorBodyOf(error.message));
    },
  });
  // A JSON content type with an empty body is a request without a body (a POST of nothing sent by a
  // client that sets the header on every call), not a 400; anything else goes to Fastify's own parser,
  // which refuses prototype poisoning. Its refusal does not say which: valid JSON it refused holds a
  // forbidden key, and the answer names it (QA: "Body is not valid JSON" for valid JSON).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text === '') return done(null, undefined);
    parseJson(request, text, (error, value) => {
      if (!error) return done(null, value);
      const key = forbiddenKeyIn(text);
      done(key ? new AppError('bad_request', REQUEST_BODY_MESSAGES.forbiddenKey(key)) : error, undefined);
    });
  });
  // Every body this API reads is JSON (the Stripe webhook keeps its own parser): a text/plain body would
  // otherwise reach a route's validation as a string and be answered as a bad field (QA: a 422 naming
  // none). Without a parser it is a 415, which the error handler words.
  app.removeContentTypeParser('text/plain');
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorate('deps', deps);
  const consoleBuild = options.serveWeb ? consoleBuildOf() : null;
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    const build = consoleBuild?.();
    if (build) reply.header(CONSOLE_BUILD_HEADER, build);
  });

  // 1. External plugins.
  const stripeOn = deps.config.mode.billing === 'stripe';
  // Served over plain HTTP (PUBLIC_URL http://, a journal on a LAN address), the browser must not be told
  // to fetch the console's scripts over HTTPS or to remember HTTPS for the host: helmet's defaults did,
  // and the console was a blank page everywhere but on localhost (QA). Behind HTTPS both stay on.
  const https = deps.config.PUBLIC_URL.startsWith('https:');
  registerSecurityHeaders(app, {
    ...(https ? {} : { strictTransportSecurity: false }),
    // The console is served from this origin; its styles are inline-free, scripts are same-origin modules.
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", 'data:', 'blob:', 'https:'],
        styleSrc: ["'self'", "'unsafe-inline'"],
        // Stripe Elements (the Subscription page's card form) is Stripe.js from js.stripe.com in Stripe's
        // frames, talking to api.stripe.com; only when payments are on (billing/, docs/billing.md).
        scriptSrc: ["'self'", ...(stripeOn ? ['https://js.stripe.com'] : [])],
        connectSrc: ["'self'", ...(stripeOn ? ['https://api.stripe.com'] : [])],
        ...(stripeOn ? { frameSrc: ['https://js.stripe.com', 'https://hooks.stripe.com'] } : {}),
        ...(https ? {} : { upgradeInsecureRequests: null }),
      },
    },
  });
  await app.register(cors, { origin: deps.config.WEB_ORIGIN, credentials: true, exposedHeaders: [CONSOLE_BUILD_HEADER] });
  await app.register(cookie);
  // Global limit off; auth routes opt in with `config.rateLimit`. Several gateway processes count in one
  // Redis, or each would allow the limit again; if Redis is down, requests pass unlimited rather than fail
  // (a login must not depend on the projector's queue store).
  await app.register(rateLimit, {
    global: false,
    ...(deps.rateLimitRedis ? { redis: deps.rateLimitRedis, nameSpace: `${deps.config.BULLMQ_PREFIX}:rate-limit:`, skipOnError: true } : {}),
  });
  await app.register(swagger, {
    openapi: {
      info: { title: 'Options Journal API', version: '1.0.0', description: 'Trade journal commands, read-model queries, identity and accounts.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: `${API_PREFIX}/docs` });

  // 2. Application plugins.
  registerErrorHandler(app);
  registerInputHygiene(app);
  registerObservability(app);
  registerAnswerCompression(app, options.answerCompression);
  registerClosingRefusal(app);
  registerStartupRefusal(app);
  registerLoadShedding(app, {
    maxEventLoopDelayMs: deps.config.GATEWAY_MAX_EVENT_LOOP_DELAY_MS ?? (options.sharedEventLoop ? 0 : 500),
    maxInFlight: deps.config.GATEWAY_MAX_IN_FLIGHT,
  });
  await app.register(authPlugin);

  // 3. Routes.
  await app.register(
    async (api) => {
      await api.register(healthRoutes);
      await api.register(identityRoutes);
      await api.register(accountRoutes);
      await api.register(strategyRoutes);
      await api.register(adminRoutes);
      await api.register(journalRoutes);
      await api.register(tradeViewRoutes);
      await api.register(auditRoutes);
      await api.register(operationsRoutes);
      await api.register(billingRoutes);
      await api.register(profileRoutes);
    },
    { prefix: API_PREFIX },
  );

  if (options.serveWeb) await registerWebConsole(app);
  return app;
}

/**
 * The key that made the JSON parser refuse `text`, when `text` is valid JSON: `__proto__` anywhere, or
 * `constructor` holding a `prototype` (what secure-json-parse refuses). Null for text that is not JSON.
 * Runs only on a refused body.
 */
function forbiddenKeyIn(text: string): '__proto__' | 'constructor' | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  let found: '__proto__' | 'constructor' | null = null;
  const visit = (node: unknown, depth: number): void => {
    if (found || node === null || typeof node !== 'object' || depth > 64) return;
    if (Object.hasOwn(node, '__proto__')) found = '__proto__';
    else {
      const ctor = Object.hasOwn(node, 'constructor') ? (node as { constructor: unknown }).constructor : undefined;
      if (ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')) found = 'constructor';
    }
    for (const item of Object.values(node)) visit(item, depth + 1);
  };
  visit(value, 0);
  return found;
}
