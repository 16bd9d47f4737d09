import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { consoleBuildOfSrc, errorBodyOf } from '@oj/contracts/common';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_PREFIX } from '../api-prefix.ts';
import { ConsoleFiles, encodingFor, matchesEtag, OutsideRootError, type ConsoleFile } from './console-files.ts';
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

/** Hashed by the build (Vite names every file under assets/ by what it contains): never changes. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Serves the built console from the gateway's port, from memory (console-files.ts). A path with a file
 * name (`/assets/index-3f2a.js`, `/favicon.svg`) is that file, as it is on disk now: a build published
 * into web/dist while the gateway runs is served at once (the file list is not fixed at start-up, which
 * left the console blank after an in-place build: its new index.html named scripts the gateway answered
 * with index.html). A missing file is a 404, never index.html, so a browser never runs HTML as a script.
 * Any other GET that is not an API path answers index.html, so the console's client-side routes
 * (/trades/open, /users/account-verify...) load directly from a link in a mail. The build's hashed files
 * are cached by the browser for good; index.html is asked again each time (ETag, 304 when unchanged).
 */
export async function registerWebConsole(app: FastifyInstance, root: string = WEB_DIST): Promise<ConsoleFiles | null> {
  if (!existsSync(join(root, 'index.html'))) {
    app.log.warn(`console not built (${join(root, 'index.html')} missing): run \`npm run build:web\``);
    return null;
  }
  const files = new ConsoleFiles(root);

  const send = (request: FastifyRequest, reply: FastifyReply, file: ConsoleFile, cacheControl: string) => {
    reply.header('cache-control', cacheControl).header('etag', file.etag);
    if (file.compressible) reply.header('vary', 'accept-encoding');
    if (matchesEtag(request.headers['if-none-match'], file.etag)) return reply.status(304).send();
    const encoding = encodingFor(request.headers['accept-encoding'], file);
    reply.type(file.type);
    if (encoding) reply.header('content-encoding', encoding);
    return reply.send(encoding ? file.encoded[encoding] : file.body);
  };
  const index = (request: FastifyRequest, reply: FastifyReply) => {
    const file = files.get('/index.html');
    if (!file) return reply.callNotFound();
    return send(request, reply, file, 'no-cache');
  };

  app.get('/', index);
  // A catch-all GET route rather than a second not-found handler: the error handler owns that one.
  app.get('/*', (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (path.startsWith(API_PREFIX) || path === '/metrics') {
      return reply.status(404).send(errorBodyOf(routeNotFoundMessage(request.method, request.url)));
    }
    if (!/\.[A-Za-z0-9]+$/.test(path)) return index(request, reply);
    let file: ConsoleFile | null;
    try {
      file = files.get(path);
    } catch (error) {
      if (error instanceof OutsideRootError) return reply.callNotFound();
      throw error;
    }
    if (!file) return reply.callNotFound();
    return send(request, reply, file, path.startsWith('/assets/') ? IMMUTABLE : 'public, max-age=3600');
  });
  return files;
}
