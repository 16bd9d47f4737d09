import { z } from 'zod';

/** Every error the API answers with has this body: never a stack trace. */
export const errorBody = z.object({
  message: z.string(),
  detail: z.unknown().optional(),
  resolution: z.string().optional(),
});
export type ErrorBody = z.infer<typeof errorBody>;

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
