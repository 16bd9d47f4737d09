import { z } from 'zod';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { isIP } from 'node:net';

/**
 * Configuration, parsed once at start-up. A bad value stops the process with a message naming the
 * variable. Unset service URLs select the embedded default for that piece: PGlite for Postgres, the
 * in-process projector for Redis, the PostgreSQL event store for EventStoreDB, `.eml` files for SMTP.
 */
const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .refine((v) => v === undefined || protocols.some((p) => v.startsWith(`${p}:`)), {
      message: `must be a URL starting with ${protocols.map((p) => `${p}://`).join(' or ')}`,
    });

const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATA_DIR: z.string().default('./.data'),
  DATABASE_URL: optionalUrl(['postgres', 'postgresql']),
  /**
   * `auto`: statements run often become prepared statements on each connection (infra/src/db/auto-prepare.ts).
   * `off` behind a connection pooler in transaction mode that does not carry prepared statements.
   */
  DATABASE_PREPARED_STATEMENTS: z.enum(['auto', 'off']).default('auto'),
  REDIS_URL: optionalUrl(['redis', 'rediss']),
  EVENTSTORE_URL: optionalUrl(['esdb', 'esdb+discover', 'kurrentdb', 'kurrentdb+discover', 'kdb']),
  SMTP_URL: optionalUrl(['smtp', 'smtps']),
  MAIL_FROM: z.string().default('Options Journal <no-reply@options-journal.local>'),
  PUBLIC_URL: z.string().url().optional(),
  WEB_ORIGIN: z.string().optional(),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(30).default(900),
  REFRESH_TOKEN_TTL_DAYS: z.coerce.number().int().min(1).default(30),
  PROJECTOR_LANES: z.coerce.number().int().min(1).max(64).default(4),
  /**
   * `npm run gateway` only: HTTP processes behind the one port (Node's cluster module). More than one
   * needs REDIS_URL, where the processes share their rate-limit counters.
   */
  GATEWAY_PROCESSES: z.coerce.number().int().min(1).max(64).default(1),
  /**
   * Load shedding (services/src/app/plugins/load-shedding.ts): API requests are refused with 503 while the
   * event loop's mean delay has stayed above this many ms for a second (0: never for this reason). Unset:
   * 500 for `npm run gateway`; 0 for `npm start`, whose event loop also runs the projector.
   */
  GATEWAY_MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().int().min(0).optional(),
  /** Load shedding: API requests are refused with 503 while this many are being answered (0: no limit). */
  GATEWAY_MAX_IN_FLIGHT: z.coerce.number().int().min(0).default(256),
  /** BullMQ key prefix of the projector's lanes and rebuild jobs: projectors and the projections CLI of one deployment share it. */
  BULLMQ_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, _ or - (BullMQ keys are <prefix>:<queue>:...)')
    .default('oj'),
  /** Lanes this projector process works (comma list, e.g. `0,1`); unset: all. Several processes split the lanes. */
  PROJECTOR_WORK_LANES: z
    .string()
    .optional()
    .transform((v, ctx): number[] | undefined => {
      if (v === undefined || v.trim() === '') return undefined;
      const parts = v.split(',').map((x) => x.trim());
      if (parts.some((x) => !/^\d+$/.test(x))) {
        ctx.addIssue({ code: 'custom', message: `must be a comma-separated list of lane numbers (e.g. 0,1), got "${v}"` });
        return z.NEVER;
      }
      return [...new Set(parts.map(Number))].sort((x, y) => x - y);
    }),
  /**
   * Bearer token for `/metrics`, the gateway's and each projector's (services/src/platform/metrics-access.ts).
   * Unset: metrics are answered to this host only (a loopback peer no proxy forwarded); set: to a request that sends
   * `Authorization: Bearer <token>`, from anywhere, and to no other.
   */
  METRICS_TOKEN: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(16, 'must be at least 16 characters').regex(/^\S+$/, 'must not contain spaces').optional()),
  /**
   * `npm run projector` only: the port its own `/metrics` (lane batches, failures, stuck lanes, memory),
   * `/api/v1/health` and `/api/v1/ready` are answered on, at HOST; unset or empty: none (0: a port the OS
   * chooses, logged).
   */
  PROJECTOR_METRICS_PORT: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(0).max(65535).optional()),
  /**
   * How long SIGINT/SIGTERM may take to close the process (services/src/platform/shutdown.ts); past it the
   * process exits 1 naming what had not closed (a BullMQ close waits for as long as Redis is down).
   */
  SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().int().min(1).default(10),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  STRIPE_SECRET_KEY: z.string().optional(),
  STRIPE_PUBLISHABLE_KEY: z.string().optional(),
  STRIPE_PRICE_ID: z.string().optional(),
  STRIPE_WEBHOOK_SECRET: z.string().optional(),
  /** Where the Stripe SDK sends its requests (a local Stripe test server in tests); unset: api.stripe.com. */
  STRIPE_API_URL: optionalUrl(['http', 'https']),
  /**
   * Stored replay states for the audit (docs/audit.md, docs/operations.md): the projector process folds
   * heavy users' logs a chunk at a time so support's views start from there. `off` stores none (every
   * view replays from the first event).
   */
  AUDIT_REPLAY_STATES: z.enum(['on', 'off']).default('on'),
  /** How often the projector looks for users whose log grew by a chunk since their last stored state. */
  AUDIT_REPLAY_STATES_INTERVAL_SECONDS: z.coerce.number().int().min(1).default(60),
  /** Events per stored chunk: the most a view folds beyond the state it starts from, plus what arrived since the last run. */
  AUDIT_REPLAY_STATES_CHUNK_EVENTS: z.coerce.number().int().min(100).default(10_000),
  /** Users with fewer events get no stored state (their whole log replays in milliseconds). */
  AUDIT_REPLAY_STATES_MIN_EVENTS: z.coerce.number().int().min(0).default(20_000),
  /** Events folded per run over all users (a bound on each run's work; a user with more continues next run). */
  AUDIT_REPLAY_STATES_MAX_EVENTS_PER_RUN: z.coerce.number().int().min(1).default(500_000),
  /** How often the billing scheduler looks for ended grace periods and periods, and sends reminders. */
  BILLING_SCHEDULER_INTERVAL_SECONDS: z.coerce.number().int().min(1).default(900),
  /**
   * Which proxies may set X-Forwarded-For: unset/false (none), true (any: only behind a proxy that
   * overwrites it), or comma-separated addresses/CIDRs (or proxy-addr's names loopback, linklocal,
   * uniquelocal). Anything else made proxy-addr throw a TypeError at start-up. No hop count: Fastify 5
   * takes a number but trusts no proxy with it (it cannot check the immediate peer), so a count would
   * silently key rate limits on the proxy's address.
   */
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v, ctx): boolean | string[] => {
      const value = v?.trim() ?? '';
      if (value === '' || value === 'false') return false;
      if (value === 'true') return true;
      const parts = value.split(',').map((x) => x.trim()).filter(Boolean);
      if (parts.length && parts.every(isTrustedProxy)) return parts;
      ctx.addIssue({ code: 'custom', message: `must be true, false, or comma-separated IP addresses/CIDRs (got "${v}")` });
      return z.NEVER;
    }),
  /**
   * Requests one client address may make to each of login, sign-up, the verification links and the reset
   * requests per minute. 100 stops scripted guessing (a second's worth of tries, not thousands) while a
   * household or an office behind one address, or a test suite on one machine, is never refused.
   */
  RATE_LIMIT_AUTH_PER_MINUTE: z.coerce.number().int().min(1).default(100),
  /** Where contact-form messages are mailed (through the outbox); unset: they are only stored (Admin > Messages). */
  SUPPORT_EMAIL: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .refine((v) => v === undefined || /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/.test(v), { message: 'must be an e-mail address' }),
  /** Contact-form messages one user may send per hour. */
  RATE_LIMIT_CONTACT_PER_HOUR: z.coerce.number().int().min(1).default(20),
  /** Ticker logo URL template with {ticker} (https); unset: coloured initials only, no third-party request. */
  TICKER_LOGO_URL: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .refine((v) => v === undefined || (/^https:\/\/[^\s"'<>]+$/.test(v) && v.includes('{ticker}')), { message: 'must be an https:// URL containing {ticker}' }),
}).superRefine((c, ctx) => {
  if (c.GATEWAY_PROCESSES > 1 && !c.REDIS_URL) {
    ctx.addIssue({ code: 'custom', path: ['GATEWAY_PROCESSES'], message: 'more than one gateway process needs REDIS_URL: the processes share their rate-limit counters there (each alone would allow the limit again)' });
  }
  const outside = c.PROJECTOR_WORK_LANES?.filter((lane) => lane >= c.PROJECTOR_LANES);
  if (outside?.length) {
    ctx.addIssue({ code: 'custom', path: ['PROJECTOR_WORK_LANES'], message: `lane ${outside.join(', ')} does not exist: lanes are 0..${c.PROJECTOR_LANES - 1} (PROJECTOR_LANES=${c.PROJECTOR_LANES})` });
  }
});

/** An address, a CIDR or address/netmask, or one of proxy-addr's names: what proxy-addr compiles. */
function isTrustedProxy(part: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(part)) return true;
  const [address = '', range, ...rest] = part.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  if (range === undefined) return true;
  if (/^\d+$/.test(range)) return Number(range) <= (family === 4 ? 32 : 128);
  return family === 4 && isIP(range) === 4;
}

