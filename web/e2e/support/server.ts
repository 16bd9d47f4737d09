import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '@oj/infra/config';
import type { Database } from '@oj/infra/db/database';
import { createPGliteDatabase, createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { buildApp } from '@oj/services/app/app';
import { createRuntime, type Runtime } from '@oj/services/platform/runtime';
import { startBackgroundWorkers } from '@oj/services/platform/workers';

/**
 * The real product for a browser test, in this process: runtime, background workers (mail outbox,
 * projector) and the gateway serving the built console (run `npm run build:web` first). Each server has
 * its own temporary DATA_DIR (mail lands there as .eml files) and its own database.
 */
export interface Mail {
  file: string;
  to: string;
  subject: string;
  /** Decoded text of every text part (plain and HTML). */
  text: string;
  links: string[];
}

export interface E2eServer {
  baseUrl: string;
  dataDir: string;
  app: FastifyInstance;
  runtime: Runtime;
  /** Every mail written so far, oldest first. */
  mails(): Mail[];
  /** The newest mail (to `to` when given, and matching `subject` when given), waiting for the outbox worker to write it. */
  waitForMail(filter?: { to?: string; subject?: RegExp; after?: number }, timeoutMs?: number): Promise<Mail>;
  /** The first link of the newest matching mail whose path starts with `pathPrefix` (e.g. '/users/account-verify'). */
  waitForLink(pathPrefix: string, filter?: { to?: string; after?: number }, timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

export interface StartOptions {
  /** 'postgres' (default): a fresh database on the test server; 'pglite': in memory. */
  database?: 'postgres' | 'pglite';
  env?: Record<string, string>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export async function startServer(options: StartOptions = {}): Promise<E2eServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'oj-e2e-'));
  // The port is chosen first because PUBLIC_URL (the links in mails) must name it.
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    PUBLIC_URL: baseUrl,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_AUTH_PER_MINUTE: '1000',
    // The subscription lifecycle applies (trial, expiry, lock-out); without a key the deployment is
    // self-hosted and nobody is ever locked out. No test using this default calls Stripe.
    STRIPE_SECRET_KEY: 'sk_test_lifecycle_enforced',
    ...options.env,
  });
  let testDb: TestDatabase | null = null;
  let database: Database;
  if (options.database === 'pglite') database = await createPGliteDatabase();
  else database = testDb = await createTestDatabase('e2e');
  const runtime = await createRuntime(config, { database });
  await startBackgroundWorkers(runtime, { projector: true, mail: true });
  // The browser tests check what is sent: compressed whenever the browser takes it (the busy rule has its
  // own test in services/src/app/plugins/answer-compression.test.ts).
  const app = await buildApp(runtime.deps, { serveWeb: true, logger: false, answerCompression: { busy: () => false } });
  await app.listen({ host: '127.0.0.1', port });
  // As `npm start`: the API answers once the in-process projector's start is done (startup-gate.ts).
  await runtime.deps.startup?.opened;

  const mailDir = join(dataDir, 'mail');
  const mails = (): Mail[] => {
    if (!existsSync(mailDir)) return [];
    return readdirSync(mailDir)
      .filter((f) => f.endsWith('.eml'))
      .map((f) => join(mailDir, f))
      .map((file) => ({ file, mtime: statSync(file).mtimeMs }))
      .sort((a, b) => a.mtime - b.mtime || a.file.localeCompare(b.file))
      .map(({ file }) => parseEml(file));
  };

  const waitForMail: E2eServer['waitForMail'] = async (filter = {}, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = mails()
        .filter((m, i) => (filter.to ? m.to.toLowerCase().includes(filter.to.toLowerCase()) : true) && (filter.subject ? filter.subject.test(m.subject) : true) && i >= (filter.after ?? 0))
        .at(-1);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no mail ${JSON.stringify({ ...filter, subject: filter.subject?.source })} in ${mailDir} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  return {
    baseUrl,
    dataDir,
    app,
    runtime,
    mails,
    waitForMail,
    async waitForLink(pathPrefix, filter = {}, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const all = mails().filter((m, i) => (filter.to ? m.to.toLowerCase().includes(filter.to.toLowerCase()) : true) && i >= (filter.after ?? 0));
        for (const m of all.reverse()) {
          const link = m.links.find((l) => new URL(l).pathname.startsWith(pathPrefix));
          if (link) return link;
        }
        if (Date.now() > deadline) throw new Error(`no mail with a ${pathPrefix} link in ${mailDir} after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async close() {
      await app.close();
      await runtime.close();
      if (testDb) await testDb.drop();
      else await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// A small .eml reader: headers, multipart bodies, quoted-printable and base64 parts.

function decodeQuotedPrintable(s: string): string {
  const bytes: number[] = [];
  const text = s.replace(/=\r?\n/g, '');
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '=' && /^[0-9A-F]{2}$/i.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(c, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function splitHeaders(raw: string): { headers: Map<string, string>; body: string } {
  const idx = raw.search(/\r?\n\r?\n/);
  const head = idx < 0 ? raw : raw.slice(0, idx);
  const body = idx < 0 ? '' : raw.slice(idx).replace(/^\r?\n\r?\n/, '');
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  return { headers, body };
}

function decodeMimeWords(s: string): string {
  return s.replace(/=\?([^?]+)\?([BQ])\?([^?]*)\?=/gi, (_m, _cs: string, enc: string, data: string) =>
    enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decodeQuotedPrintable(data.replace(/_/g, ' ')),
  );
}

function partTexts(raw: string): string[] {
  const { headers, body } = splitHeaders(raw);
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    return body
      .split(`--${boundary}`)
      .slice(1)
      .filter((p) => !p.startsWith('--'))
      .flatMap((p) => partTexts(p.replace(/^\r?\n/, '')));
  }
  if (!/^text\//i.test(type)) return [];
  const enc = (headers.get('content-transfer-encoding') ?? '').toLowerCase();
  if (enc === 'quoted-printable') return [decodeQuotedPrintable(body)];
  if (enc === 'base64') return [Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')];
  return [body];
}

export function parseEml(file: string): Mail {
  const raw = readFileSync(file, 'utf8');
  const { headers } = splitHeaders(raw);
  const text = partTexts(raw).join('\n');
  const links = Array.from(new Set(Array.from(text.matchAll(/https?:\/\/[^\s"'<>)]+/g), (m) => m[0].replace(/&amp;/g, '&'))));
  return { file, to: decodeMimeWords(headers.get('to') ?? ''), subject: decodeMimeWords(headers.get('subject') ?? ''), text, links };
}
