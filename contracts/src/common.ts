import { z } from 'zod';

/** Every error the API answers with has this body: never a stack trace. */
export const errorBody = z.object({
  message: z.string(),
  detail: z.unknown().optional(),
  resolution: z.string().optional(),
});
export type ErrorBody = z.infer<typeof errorBody>;

// ---------------------------------------------------------------------------------------------------
// Text hygiene, for every string the API takes (path, query string and body alike)

/**
 * NUL cannot be stored in PostgreSQL text (a query with one fails), and has no meaning in any field of
 * this product. The gateway refuses it once, before any route's schema runs, so no route can forget.
 */
export const NUL_TEXT_MESSAGE = 'Text cannot contain NUL characters.';

/** The path (`['body', 'notes']`) of the first string holding NUL in a parsed request part, or null. */
export function findNulText(value: unknown, path: readonly string[] = [], depth = 0): string[] | null {
  if (typeof value === 'string') return value.includes('\u0000') ? [...path] : null;
  // Depth is bounded by the body size limit; 64 keeps a hostile, deeply nested body cheap to walk.
  if (value === null || typeof value !== 'object' || depth > 64 || ArrayBuffer.isView(value)) return null;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return [...path, key];
    const found = findNulText(item, [...path, key], depth + 1);
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

export const uid = z.string().min(1).max(64);

export const paginationQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  size: z.coerce.number().int().min(1).max(100).default(10),
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

export const healthResponse = z.object({ status: z.literal('ok'), uptime_s: z.number() });
export const readyResponse = z.object({
  status: z.enum(['ready', 'degraded']),
  dependencies: z.record(z.string(), z.object({ up: z.boolean(), detail: z.string().optional() })),
  down: z.array(z.string()),
});
