import { z } from 'zod';
import { isoDate } from './common.ts';

/**
 * The envelope every event in the log carries. The metadata answers the auditor's questions
 * (who, on whose behalf, from which request and command, when by the server clock, and on which
 * New York business date) without looking anywhere else.
 */
export const actorRole = z.enum(['trader', 'support', 'operator', 'system']);
export type ActorRole = z.infer<typeof actorRole>;

export const eventMetadata = z.object({
  userId: z.string(),
  actor: z.object({ id: z.string(), role: actorRole }),
  correlationId: z.string(),
  causationId: z.string().nullable(),
  idempotencyKey: z.string().nullable(),
  /** Server clock, ISO-8601 UTC. */
  recordedAt: z.string(),
  /** America/New_York calendar date on which the command was decided. */
  businessDate: isoDate,
  /** The command that produced the event, e.g. `CloseTrade`. */
  command: z.string().optional(),
});
export type EventMetadata = z.infer<typeof eventMetadata>;

/** An event as it travels to and from the store. `data` is validated per type by the owning module. */
export const eventEnvelope = z.object({
  id: z.string(),
  type: z.string(),
  schemaVersion: z.number().int().min(1),
  data: z.unknown(),
  metadata: eventMetadata,
});
export type EventEnvelope = z.infer<typeof eventEnvelope>;

/**
 * Upcasters turn an old schema version of an event into the next one, on read. The stored event
 * is never rewritten: the log stays what was decided at the time.
 * Keyed by event type, then by the version they upcast *from*.
 */
export type Upcaster = (data: unknown) => unknown;
export type UpcasterRegistry = Record<string, Record<number, Upcaster>>;

export function upcast<E extends { type: string; schemaVersion: number; data: unknown }>(
  registry: UpcasterRegistry,
  event: E,
  latest: (type: string) => number,
): E {
  const target = latest(event.type);
  // Already the latest version: the event itself (this runs for every event a rebuild folds).
  if (event.schemaVersion >= target) return event;
  const steps = registry[event.type];
  let { data, schemaVersion } = event;
  while (schemaVersion < target) {
    const step = steps?.[schemaVersion];
    if (!step) throw new Error(`No upcaster for ${event.type} v${schemaVersion}`);
    data = step(data);
    schemaVersion += 1;
  }
  return { ...event, data, schemaVersion };
}
