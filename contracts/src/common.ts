import { z } from 'zod';
import { parseIsoDate } from './business-date.ts';

/**
 * Every error the API answers with has this body: never a stack trace. `detail` is the list of field
 * issues of a 422 that has them, and otherwise the message again, as text: the spec's clients read the
 * error's text from `detail` on some screens (the admin's user search, the trades of a day) and from
 * `message` on others.
 */
export const errorBody = z.object({
  message: z.string(),
  detail: z.unknown(),
  resolution: z.string().optional(),
});
export type ErrorBody = z.infer<typeof errorBody>;

/** An error's body: `detail` as given, or the message as text. */
export const errorBodyOf = (message: string, options: { detail?: unknown; resolution?: string } = {}): ErrorBody => ({
  message,
  detail: options.detail ?? message,
  ...(options.resolution !== undefined ? { resolution: options.resolution } : {}),
});

/** What the gateway answers about a request body as a whole, before any field is read. */
export const REQUEST_BODY_MESSAGES = {
  notObject: 'The request body must be a JSON object.',
  mediaType: 'This route takes a JSON body: send it with Content-Type: application/json.',
  forbiddenKey: (key: '__proto__' | 'constructor') => `A JSON body cannot contain a key named "${key}"${key === 'constructor' ? ' holding a "prototype"' : ''}.`,
} as const;

// ---------------------------------------------------------------------------------------------------
// Text hygiene, for every string the API takes (path, query string and body alike)

/**
 * Text PostgreSQL cannot store as written: NUL (refused in text; the query fails) and unpaired UTF-16
 * surrogates (no UTF-8 form; the driver would quietly store U+FFFD instead). Neither has a meaning in any
 * field of this product. Schemas refuse it where they name a field (trades); the gateway refuses it
 * once more for every route, so no route can forget.
 */
export const UNSTORABLE_TEXT_MESSAGE = 'Text cannot contain NUL characters or unpaired surrogates.';
// eslint-disable-next-line no-control-regex -- NUL is exactly what this refuses
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const isStorableText = (s: string): boolean => !UNSTORABLE.test(s);

/** The path (`['notes']`) of the first string (or object key) that cannot be stored, or null. */
export function findUnstorableText(value: unknown): string[] | null {
  return findText(value, (s) => !isStorableText(s));
}

/**
 * Direction embeddings and overrides (U+202A to U+202E) and isolates (U+2066 to U+2069) reorder how the
 * text after them is shown: in text other people read (support reading a contact message, an account name
 * or a note in an audit) they make it read otherwise than it holds (QA: "evil" after a right-to-left
 * override showed as "live"). Nobody types them to write Arabic or Hebrew (the browser orders that text
 * itself; the direction marks U+200E and U+200F stay allowed). Passwords are left out: they are never
 * shown, and one set before would lock its owner out.
 */
export const DIRECTION_CONTROL_MESSAGE = 'Text cannot contain direction override characters (U+202A to U+202E, U+2066 to U+2069): they make it read otherwise than it holds.';
const DIRECTION_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/;
export function findDirectionControls(value: unknown): string[] | null {
  return findText(value, (s) => DIRECTION_CONTROLS.test(s), (key) => /password/i.test(key));
}

/** The path of the first string (or object key) `bad` holds for, skipping the fields `skip` names. */
function findText(value: unknown, bad: (s: string) => boolean, skip: (key: string) => boolean = () => false, path: readonly string[] = [], depth = 0): string[] | null {
  if (typeof value === 'string') return bad(value) ? [...path] : null;
  // Depth is bounded by the body size limit; 64 keeps a hostile, deeply nested body cheap to walk.
  if (value === null || typeof value !== 'object' || depth > 64 || ArrayBuffer.isView(value)) return null;
  for (const [key, item] of Object.entries(value)) {
    if (bad(key)) return [...path, key];
    if (skip(key)) continue;
    const found = findText(item, bad, skip, [...path, key], depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * Characters a person cannot see or that reorder what they see: format controls (zero-width space and
 * joiners, direction marks and overrides, the byte-order mark), line and paragraph separators, and
 * control characters. In an identifier (an e-mail address) they make a look-alike of another one.
 */
export const INVISIBLE_CHARACTERS = /[\p{Cf}\p{Cc}\p{Zl}\p{Zp}]/u;

/** A New York business date, `YYYY-MM-DD`. */
export const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'Date must be in YYYY-MM-DD format.');

/**
 * A date a request names (a filter, an as-of): the shape and a real calendar date. 2026-02-30 or
 * 2026-13-45 would otherwise reach SQL as an invalid date (a 500) or date arithmetic as NaN (QA: the
 * audit's as-of answered 500). Stored and answered dates keep `isoDate`: they were checked on the way in.
 */
export const calendarDate = z
  .string()
  // A date not in the format is said once: the calendar check would add "Date is invalid." (QA).
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'Date must be in YYYY-MM-DD format.', abort: true })
  .refine((v) => parseIsoDate(v) !== null, { message: 'Date is invalid.' });

