import type { FastifyInstance } from 'fastify';
import { consoleBuildOfSrc, errorBodyOf } from '@oj/contracts/common';
import fastifyStatic from '@fastify/static';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_PREFIX } from '../api-prefix.ts';
import { routeNotFoundMessage } from './error-handler.ts';

export const WEB_DIST = fileURLToPath(new URL('../../../../web/dist/', import.meta.url));

/**
 * The console build served from `root`: its index.html's entry script (`index-3f2a9c.js`, named by the
 * hash of what it contains), or null when none is built. Read again when index.html changes (a build
 * published while the gateway runs), at most once a second. A tab compares it with its own entry script
 * and, when they differ, offers to reload into the build now served (QA 73: a tab left open across an
 * upgrade kept showing the old release's figures and code).
 */
export function consoleBuildOf(root: string = WEB_DIST): () => string | null {
  let cached: { checkedAt: number; mtimeMs: number; build: string | null } | null = null;
  return () => {
    const now = Date.now();
    if (cached && now - cached.checkedAt < 1000) return cached.build;
    try {
      const file = join(root, 'index.html');
      const { mtimeMs } = statSync(file);
      if (cached?.mtimeMs !== mtimeMs) {
        const src = /<script[^>]*type="module"[^>]*src="([^"]*)"/.exec(readFileSync(file, 'utf8'))?.[1];
        cached = { checkedAt: now, mtimeMs, build: src ? consoleBuildOfSrc(src) : null };
      } else cached.checkedAt = now;
    } catch {
      cached = { checkedAt: now, mtimeMs: -1, build: null };
    }
    return cached.build;
  };
}

/**
 * Serves the built console from the gateway's port. A path with a file name (`/assets/index-3f2a.js`,
 * `/favicon.svg`) is that file, read when asked for: a build published into web/dist while the gateway
 * runs is served at once (the file list is not fixed at start-up, which left the console blank after an
 * in-place build: its new index.html named scripts the gateway answered with index.html). A missing file
 * is a 404, never index.html, so a browser never runs HTML as a script. Any other GET that is not an API
 * path answers index.html, so the console's client-side routes (/trades/open, /users/account-verify...)
 * load directly from a link in a mail.
 */
export async function registerWebConsole(app: FastifyInstance, root: string = WEB_DIST): Promise<void> {
  if (!existsSync(join(root, 'index.html'))) {
    app.log.warn(`console not built (${join(root, 'index.html')} missing): run \`npm run build:web\``);
    return;
  }
  // wildcard: false, for the index and the catch-all below; files are sent by the catch-all.
  await app.register(fastifyStatic, { root, wildcard: false, index: ['index.html'], maxAge: '1h', immutable: false });
  // A catch-all GET route rather than a second not-found handler: the error handler owns that one.
  app.get('/*', (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (path.startsWith(API_PREFIX) || path === '/metrics') {
      return reply.status(404).send(errorBodyOf(routeNotFoundMessage(request.method, request.url)));
    }
    // As the browser sent it (the build's file names are plain ASCII): `send` (under sendFile) refuses a
    // path that climbs out of the root, and answers a missing file with the app's not-found handler.
    if (/\.[A-Za-z0-9]+$/.test(path)) return reply.sendFile(path.slice(1));
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  });
}
