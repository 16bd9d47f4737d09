import type { FastifyInstance } from 'fastify';
import { errorBodyOf } from '@oj/contracts/common';
import fastifyStatic from '@fastify/static';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { API_PREFIX } from '../api-prefix.ts';

export const WEB_DIST = fileURLToPath(new URL('../../../../web/dist/', import.meta.url));

/**
 * Serves the built console from the gateway's port. Any GET that is not an API path and not a file
 * answers index.html, so the console's client-side routes (/trades/open, /users/account-verify...)
 * load directly from a link in a mail.
 */
export async function registerWebConsole(app: FastifyInstance): Promise<void> {
  if (!existsSync(`${WEB_DIST}index.html`)) {
    app.log.warn(`console not built (${WEB_DIST}index.html missing): run \`npm run build:web\``);
    return;
  }
  await app.register(fastifyStatic, { root: WEB_DIST, wildcard: false, index: ['index.html'], maxAge: '1h', immutable: false });
  // A catch-all GET route rather than a second not-found handler: the error handler owns that one.
  app.get('/*', (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (!path.startsWith(API_PREFIX) && path !== '/metrics') {
      return reply.header('cache-control', 'no-cache').sendFile('index.html');
    }
    return reply.status(404).send(errorBodyOf(`Route ${request.method} ${path} not found.`));
  });
}