export const uid = z.string().min(1).max(64);

/**
 * A whole-number query parameter, named in its messages (QA: `page=abc` answered "expected number,
 * received NaN", `page=1e20` "expected int to be <=9007199254740991"). A query string gives text, a
 * repeated parameter a list; a caller building the query in code may give the number itself.
 */
export function queryWholeNumber(name: string, min: number, max: number) {
  const range = `${name} must be a whole number from ${min} to ${max}.`;
  return z
    .union([z.string(), z.number()], { error: (issue) => (Array.isArray(issue.input) ? `${name} must be given once.` : range) })
    .transform((value, ctx) => {
      const n = typeof value === 'number' ? value : /^\d{1,16}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
      if (Number.isInteger(n) && n >= min && n <= max) return n;
      ctx.addIssue({ code: 'custom', message: range });
      return z.NEVER;
    });
}

/** Far past any journal's last page at the largest size (100 trades a page). */
export const PAGE_MAX = 1_000_000;
export const PAGE_SIZE_MAX = 100;
export const paginationQuery = z.object({
  page: queryWholeNumber('page', 1, PAGE_MAX).default(1),
  size: queryWholeNumber('size', 1, PAGE_SIZE_MAX).default(10),
});

export function paginated<T extends z.ZodTypeAny>(item: T) {
  return z.object({
    items: z.array(item),
    page: z.number().int(),
    pages: z.number().int(),
    size: z.number().int(),
    total: z.number().int(),
  });
}

/**
 * The console build a gateway serves, named in the header of every answer: its entry script's hashed
 * file name. The gateway reads it from index.html, a tab from its own page (web/src/lib/console-build.ts).
 */
export const CONSOLE_BUILD_HEADER = 'x-oj-console';
/** The entry script's name (`index-Js2OhMe1.js`) in a script's `src`, or null for any other script. */
export const consoleBuildOfSrc = (src: string): string | null => /\/assets\/(index-[^/"]+\.js)$/.exec(src)?.[1] ?? null;

/**
 * What a journal still does after it starts before its read models answer for the whole log: the
 * projector that runs in the process (embedded mode) rebuilds read models whose formulas changed with
 * the release, then brings them up to the log's head. Until then every API answer but health and
 * readiness is a 503 with `STARTUP_RESOLUTION` and this progress as its detail (the console shows it),
 * never figures from read models that are behind or built by other formulas.
 */
export const startupProgress = z.object({
  phase: z.enum(['preparing', 'rebuilding', 'catching-up']),
  /** The read model being rebuilt (`rebuilding`). */
  projection: z.string().optional(),
  /** Events done of `total` in this phase (`total` null: not counted). */
  done: z.number().int(),
  total: z.number().int().nullable(),
  /** The last attempt failed (the server's log says why) and the projector tries again. */
  retrying: z.boolean(),
});
export type StartupProgress = z.infer<typeof startupProgress>;
export const STARTUP_RESOLUTION = 'Options Journal answers once it is up to date; try again in a moment.';

/** The share of the phase done in whole percent (99 at most until it is over), or null while not counted. */
export function startupPercent(p: StartupProgress): number | null {
  if (p.total === null || p.phase === 'preparing') return null;
  if (p.total === 0) return 100;
  return Math.min(99, Math.floor((p.done * 100) / p.total));
}

/** The 503's message while the journal starts: what it does, and how far it got. */
export function startupMessage(p: StartupProgress): string {
  const count = (n: number) => n.toLocaleString('en-US');
  const percent = startupPercent(p);
  // Every event read, the rebuild's last steps run (QA 78: "99% (72,000 of 72,325 events)" for 6 s looked stuck).
  const progress =
    percent === null || !p.total ? '' : p.done >= p.total && p.phase === 'rebuilding' ? `: all ${count(p.total)} events read, finishing` : `: ${percent}% (${count(p.done)} of ${count(p.total)} events)`;
  const doing =
    p.phase === 'preparing'
      ? 'Options Journal is starting'
      : p.phase === 'rebuilding'
        ? `Options Journal is recomputing its figures for this release${progress}`
        : `Options Journal is bringing its figures up to date with your records${progress}`;
  return `${doing}.${p.retrying ? ' The last attempt failed and it is trying again; the server log says why.' : ''}`;
}

export const healthResponse = z.object({ status: z.literal('ok'), uptime_s: z.number() });
export const readyResponse = z.object({
  status: z.enum(['ready', 'degraded', 'starting']),
  /** While `starting`: what the start still does (see `startupProgress`). */
  startup: startupProgress.optional(),
  dependencies: z.record(z.string(), z.object({ up: z.boolean(), detail: z.string().optional() })),
  down: z.array(z.string()),
});
