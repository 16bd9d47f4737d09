import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { errorBody } from '@oj/contracts/common';
import {
  actionsQuery,
  actionsResponse,
  diffQuery,
  diffResponse,
  operationsLive,
  operatorActionResult,
  projectionParams,
  projectionsStatusResponse,
  rebuildRequest,
  rebuildResponse,
  abandonRequest,
  retireRequest,
  rollbackRequest,
  switchRequest,
  type OperationsLive,
  type OperatorAction,
  type RebuildState,
} from '@oj/contracts/operations';
import { rebuildJobId } from '@oj/projections/runtime/rebuild-job';
import { allProjections } from '@oj/projections/catalogue';
import { projectionsStatus } from '@oj/projections/runtime/status';
import { DEFAULT_BULL_PREFIX, redisConnection } from '@oj/projections/runtime/projector';
import { isConnectionError } from '@oj/infra/connection-errors';
import type { RuntimeDeps } from '@oj/projections/runtime/rebuild';
import { AppError } from '../app/errors.ts';
import { principalOf } from '../app/principal.ts';
import { findUserByEmail, findUserByUid } from '../identity/users.ts';
import { listActions, recordAction, type ActionInput, type ActionKind } from './actions.ts';
import { abandonBuild, checkRebuild, diffVersions, interruptedBuilds, rebuildMessage, retireVersions, rollBack, switchTo } from './commands.ts';
import { OperationsConsole } from './live.ts';
import { QUEUES_URL, registerQueuesBoard, setBoardCookie } from './queues-board.ts';

const errors = { 401: errorBody, 403: errorBody, 404: errorBody, 409: errorBody, 422: errorBody };
const doc = { tags: ['operations'], security: [{ bearer: [] }] };

/**
 * The projections console (Admin and Operator): status, live lag and rebuild progress (also pushed
 * as Server-Sent Events), rebuilds, diffs, switch, rollback, retire, abandon, and the log of every
 * operator action. Thin: the work is the projector runtime's (commands.ts calls it). The BullMQ board
 * is mounted for Admins when REDIS_URL is set.
 */
