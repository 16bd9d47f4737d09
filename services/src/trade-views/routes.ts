import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody } from '@oj/contracts/common';
import {
  PULSE_INVALID,
  ancestorParams,
  dailyIncomeMonthQuery,
  dailyIncomeMonthResponse,
  type DailyIncomeMonthResponse,
  expiringListQuery,
  premiumDataQuery,
  premiumDataResponse,
  premiumDataSumsResponse,
  type PremiumDataResponse,
  pulseParams,
  pulseQuery,
  pulseResponse,
  rollHistoryResponse,
  splitHistoryResponse,
  tradeByDateParams,
  tradeExportQuery,
  tradeListQuery,
  tradeListResponse,
  tradeStatusParams,
  tradeUidParams,
  tradesByDateResponse,
  upcomingExpirationsResponse,
} from '@oj/contracts/trade-views';
import { AppError } from '../app/errors.ts';
import { principalOf } from '../app/principal.ts';
import { assertActiveSubscription } from '../identity/subscriptions.ts';
import { ancestorOf, expiringList, monthDaysOf, premiumDataOf, pulseOf, rollHistoryOf, statusExport, statusList, tradesOfDate, upcomingExpirationsOf, type TradeViewsContext } from './views.ts';

const errors = { 401: errorBody, 403: errorBody, 404: errorBody, 422: errorBody, 503: errorBody };
const security = [{ bearer: [] }];
const tags = ['trade views'];

/** Read-model queries: every one scoped to the token's user, reading only the live read-model tables. */
export const tradeViewRoutes: FastifyPluginAsyncZod = async (app) => {
  const ctx: TradeViewsContext = { db: app.deps.database.db, clock: app.deps.clock };
  const guard = { onRequest: app.requireVerifiedUser };
  // Part 1 §6, part 2 §6: an expired subscription locks the trade lists and pulse (the console shows its
  // renew screen instead). The data stays: the dashboard, the calendar's days and the histories still
  // read it, and renewing opens the lists again.
  const subscribed = { ...guard, preValidation: async (request: FastifyRequest) => assertActiveSubscription(principalOf(request)) };

  app.get(
    '/trades/status/:status',
    { ...subscribed, schema: { tags, security, params: tradeStatusParams, querystring: tradeListQuery, response: { 200: tradeListResponse, ...errors } } },
    async (request) => statusList(ctx, principalOf(request).userId, request.params.status, request.query),
  );

  // The list whole, with its filters, as a CSV file: for a spreadsheet, an accountant, a tax return.
  app.get(
    '/trades/status/:status/export',
    {
      ...subscribed,
      schema: { tags, security, params: tradeStatusParams, querystring: tradeExportQuery, response: { 200: z.any().describe('The list as a CSV file (text/csv; charset=utf-8)'), ...errors } },
    },
    async (request, reply) => {
      const file = await statusExport(ctx, principalOf(request).userId, request.params.status, request.query);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .header('cache-control', 'no-store')
        .send(file.body);
    },
  );

  app.get('/trades/expiring', { ...subscribed, schema: { tags, security, querystring: expiringListQuery, response: { 200: tradeListResponse, ...errors } } }, async (request) =>
    expiringList(ctx, principalOf(request).userId, request.query),
  );

  app.get('/trades/:uid/roll-history', { ...guard, schema: { tags, security, params: tradeUidParams, response: { 200: rollHistoryResponse, ...errors } } }, async (request) =>
    rollHistoryOf(ctx, principalOf(request).userId, request.params.uid),
  );

  app.get('/trades/:auid/ancestor', { ...guard, schema: { tags, security, params: ancestorParams, response: { 200: splitHistoryResponse, ...errors } } }, async (request) =>
    ancestorOf(ctx, principalOf(request).userId, request.params.auid),
  );

  app.get(
    '/trades/trade-by-date/:date',
    { ...guard, schema: { tags, security, params: tradeByDateParams, response: { 200: tradesByDateResponse, ...errors } } },
    async (request) => tradesOfDate(ctx, principalOf(request).userId, request.params.date),
  );

  // The body is JSON text already (Fastify sends a string with a JSON content type as is): the schema
  // documents it, and the route tests check every answer against it.
  app.get(
    '/metrics/premium-data',
    { ...guard, schema: { tags, security, querystring: premiumDataQuery, response: { 200: premiumDataResponse.or(premiumDataSumsResponse), ...errors } } },
    async (request, reply) =>
      reply.type('application/json; charset=utf-8').send((await premiumDataOf(ctx, principalOf(request).userId, request.query.days)) as unknown as PremiumDataResponse),
  );

  app.get(
    '/metrics/daily-income',
    { ...guard, schema: { tags, security, querystring: dailyIncomeMonthQuery, response: { 200: dailyIncomeMonthResponse, ...errors } } },
    async (request, reply) => reply.type('application/json; charset=utf-8').send((await monthDaysOf(ctx, principalOf(request).userId, request.query.month)) as unknown as DailyIncomeMonthResponse),
  );

  app.get('/trades/upcoming-expirations', { ...guard, schema: { tags, security, response: { 200: upcomingExpirationsResponse, ...errors } } }, async (request) =>
    upcomingExpirationsOf(ctx, principalOf(request).userId),
  );

  app.get(
    '/trades/tt/:ticker',
    { ...subscribed, schema: { tags, security, params: pulseParams, querystring: pulseQuery, response: { 200: pulseResponse, ...errors } } },
    async (request) => pulseOf(ctx, principalOf(request).userId, request.params.ticker, request.query.timeframe),
  );
  // Pulse without a ticker (with or without the slash, one route): the spec's message rather than a bare route-not-found.
  app.get('/trades/tt', { ...guard, schema: { tags, security, response: { ...errors } } }, async () => {
    throw new AppError('invalid', PULSE_INVALID);
  });
};
