import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { errorBody } from '@oj/contracts/common';
import type { CloseAction } from '@oj/contracts/journal-events';
import { tradeListItem } from '@oj/contracts/trade-list-item';
import {
  addClosedTradeRequest,
  addClosedTradeResponse,
  addTradeRequest,
  closeActionPath,
  closeTradeRequest,
  closeTradeResponse,
  deleteTradeResponse,
  outcomeParams,
  rollTradeRequest,
  rollTradeResponse,
  splitTradeRequest,
  splitTradeResponse,
  tradeUidParams,
  updateTradeRequest,
} from '@oj/contracts/trades';
import { AppError } from '../app/errors.ts';
import { commandResultsCounter } from '../app/plugins/observability.ts';
import { principalOf } from '../app/principal.ts';
import { IDEMPOTENCY_KEY_MAX, runJournalCommand, type CommandCaller, type JournalContext, type JournalRequest } from './commands.ts';

const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 409: errorBody, 422: errorBody };
const security = [{ bearer: [] }];
const tags = ['trades'];

const outcomeAction: Record<z.infer<typeof closeActionPath>, CloseAction> = { assigned: 'assigned', 'called-away': 'calledAway', calledAway: 'calledAway', exercised: 'exercised' };

function callerOf(request: FastifyRequest): CommandCaller {
  const header = request.headers['idempotency-key'];
  const key = typeof header === 'string' && header.length > 0 ? header : null;
  if (key !== null && key.length > IDEMPOTENCY_KEY_MAX) throw new AppError('bad_request', `Idempotency-Key must be at most ${IDEMPOTENCY_KEY_MAX} characters.`);
  return { principal: principalOf(request), requestId: request.id, idempotencyKey: key };
}

/**
 * The close family (close, expire-worthless, the in-the-money outcomes) takes a body of optional
 * fields, and Expire Worthless needs none at all: a request without one (no content-type: Fastify
 * hands over `null`) or with a JSON `null` means `{}`, and the decider answers the spec's rules.
 */
async function missingBodyIsEmpty(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

/** How long a refusal waits for the read models to show what it was decided on (commands.ts). */
const REFUSAL_WAIT_MS = 2_000;

/** The trade journal's commands (part 1 §7). Thin: request in, command out; the rules are in domain/. */
export const journalRoutes: FastifyPluginAsyncZod = async (app) => {
  const ctx: JournalContext = {
    db: app.deps.database.db,
    eventStore: app.deps.eventStore,
    clock: app.deps.clock,
    // Read at each refusal: the in-process projector sets it once it runs (embedded mode, `npm start`).
    // A projector that lags further answers the refusal anyway (the console reads its lists again).
    readModelsAt: (position) => app.deps.waitForProjections?.(REFUSAL_WAIT_MS, position).catch(() => undefined) ?? Promise.resolve(),
  };
  const guard = { onRequest: app.requireVerifiedUser };
  const closeGuard = { ...guard, preValidation: missingBodyIsEmpty };
  const results = commandResultsCounter(app);
  // The answers are unions of shapes; each route's response schema narrows its own.
  const run = async <T>(request: FastifyRequest, command: JournalRequest): Promise<T> => {
    const name = command.kind === 'close' ? `close:${command.action}` : command.kind;
    try {
      const answer = (await runJournalCommand(ctx, callerOf(request), command)) as T;
      results.inc({ command: name, result: 'ok' });
      return answer;
    } catch (error) {
      const result = error instanceof AppError ? (error.kind === 'conflict' ? 'conflict' : 'rejected') : 'error';
      results.inc({ command: name, result });
      throw error;
    }
  };

  app.post('/trades/add-trade', { ...guard, schema: { tags, security, body: addTradeRequest, response: { 201: tradeListItem, ...errors } } }, async (request, reply) =>
    reply.status(201).send(await run(request, { kind: 'addTrade', body: request.body })),
  );

  app.post(
    '/trades/add-closed-trade',
    { ...guard, schema: { tags, security, body: addClosedTradeRequest, response: { 201: addClosedTradeResponse, ...errors } } },
    async (request, reply) => reply.status(201).send(await run(request, { kind: 'addClosedTrade', body: request.body })),
  );

  app.post(
    '/trades/close/:uid',
    { ...closeGuard, schema: { tags, security, params: tradeUidParams, body: closeTradeRequest, response: { 200: closeTradeResponse, ...errors } } },
    async (request) => run(request, { kind: 'close', uid: request.params.uid, action: 'close', body: request.body }),
  );

  app.post(
    '/trades/expire-worthless/:uid',
    { ...closeGuard, schema: { tags, security, params: tradeUidParams, body: closeTradeRequest.default({}), response: { 200: closeTradeResponse, ...errors } } },
    async (request) => run(request, { kind: 'close', uid: request.params.uid, action: 'expireWorthless', body: request.body }),
  );

  app.post(
    '/trades/roll/:uid',
    { ...guard, schema: { tags, security, params: tradeUidParams, body: rollTradeRequest, response: { 200: rollTradeResponse, ...errors } } },
    async (request) => run(request, { kind: 'roll', uid: request.params.uid, body: request.body }),
  );

  app.post(
    '/trades/split-trade/:uid',
    { ...guard, schema: { tags, security, params: tradeUidParams, body: splitTradeRequest, response: { 200: splitTradeResponse, ...errors } } },
    async (request) => run(request, { kind: 'split', uid: request.params.uid, body: request.body }),
  );

  // Static segments (close, roll, split-trade, expire-worthless) win over this parametric route.
  app.post(
    '/trades/:outcome/:uid',
    { ...closeGuard, schema: { tags, security, params: outcomeParams, body: closeTradeRequest, response: { 200: closeTradeResponse, ...errors } } },
    async (request) => run(request, { kind: 'close', uid: request.params.uid, action: outcomeAction[request.params.outcome], body: request.body }),
  );

  app.patch(
    '/trades/update/:uid',
    { ...guard, schema: { tags, security, params: tradeUidParams, body: updateTradeRequest, response: { 200: tradeListItem, ...errors } } },
    async (request) => run(request, { kind: 'update', uid: request.params.uid, body: request.body }),
  );

  app.delete('/trades/:uid', { ...guard, schema: { tags, security, params: tradeUidParams, response: { 200: deleteTradeResponse, ...errors } } }, async (request) =>
    run(request, { kind: 'delete', uid: request.params.uid }),
  );
};