export type RawConfig = z.infer<typeof configSchema>;
export interface Config extends RawConfig {
  DATA_DIR: string;
  PUBLIC_URL: string;
  WEB_ORIGIN: string;
  JWT_SECRET: string;
  /** Which store backs each piece, for logs and `/ready`. */
  mode: { database: 'postgres' | 'pglite'; eventStore: 'postgres' | 'eventstoredb'; projector: 'bullmq' | 'in-process'; mail: 'smtp' | 'files'; billing: 'stripe' | 'self-hosted' };
}

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const raw = parsed.data;
  const dataDir = resolve(raw.DATA_DIR);
  const publicUrl = (raw.PUBLIC_URL ?? `http://localhost:${raw.PORT}`).replace(/\/$/, '');
  return {
    ...raw,
    DATA_DIR: dataDir,
    PUBLIC_URL: publicUrl,
    WEB_ORIGIN: raw.WEB_ORIGIN ?? new URL(publicUrl).origin,
    JWT_SECRET: raw.JWT_SECRET ?? embeddedSecret(dataDir, raw.NODE_ENV),
    mode: {
      database: raw.DATABASE_URL ? 'postgres' : 'pglite',
      eventStore: raw.EVENTSTORE_URL ? 'eventstoredb' : 'postgres',
      projector: raw.REDIS_URL ? 'bullmq' : 'in-process',
      mail: raw.SMTP_URL ? 'smtp' : 'files',
      // Without a Stripe key nobody can pay: a self-hosted journal gives every user Premium without end.
      billing: raw.STRIPE_SECRET_KEY ? 'stripe' : 'self-hosted',
    },
  };
}

