import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Queue } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { endRedisClient, isConnectionError } from '@oj/infra/connection-errors';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { laneQueueName, redisConnection, DEFAULT_BULL_PREFIX } from '@oj/projections/runtime/projector';
import { REBUILD_QUEUE } from '@oj/projections/runtime/rebuild-job';
import { AppError } from '../app/errors.ts';
import { API_PREFIX } from '../app/api-prefix.ts';
import { authMessages } from '../identity/auth-plugin.ts';

export const QUEUES_PATH = '/operations/queues';
export const QUEUES_URL = `${API_PREFIX}${QUEUES_PATH}`;
export const BOARD_COOKIE = 'oj_queues';
const BOARD_TTL_S = 15 * 60;

/**
 * The board is a page of its own (opened by navigation, so no bearer header): an Admin first asks
 * the API for a short-lived cookie scoped to the board's path, signed with the token secret. Every
 * board request then re-reads the user behind it, so a role taken away locks the board at once.
 */
const sign = (secret: string, payload: string) => createHmac('sha256', secret).update(`queues-board:${payload}`).digest('base64url');

export function boardCookieValue(secret: string, userId: string, nowMs: number): string {
  const payload = `${userId}.${Math.floor(nowMs / 1000) + BOARD_TTL_S}`;
  return `${payload}.${sign(secret, payload)}`;
}

function verifyBoardCookie(secret: string, value: string | undefined, nowMs: number): string | null {
  if (!value) return null;
  const parts = value.split('.');
  if (parts.length !== 3) return null;
  const [userId, exp, mac] = parts as [string, string, string];
  const expected = Buffer.from(sign(secret, `${userId}.${exp}`));
  const given = Buffer.from(mac);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  if (!/^\d+$/.test(exp) || Number(exp) * 1000 < nowMs) return null;
  return userId;
}

export function setBoardCookie(app: FastifyInstance, reply: FastifyReply, userId: string): void {
  const { config, clock } = app.deps;
  reply.setCookie(BOARD_COOKIE, boardCookieValue(config.JWT_SECRET, userId, clock.now().getTime()), {
    path: QUEUES_URL,
    httpOnly: true,
    sameSite: 'strict',
    secure: config.PUBLIC_URL.startsWith('https:'),
    maxAge: BOARD_TTL_S,
  });
}

/**
 * Mounts @bull-board/fastify under /operations/queues: the lane queues and the rebuild queue, for Admins
 * only (a bearer token or the board cookie). Its UI (HTML, scripts, styles) is served from the
 * @bull-board/ui package; the one external reference of its page, a web-font stylesheet, is removed so
 * the board loads nothing from another origin (the CSP would refuse it anyway).
 */
export async function registerQueuesBoard(app: FastifyInstance): Promise<void> {
  const { config } = app.deps;
  if (!config.REDIS_URL) return;
  // One Redis connection for the board's queues, not one each: every gateway process mounts the board.
  const connection = new Redis(redisConnection(config.REDIS_URL) as RedisOptions);
  // Redis unreachable: the process's Redis monitor logs the outage once (platform/readiness.ts).
  connection.on('error', (err) => (isConnectionError(err) ? app.log.debug({ err: err.message }, 'queues board: redis connection error') : app.log.warn({ err }, 'queues board: redis error')));
  const prefix = config.BULLMQ_PREFIX ?? DEFAULT_BULL_PREFIX;
  const names = [...Array.from({ length: config.PROJECTOR_LANES }, (_, lane) => laneQueueName(lane)), REBUILD_QUEUE];
  const queues = names.map((name) => new Queue(name, { connection, prefix }));
  await app.register(async (board) => {
    board.addHook('onRequest', async (request: FastifyRequest) => {
      if (request.headers.authorization) return app.requireRole('Admin')(request);
      const userId = verifyBoardCookie(config.JWT_SECRET, request.cookies[BOARD_COOKIE], app.deps.clock.now().getTime());
      if (!userId) throw new AppError('unauthorized', authMessages.missing, { resolution: 'Open the queues from the Operations page.' });
      const user = await app.principals.find(userId);
      if (!user) throw new AppError('unauthorized', authMessages.invalid);
      if (!user.account_confirmed || user.role !== 'Admin') throw new AppError('forbidden', authMessages.forbidden);
      // Staff: the subscription never restricts an Admin.
      request.principal = { userId: user.uid, email: user.email, name: user.name, role: user.role, subsStatus: 2, subscriptionActive: true, verified: true };
    });
    board.addHook('onSend', async (_request, reply, payload) => {
      if (typeof payload !== 'string' || !String(reply.getHeader('content-type') ?? '').includes('text/html')) return payload;
      return payload.replace(/<link[^>]+href="https?:\/\/[^"]*"[^>]*>/g, '');
    });
    const adapter = new FastifyAdapter();
    adapter.setBasePath(QUEUES_URL);
    createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q, { readOnlyMode: false })), serverAdapter: adapter, options: { uiConfig: { boardTitle: 'Projector queues' } } });
    await board.register(adapter.registerPlugin() as never, { prefix: QUEUES_PATH });
  });
  app.addHook('onClose', async () => {
    await Promise.all(queues.map((q) => q.close().catch(() => undefined)));
    await endRedisClient(connection);
  });
}