export const operationsRoutes: FastifyPluginAsyncZod = async (app) => {
  const operator = app.requireRole('Admin', 'Operator');
  const runtimeDeps = (): RuntimeDeps => {
    const { config, database, eventStore, projections } = app.deps;
    return { database, eventStore, projections: projections ?? allProjections, lanes: config.PROJECTOR_LANES };
  };
  const { config } = app.deps;
  const live = new OperationsConsole({
    deps: runtimeDeps,
    bull: config.REDIS_URL ? { connection: redisConnection(config.REDIS_URL), prefix: config.BULLMQ_PREFIX ?? DEFAULT_BULL_PREFIX } : null,
    metrics: app.deps.metrics,
    // Redis unreachable: the process's Redis monitor logs the outage once (platform/readiness.ts).
    onError: (err, what) => (isConnectionError(err) ? app.log.debug({ err: err instanceof Error ? err.message : String(err) }, `operations console: ${what}: redis connection error`) : app.log.warn({ err }, `operations console: ${what} failed`)),
  });
  const streams = new Set<ServerResponse>();
  const counted = new Map<string, { at: number; counts: Record<string, number> }>();
  // Open event streams would keep the server from closing: end them first.
  app.addHook('preClose', async () => {
    for (const s of streams) s.end();
  });
  app.addHook('onClose', () => live.close());
  if (!config.REDIS_URL) {
    app.addHook('onReady', async () => {
      // In the background: the server does not wait for a rebuild to start.
      void (async () => {
        for (const r of await interruptedBuilds(runtimeDeps())) {
          await live.rebuilds.start({ projection: r.projection, switch: false, requestedBy: r.requestedBy });
          app.log.info({ projection: r.projection }, 'resumed an interrupted console rebuild');
        }
      })().catch((err) => app.log.warn({ err }, 'could not resume an interrupted console rebuild'));
    });
  }

  const snapshot = async (request: FastifyRequest): Promise<OperationsLive> => {
    await live.ensureStarted();
    const admin = principalOf(request).role === 'Admin';
    return { ...(await live.snapshot()), queuesUrl: admin && config.REDIS_URL ? `${QUEUES_URL}/` : null };
  };

  /** Runs an operator command and appends its outcome (done, refused with a 4xx, or failed) to the log. */
  const act = async <T extends { message: string }>(
    request: FastifyRequest,
    input: Omit<ActionInput, 'outcome' | 'message'>,
    run: () => Promise<T & { version?: number | null }>,
  ): Promise<T & { action: OperatorAction }> => {
    const actor = principalOf(request);
    const db = app.deps.database.db;
    try {
      const result = await run().finally(() => counted.clear());
      const action = await recordAction(db, actor, { ...input, version: result.version ?? input.version ?? null, outcome: 'ok', message: result.message });
      return { ...result, action };
    } catch (error) {
      const refused = error instanceof AppError && error.statusCode < 500;
      await recordAction(db, actor, { ...input, outcome: refused ? 'refused' : 'failed', message: error instanceof Error ? error.message : String(error) }).catch((err) =>
        request.log.error({ err }, 'could not record an operator action'),
      );
      throw error;
    }
  };

  /**
   * A request the contracts refuse (422: a rollback, retire or abandon naming no version, a version that
   * is no whole number, an unknown field) is an attempt too, and the log keeps refused attempts: these
   * routes take their validation error (`attachValidation`) to log it, then answer it as any 422.
   */
  const refuseInvalid = async (request: FastifyRequest, action: ActionKind): Promise<void> => {
    const invalid = request.validationError;
    if (!invalid) return;
    const issue = (invalid as { validation?: Array<{ message?: string; instancePath?: string }> }).validation?.[0];
    const name = (request.params as { name?: unknown } | undefined)?.name;
    const field = [String((invalid as { validationContext?: string }).validationContext ?? ''), ...String(issue?.instancePath ?? '').split('/').filter(Boolean)].filter(Boolean).join('.');
    await recordAction(app.deps.database.db, principalOf(request), {
      action,
      projection: typeof name === 'string' ? name : '',
      version: null,
      outcome: 'refused',
      message: `Invalid request${field ? ` (${field})` : ''}: ${issue?.message ?? invalid.message}`,
    }).catch((err) => request.log.error({ err }, 'could not record an operator action'));
    throw invalid;
  };
  const validated = { attachValidation: true } as const;

  app.get(
    '/operations/projections',
    { onRequest: operator, schema: { ...doc, response: { 200: projectionsStatusResponse, ...errors } } },
    async () => projectionsStatus(runtimeDeps(), config.mode.projector, counted),
  );

  app.get('/operations/live', { onRequest: operator, schema: { ...doc, response: { 200: operationsLive, ...errors } } }, async (request) => snapshot(request));

  // Server-Sent Events: `snapshot` first (the same as /operations/live), then `rebuilds` whenever a
  // rebuild moves and `lag` at every sample. A reload simply reconnects and gets a new snapshot.
  app.get('/operations/stream', { onRequest: operator, schema: { ...doc, response: { ...errors } } }, async (request, reply: FastifyReply) => {
    const first = await snapshot(request);
    reply.hijack();
    const res = reply.raw;
    const headers = Object.fromEntries(Object.entries(reply.getHeaders()).filter(([, v]) => v !== undefined)) as Record<string, string>;
    res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-request-id': request.id,
    });
    const send = (event: string, data: unknown) => {
      if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    send('snapshot', first);
    streams.add(res);
    // Progress events come per committed batch (and per BullMQ event): coalesce bursts into one list.
    let pending: NodeJS.Timeout | null = null;
    const userId = principalOf(request).userId;
    const unsubscribe = live.subscribe((e) => {
      if (e.type === 'lag') {
        // A stream outlives its access token: the user behind it is checked again at every sample, so a
        // role taken away (or a deleted user) ends it within seconds.
        app.principals
          .find(userId)
          .then((user) => {
            if (!user || !user.account_confirmed || (user.role !== 'Admin' && user.role !== 'Operator')) res.end();
            else send('lag', { sample: e.sample, laneErrors: e.laneErrors });
          })
          .catch(() => res.end());
      }
      else
        pending ??= setTimeout(() => {
          pending = null;
          live.rebuilds
            .list()
            .then((list) => send('rebuilds', list))
            .catch((err) => request.log.warn({ err }, 'could not list rebuilds'));
        }, 150);
    });
    const ping = setInterval(() => !res.writableEnded && res.write(': ping\n\n'), 15_000);
    const done = () => {
      clearInterval(ping);
      if (pending) clearTimeout(pending);
      unsubscribe();
      streams.delete(res);
    };
    res.on('close', done);
    request.raw.on('close', done);
  });

  app.post(
    '/operations/projections/:name/rebuild',
    { ...validated, onRequest: operator, schema: { ...doc, params: projectionParams, body: rebuildRequest, response: { 202: rebuildResponse, ...errors } } },
    async (request, reply) => {
      const asked = request.body as Partial<typeof request.body> | undefined;
      await refuseInvalid(request, asked?.userId || asked?.userEmail ? 'rebuild-user' : 'rebuild');
      const { name } = request.params;
      const { userEmail } = request.body;
      let { userId } = request.body;
      // The account's own e-mail, shown on the progress card beside the id (the operator typed it).
      let accountEmail: string | undefined;
      if (userEmail) {
        // Refused here is an attempt too, logged with the e-mail it named (QA: an unknown e-mail left no trace).
        const refused = async (error: AppError): Promise<AppError> => {
          await recordAction(app.deps.database.db, principalOf(request), { action: 'rebuild-user', projection: name, userId: userId ?? null, outcome: 'refused', message: `User ${userEmail}: ${error.message}` }).catch((err) =>
            request.log.error({ err }, 'could not record an operator action'),
          );
          return error;
        };
        if (userId) throw await refused(new AppError('invalid', 'Give a user id or an e-mail, not both.'));
        const user = await findUserByEmail(runtimeDeps().database.db, userEmail);
        if (!user) throw await refused(new AppError('not_found', 'No user account has this e-mail.'));
        userId = user.uid;
        accountEmail = user.email;
      }
      const toSwitch = userId ? false : (request.body.switch ?? false);
      const actor = principalOf(request);
      // The rebuild's end is its own entry (live.ts), written after this request's.
      const id = rebuildJobId(name, userId);
      live.holdEnds(id);
      let answered: RebuildState | undefined;
      const result = await act(request, { action: userId ? 'rebuild-user' : 'rebuild', projection: name, userId: userId ?? null }, async () => {
        const deps = runtimeDeps();
        await checkRebuild(deps, name, userId);
        await live.ensureStarted();
        const { state, existing } = await live.rebuilds.start({ projection: name, ...(userId ? { userId } : {}), ...(accountEmail ? { userEmail: accountEmail } : {}), switch: toSwitch, requestedBy: actor.email });
        if (state.phase === 'failed') throw new AppError('conflict', state.error ?? `The rebuild of ${name} failed.`);
        // An id no account has is still a valid request (it clears rows left for it, if any), but a
        // mistyped id reads like a healthy user: the answer says so.
        const unknownUser = Boolean(userId && !(await findUserByUid(deps.database.db, userId)));
        answered = state;
        return { message: rebuildMessage(state, { existing, switchRequested: toSwitch, unknownUser }), rebuild: state, existing, version: state.version };
      }).finally(() => live.releaseEnds(id, answered));
      // The log says `queued` for work that goes on after the answer.
      reply.code(202);
      return { rebuild: result.rebuild, existing: result.existing, action: result.action };
    },
  );

  app.get(
    '/operations/projections/:name/diff',
    { onRequest: operator, schema: { ...doc, params: projectionParams, querystring: diffQuery, response: { 200: diffResponse, ...errors } } },
    async (request) => diffVersions(runtimeDeps(), request.params.name, request.query.version),
  );

  app.post(
    '/operations/projections/:name/switch',
    { ...validated, onRequest: operator, schema: { ...doc, params: projectionParams, body: switchRequest, response: { 200: operatorActionResult, ...errors } } },
    async (request) => {
      await refuseInvalid(request, 'switch');
      const { name } = request.params;
      const { version } = request.body;
      const r = await act(request, { action: 'switch', projection: name, version }, async () => ({ message: await switchTo(runtimeDeps(), live.rebuilds, name, version), version }));
      return { message: r.message, action: r.action };
    },
  );

  app.post(
    '/operations/projections/:name/rollback',
    { ...validated, onRequest: operator, schema: { ...doc, params: projectionParams, body: rollbackRequest, response: { 200: operatorActionResult, ...errors } } },
    async (request) => {
      await refuseInvalid(request, 'rollback');
      const { name } = request.params;
      const { version, from } = request.body;
      const r = await act(request, { action: 'rollback', projection: name, version }, () => rollBack(runtimeDeps(), live.rebuilds, name, version, from));
      return { message: r.message, action: r.action };
    },
  );

  app.post(
    '/operations/projections/:name/retire',
    { ...validated, onRequest: operator, schema: { ...doc, params: projectionParams, body: retireRequest, response: { 200: operatorActionResult, ...errors } } },
    async (request) => {
      await refuseInvalid(request, 'retire');
      const { name } = request.params;
      const { version } = request.body;
      const r = await act(request, { action: 'retire', projection: name, version: version ?? null }, async () => {
        const out = await retireVersions(runtimeDeps(), name, version);
        return { message: out.message, version: out.versions.length === 1 ? out.versions[0]! : (version ?? null) };
      });
      return { message: r.message, action: r.action };
    },
  );

  app.post(
    '/operations/projections/:name/abandon',
    { ...validated, onRequest: operator, schema: { ...doc, params: projectionParams, body: abandonRequest, response: { 200: operatorActionResult, ...errors } } },
    async (request) => {
      await refuseInvalid(request, 'abandon');
      const { name } = request.params;
      const { version } = request.body;
      const r = await act(request, { action: 'abandon', projection: name, version }, () => abandonBuild(runtimeDeps(), live.rebuilds, name, version));
      return { message: r.message, action: r.action };
    },
  );

  app.get('/operations/actions', { onRequest: operator, schema: { ...doc, querystring: actionsQuery, response: { 200: actionsResponse, ...errors } } }, (request) =>
    listActions(app.deps.database.db, request.query));

  // The BullMQ board opens as a page of its own: this sets its short-lived cookie (Admin only).
  app.post('/operations/queues-session', { onRequest: app.requireRole('Admin'), schema: { ...doc, response: { 200: z.object({ url: z.string() }), ...errors } } }, async (request, reply) => {
    if (!config.REDIS_URL) throw new AppError('not_found', 'The queues board needs REDIS_URL: without Redis the lanes and rebuilds run in process, with no queues to show.');
    setBoardCookie(app, reply, principalOf(request).userId);
    return { url: `${QUEUES_URL}/` };
  });

  await registerQueuesBoard(app);
};