/**
 * For process entry points: a bad value ends start-up with the message naming the variable (exit code
 * 2), not a stack trace.
 */
export function loadConfigOrExit(env: Record<string, string | undefined> = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    exitForConfigError(error);
  }
}

/**
 * How an entry point ends on a setting the operator must fix (a value that does not parse, a database
 * that is not there, a port taken): the message naming the variable on stderr, exit code 2.
 */
export function exitForConfigError(error: ConfigError): never {
  process.stderr.write(`${error.message}\n`);
  process.exit(2);
}

/** Runs an entry point's start-up: a ConfigError it throws ends the process as a bad setting does (exitForConfigError). */
export async function orExitForConfigError<T>(start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    if (error instanceof ConfigError) exitForConfigError(error);
    throw error;
  }
}

/**
 * A listen that failed for a reason of the configuration, as a ConfigError naming the variable (`PORT`,
 * `PROJECTOR_METRICS_PORT`); anything else as it was.
 */
export function listenError(error: unknown, host: string, port: number, variable: string): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') return new ConfigError(`${variable}: ${port} on ${host} is already in use by another process: stop it, or choose another ${variable}`);
  if (code === 'EACCES') return new ConfigError(`${variable}: ${port} on ${host} needs privileges this process does not have: choose a port above 1023`);
  if (code === 'EADDRNOTAVAIL') return new ConfigError(`HOST: ${host} is not an address of this machine: use 0.0.0.0 (all) or one of its addresses`);
  return error;
}

/** A DATA_DIR this process cannot create or write (read-only, not a directory, no permission): one line, not a stack. */
export function unusableDataDir(dataDir: string, error: unknown): unknown {
  const e = error as NodeJS.ErrnoException;
  const reasons: Record<string, string> = {
    EROFS: 'it is on a read-only file system',
    EACCES: 'this process may not write there',
    EPERM: 'this process may not write there',
    ENOTDIR: 'a part of its path is a file',
    EEXIST: 'it is a file',
    ENOSPC: 'the disk is full',
    // What a recursive mkdir says under a read-only mount.
    ENOENT: 'it cannot be created there',
  };
  const why = e?.code ? reasons[e.code] : undefined;
  if (!why) return error;
  return new ConfigError(`DATA_DIR: ${dataDir} cannot be used: ${why} (${e.code}). Give DATA_DIR a directory this process can create and write.`);
}

/**
 * Embedded mode needs no setup, so a signing secret is generated on first start and kept in the data
 * directory (later starts reuse it, so sessions survive restarts). Production must pass JWT_SECRET.
 */
function embeddedSecret(dataDir: string, env: RawConfig['NODE_ENV']): string {
  if (env === 'production') throw new ConfigError('Invalid configuration:\n  JWT_SECRET: required when NODE_ENV=production');
  const file = join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(48).toString('base64url');
  try {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, secret, { mode: 0o600 });
  } catch (error) {
    throw unusableDataDir(dataDir, error);
  }
  return secret;
}
