import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from '@oj/contracts/common';
import {
  EXPORT_DIGEST_HEADER,
  accessLogQuery,
  accessLogResponse,
  asOfQuery,
  asOfResponse,
  auditOverview,
  auditUserParams,
  eventDiffResponse,
  eventParams,
  exportQuery,
  findUserQuery,
  findUserResponse,
  journalAccessResponse,
  reasonQuery,
  timelineQuery,
  timelineResponse,
  tradeHistoryResponse,
  verifyQuery,
  verifyResponse,
} from '@oj/contracts/audit';
import { tradeUidParams } from '@oj/contracts/trade-views';
import { principalOf } from '../app/principal.ts';
import { accessLog, describeQuery, journalAccess, recordAccess } from './access-log.ts';
import { asOf, eventDiff, exportHistory, findUsers, overview, targetUser, timeline, tradeHistory, verify, type AuditContext } from './queries.ts';
import { workerParts } from './part-runner.ts';
import { LINEAGE_PARTS } from './state-codec.ts';

const errors = { 401: errorBody, 403: errorBody, 404: errorBody, 422: errorBody, 503: errorBody };
const security = [{ bearer: [] }];
const tags = ['audit'];

/**
 * Audit replay for support staff (Support and Admin; everyone else 403, before any input is read), the
 * access log (Admin) and two trader routes over the trader's own data: who opened my journal, and one
 * of my trades' history. Every read of a user's history names a reason and is recorded in the access log
 * (access-log.ts) before it is answered: a read that could not be recorded is not answered. Each read is
 * computed first and recorded once it has an answer: a refused one (a 4xx: no such event in this
 * user's history, an unregistered formulas version, an unknown trade) showed nothing, so it is not an
 * access, and the trader's Profile does not list it as one (QA: "looked at what one change did").
 */
export const auditRoutes: FastifyPluginAsyncZod = async (app) => {
  // A heavy user's stored replay states are replayed a part of the lineages per worker thread, on every
  // core and off this event loop. PGlite belongs to this process alone: there the parts run here.
  const { config, database } = app.deps;
  const parts = database.kind === 'postgres' && config.DATABASE_URL ? workerParts(config.DATABASE_URL, LINEAGE_PARTS) : undefined;
  app.addHook('onClose', async () => parts?.close());
  const ctx: AuditContext = { db: database.db, eventStore: app.deps.eventStore, clock: app.deps.clock, logger: app.log, parts };
  const staff = { onRequest: app.requireRole('Support', 'Admin') };
  const admin = { onRequest: app.requireRole('Admin') };
  const trader = { onRequest: app.requireVerifiedUser };

  app.get('/audit/users', { ...staff, schema: { tags, security, querystring: findUserQuery, response: { 200: findUserResponse, ...errors } } }, async (request) => ({
    users: await findUsers(ctx.db, request.query.q),
  }));

  app.get(
    '/audit/users/:uid',
    { ...staff, schema: { tags, security, params: auditUserParams, querystring: reasonQuery, response: { 200: auditOverview, ...errors } } },
    async (request) => {
      const target = await targetUser(ctx.db, request.params.uid);
      // The replay workers start while support reads the overview, not when the first as-of waits for them.
      parts?.start();
      const answer = await overview(ctx, target);
      await recordAccess(app.deps, { principal: principalOf(request), target, reason: request.query.reason, view: 'overview', detail: 'opened the history', requestId: request.id });
      return answer;
    },
  );

  app.get(
    '/audit/users/:uid/timeline',
    { ...staff, schema: { tags, security, params: auditUserParams, querystring: timelineQuery, response: { 200: timelineResponse, ...errors } } },
    async (request) => {
      const target = await targetUser(ctx.db, request.params.uid);
      const answer = await timeline(ctx, target.uid, request.query);
      await recordAccess(app.deps, { principal: principalOf(request), target, reason: request.query.reason, view: 'timeline', detail: describeQuery(request.query), requestId: request.id });
      return answer;
    },
  );

  app.get(
    '/audit/users/:uid/as-of',
    { ...staff, schema: { tags, security, params: auditUserParams, querystring: asOfQuery, response: { 200: asOfResponse, ...errors } } },
    async (request) => {
      const target = await targetUser(ctx.db, request.params.uid);
      const answer = await asOf(ctx, target.uid, request.query);
      // The trade as the answer resolved it (a short id names its full uid in the log).
      const detail = describeQuery({ ...request.query, trade: answer.trade ?? undefined });
      await recordAccess(app.deps, { principal: principalOf(request), target, reason: request.query.reason, view: 'as-of', detail, requestId: request.id });
      return answer;
    },
  );

  app.get(
    '/audit/users/:uid/events/:position/diff',
    { ...staff, schema: { tags, security, params: eventParams, querystring: reasonQuery, response: { 200: eventDiffResponse, ...errors } } },
    async (request) => {
      const target = await targetUser(ctx.db, request.params.uid);
      const answer = await eventDiff(ctx, target.uid, request.params.position);
      await recordAccess(app.deps, { principal: principalOf(request), target, reason: request.query.reason, view: 'diff', detail: `event=${request.params.position}`, requestId: request.id });
      return answer;
    },
  );

  app.get(
    '/audit/users/:uid/verify',
    { ...staff, schema: { tags, security, params: auditUserParams, querystring: verifyQuery, response: { 200: verifyResponse, ...errors } } },
    async (request) => {
      const target = await targetUser(ctx.db, request.params.uid);
      const detail = `replayed the whole history${request.query.full ? ' from the first event' : ''} against the live read models`;
      const answer = await verify(ctx, target.uid, { full: request.query.full });
      await recordAccess(app.deps, { principal: principalOf(request), target, reason: request.query.reason, view: 'verify', detail, requestId: request.id });
      return answer;
    },
  );

  app.get(
    '/audit/users/:uid/export',
    { ...staff, schema: { tags, security, params: auditUserParams, querystring: exportQuery, response: { 200: z.any(), ...errors } } },
    async (request, reply) => {
      const target = await targetUser(ctx.db, request.params.uid);
      const file = await exportHistory(ctx, target.uid, request.query.format);
      // The digest is logged before the file leaves: an export nobody can find in the log never happened.
      await recordAccess(app.deps, {
        principal: principalOf(request),
        target,
        reason: request.query.reason,
        view: 'export',
        detail: `format=${request.query.format} events=${file.events} file=${file.filename}`,
        requestId: request.id,
        digest: file.digest,
      });
      return reply
        .header('content-type', file.contentType)
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .header(EXPORT_DIGEST_HEADER, file.digest)
        .header('access-control-expose-headers', `${EXPORT_DIGEST_HEADER}, content-disposition`)
        .send(file.body);
    },
  );

  app.get('/audit/access-log', { ...admin, schema: { tags, security, querystring: accessLogQuery, response: { 200: accessLogResponse, ...errors } } }, async (request) =>
    accessLog({ eventStore: ctx.eventStore, db: ctx.db }, request.query),
  );

  // The trader's own: scoped by the token's user, never by a path or query parameter.
  app.get('/users/journal-access', { ...trader, schema: { tags, security, response: { 200: journalAccessResponse, ...errors } } }, async (request) =>
    journalAccess(ctx, principalOf(request).userId),
  );

  app.get('/trades/:uid/history', { ...trader, schema: { tags, security, params: tradeUidParams, response: { 200: tradeHistoryResponse, ...errors } } }, async (request) =>
    tradeHistory(ctx, principalOf(request).userId, request.params.uid),
  );
};
