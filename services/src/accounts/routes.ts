import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { errorBody } from '@oj/contracts/common';
import {
  account,
  accountImageRequest,
  accountImageResponse,
  accountList,
  accountParams,
  addAccountRequest,
  updateAccountRequest,
  updateDefaultAccountRequest,
} from '@oj/contracts/accounts';
import { AppError } from '../app/errors.ts';
import { principalOf } from '../app/principal.ts';
import { addAccount, setAccountImage, setDefaultAccount, updateAccount, type AccountsContext } from './commands.ts';
import { UPLOAD_FILE, uploadsDir } from './images.ts';
import { listAccountsOfUser } from './queries.ts';

const errors = { 401: errorBody, 403: errorBody, 404: errorBody, 409: errorBody, 413: errorBody, 415: errorBody, 422: errorBody };
const security = [{ bearer: [] }];

export const accountRoutes: FastifyPluginAsyncZod = async (app) => {
  const ctx: AccountsContext = { db: app.deps.database.db, clock: app.deps.clock, dataDir: app.deps.config.DATA_DIR };
  const guard = { onRequest: app.requireVerifiedUser };

  app.get('/accounts/', { ...guard, schema: { tags: ['accounts'], security, response: { 200: accountList, ...errors } } }, async (request) =>
    listAccountsOfUser(ctx.db, principalOf(request).userId),
  );

  app.post('/accounts/add-account', { ...guard, schema: { tags: ['accounts'], security, body: addAccountRequest, response: { 201: account, ...errors } } }, async (request, reply) =>
    reply.status(201).send(await addAccount(ctx, principalOf(request), request.body)),
  );

  app.patch(
    '/accounts/update/:uid',
    { ...guard, schema: { tags: ['accounts'], security, params: accountParams, body: updateAccountRequest, response: { 200: account, ...errors } } },
    async (request) => updateAccount(ctx, principalOf(request), request.params.uid, request.body),
  );

  app.patch(
    '/accounts/update-default-account',
    { ...guard, schema: { tags: ['accounts'], security, body: updateDefaultAccountRequest, response: { 200: account, ...errors } } },
    async (request) => setDefaultAccount(ctx, principalOf(request), request.body),
  );

  app.post(
    '/accounts/account-image/:uid',
    { ...guard, schema: { tags: ['accounts'], security, params: accountParams, body: accountImageRequest, response: { 200: accountImageResponse, ...errors } } },
    async (request) => setAccountImage(ctx, principalOf(request), request.params.uid, request.body.image),
  );

  // Public: <img> tags cannot send a bearer token. Names are random and unguessable.
  app.get('/uploads/:file', { schema: { tags: ['accounts'], params: z.object({ file: z.string() }) } }, async (request, reply) => {
    const { file } = request.params;
    if (!UPLOAD_FILE.test(file)) throw new AppError('not_found', 'Image not found.');
    const path = join(uploadsDir(ctx.dataDir), file);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) throw new AppError('not_found', 'Image not found.');
    return reply
      .type('image/jpeg')
      .header('content-length', info.size)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('cross-origin-resource-policy', 'cross-origin')
      .send(createReadStream(path));
  });
};
