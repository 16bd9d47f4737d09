import { z } from 'zod';

/** `GET /api/v1/operations/projections`: read models, their versions, checkpoints, rebuilds and lag (Admin). */
export const projectionVersionStatus = z.object({
  version: z.number().int(),
  codeVersion: z.number().int(),
  status: z.enum(['live', 'building', 'retired']),
  lanes: z.number().int(),
  tables: z.record(z.string(), z.string()),
  counts: z.record(z.string(), z.number()),
  createdAt: z.string(),
  liveSince: z.string().nullable(),
  retiredAt: z.string().nullable(),
  checkpoints: z.array(z.object({ lane: z.number().int(), position: z.string() })),
});

export const projectionRebuildStatus = z.object({
  version: z.number().int(),
  checkpoint: z.string(),
  eventsDone: z.number(),
  eventsTotal: z.number().nullable(),
  startedAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().nullable(),
});

export const projectionLaneLag = z.object({
  version: z.number().int(),
  lane: z.number().int(),
  checkpoint: z.string(),
  behindEvents: z.number(),
  behindSeconds: z.number(),
  capped: z.boolean(),
});

export const projectionsStatusResponse = z.object({
  lanes: z.number().int(),
  transport: z.enum(['bullmq', 'in-process']),
  projections: z.array(
    z.object({
      name: z.string(),
      codeVersion: z.number().int().nullable(),
      warning: z.string().optional(),
      versions: z.array(projectionVersionStatus),
      rebuilds: z.array(projectionRebuildStatus),
      lag: z.array(projectionLaneLag),
    }),
  ),
});
export type ProjectionsStatusResponse = z.infer<typeof projectionsStatusResponse>;
