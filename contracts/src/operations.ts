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
  /** Set once the build is complete (bulk run and finishing step): it waits for a diff and a switch. */
  builtAt: z.string().nullable(),
  /** Set when the version was switched live. */
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
  /** The lane count the dispatcher routes with (recorded), else this process's PROJECTOR_LANES. */
  lanes: z.number().int(),
  /** This process's PROJECTOR_LANES, present only when it is not the dispatcher's count. */
  configuredLanes: z.number().int().optional(),
  transport: z.enum(['bullmq', 'in-process']),
  projections: z.array(
    z.object({
      name: z.string(),
      codeVersion: z.number().int().nullable(),
      warning: z.string().optional(),
      /** Set when the live version's lag is not measured (the running code does not project it): `lag` is then empty, not "caught up". */
      lagUnknown: z.string().optional(),
      versions: z.array(projectionVersionStatus),
      rebuilds: z.array(projectionRebuildStatus),
      lag: z.array(projectionLaneLag),
    }),
  ),
});
export type ProjectionsStatusResponse = z.infer<typeof projectionsStatusResponse>;

/**
 * The formulas version of a read model's code version (`codeVersion`, "Built by"): trades numbers its
 * versions formulas x 100 + the tables' shape version (v203: formulas v2, the number support's audit
 * screens show, with shape 3); a code version below 100 is the formulas version itself.
 */
export const formulasOfCodeVersion = (codeVersion: number): number => (codeVersion >= 100 ? Math.floor(codeVersion / 100) : codeVersion);

/**
 * A code version as every screen, tool and message names it: `formulas v2 (code v203)`, or `formulas v2`
 * where the two are one number (QA 73, 75: "built by formulas v102" beside "formulas v1 (code v102)").
 */
export function codeVersionLabel(codeVersion: number): string {
  const formulas = formulasOfCodeVersion(codeVersion);
  return formulas === codeVersion ? `formulas v${formulas}` : `formulas v${formulas} (code v${codeVersion})`;
}

// ---------------------------------------------------------------------------------------------------
// The projections console (Admin and Operator): rebuilds with live progress, diffs, switch, rollback,
// retire, the operator-actions log and the lag history. Every route answers 403 to other roles.

/** Roles that may use the projections console; the BullMQ board is Admin only. */
export const operatorRoles = ['Admin', 'Operator'] as const;

const NAME = /^[a-z][a-z0-9_]{0,62}$/;
export const projectionParams = z.object({ name: z.string().regex(NAME, 'Unknown projection name.') });

const VERSION_MESSAGE = 'Version must be a whole number.';
/**
 * A version in a JSON body: a JSON number, a whole one, from 1 (QA: coerced, `true` was version 1 and
 * switched, rolled back, retired or abandoned it).
 */
const version = z.number({ error: VERSION_MESSAGE }).int(VERSION_MESSAGE).min(1, VERSION_MESSAGE);
/** A version in a query string: digits only (`true`, `1e1` or ` ` are not versions). */
const queryVersion = z.string({ error: VERSION_MESSAGE }).regex(/^\d{1,9}$/, VERSION_MESSAGE).transform(Number).pipe(version);

export const rebuildRequest = z
  .object({
    /** Recompute one user's rows in the live version instead of building a new version. */
    userId: z.uuid('User id must be a UUID.').optional(),
    /**
     * The same by the user's e-mail (an Operator cannot look users up elsewhere: the audit search and the
     * admin lookup are other roles'); an e-mail no account has is refused (404).
     */
    userEmail: z.email('Enter a user id or an e-mail address.').optional(),
    /**
     * Switch once built (default false: the console builds beside the live version so the operator
     * compares first). Ignored for a one-user rebuild, which never changes versions.
     */
    switch: z.boolean().optional(),
  })
  .strict();
export type RebuildRequest = z.infer<typeof rebuildRequest>;

export const rebuildPhase = z.enum(['queued', 'building', 'finishing', 'switching', 'done', 'failed']);
export type RebuildPhase = z.infer<typeof rebuildPhase>;

/** What a one-user recompute wrote to one table (or to the stream guard, `stream_revisions`). */
export const rowChanges = z.object({ inserted: z.number().int(), updated: z.number().int(), deleted: z.number().int() });
export type RowChanges = z.infer<typeof rowChanges>;
export type RowChangesByTable = Record<string, RowChanges>;

/**
 * A one-user recompute's writes in words, as the CLI prints them and the console shows them: "every row
 * was right, nothing written", or per table the rows added, replaced and removed.
 */
export function describeRowChanges(changes: RowChangesByTable): string {
  const wrote = Object.entries(changes).filter(([, c]) => c.inserted + c.updated + c.deleted > 0);
  if (!wrote.length) return 'every row was right, nothing written';
  const parts = (c: RowChanges) => [c.inserted && `${c.inserted} added`, c.updated && `${c.updated} replaced`, c.deleted && `${c.deleted} removed`].filter(Boolean).join(', ');
  return `rows written: ${wrote.map(([table, c]) => `${table} ${parts(c)}`).join('; ')}`;
}

/** One rebuild as the console follows it (pushed over Server-Sent Events, also in `GET /operations/live`). */
export const rebuildState = z.object({
  /** `rebuild-<name>` or `rebuild-<name>-user-<id>` (the BullMQ job id in services mode). */
  id: z.string(),
  projection: z.string(),
  userId: z.string().nullable(),
  /**
   * The account's e-mail when the one-user recompute was asked for by e-mail; null when asked for by id
   * (the console does not look an id's e-mail up: an Operator has no user lookup of its own).
   */
  userEmail: z.string().nullable(),
  switch: z.boolean(),
  /** The version being built (null until the runner reported it). */
  version: z.number().int().nullable(),
  phase: rebuildPhase,
  eventsDone: z.number(),
  eventsTotal: z.number().nullable(),
  /** Events per second over this run. */
  rate: z.number(),
  etaSeconds: z.number().nullable(),
  /** A finished one-user recompute: what it wrote per table (null otherwise). */
  changes: z.record(z.string(), rowChanges).nullable(),
  error: z.string().nullable(),
  requestedBy: z.string().nullable(),
  startedAt: z.string(),
  updatedAt: z.string(),
  runner: z.enum(['bullmq', 'in-process']),
});
export type RebuildState = z.infer<typeof rebuildState>;

export const lagPoint = z.object({ projection: z.string(), lane: z.number().int(), behindEvents: z.number(), behindSeconds: z.number() });
/** One lag sample of every live projection's lanes. */
export const lagSample = z.object({ at: z.string(), lanes: z.array(lagPoint) });
export type LagSample = z.infer<typeof lagSample>;

/** The error a lane keeps failing on (BullMQ mode: the failed reason of the job it retries). */
export const laneError = z.object({ lane: z.number().int(), message: z.string(), attempts: z.number().int(), at: z.string().nullable() });
export type LaneError = z.infer<typeof laneError>;

/** `GET /operations/live`, and the `snapshot` event of the stream. */
export const operationsLive = z.object({
  transport: z.enum(['bullmq', 'in-process']),
  /** Seconds between lag samples; the history covers the last 15 minutes. */
  sampleSeconds: z.number(),
  lagHistory: z.array(lagSample),
  rebuilds: z.array(rebuildState),
  laneErrors: z.array(laneError),
  /** Where the BullMQ board is mounted, for Admins with REDIS_URL set; null otherwise. */
  queuesUrl: z.string().nullable(),
});
export type OperationsLive = z.infer<typeof operationsLive>;

/** One event of `GET /operations/stream`: `snapshot` (an `OperationsLive`), `rebuilds` or `lag`. */
export interface StreamEvent {
  event: string;
  data: unknown;
}

/**
 * The complete events at the head of the stream's text, as the gateway writes them (an `event:` and a
 * `data:` line, then a blank line), and the rest: an event still arriving. Blocks without both lines
 * (the stream's `: ping` comments) are skipped.
 */
export function takeStreamEvents(text: string): { events: StreamEvent[]; rest: string } {
  const events: StreamEvent[] = [];
  let rest = text;
  let cut: number;
  while ((cut = rest.indexOf('\n\n')) >= 0) {
    const block = rest.slice(0, cut);
    rest = rest.slice(cut + 2);
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (event && data) events.push({ event, data: JSON.parse(data) as unknown });
  }
  return { events, rest };
}

/**
 * Why the running read-model code (`code`) cannot make version `version` live, built by `builtBy`; null
 * when it can. A switch or rollback first catches the version up with the events since it stood, which
 * only the formulas that built it may do (docs/operations.md, "Roll back"). The runtime refuses with this
 * message once there is an event to catch up; the console offers no switch or rollback it would refuse.
 */
export function catchUpRefusal(name: string, version: number, builtBy: number, code: number | null): string | null {
  const why = cannotCatchUp(name, version, builtBy, code);
  return why && `${why} Rebuild instead.`;
}

/** Why the running code cannot catch version `version` up (built by other code), or null when it can (or who built it is not known). */
function cannotCatchUp(name: string, version: number, builtBy: number | null, code: number | null): string | null {
  if (code === null || builtBy === null || builtBy === code) return null;
  return `${name} v${version} was built by ${codeVersionLabel(builtBy)} and the code runs ${codeVersionLabel(code)}: it cannot catch up.`;
}

/**
 * What to do with a version built and not switched: compare, then switch; or, built by other code than
 * the running one (an older release's projector took a newer release's rebuild, QA 75), abandon it and
 * rebuild, as its switch would be refused. The CLI's status and the console say the same.
 */
export function builtVersionAdvice(name: string, version: number, builtBy: number | null, code: number | null): { otherCode: boolean; text: string } {
  const why = cannotCatchUp(name, version, builtBy, code);
  return why
    ? { otherCode: true, text: `${why} Abandon it (\`abandon ${name} --version ${version}\`), then rebuild with this release.` }
    : { otherCode: false, text: `compare with \`diff ${name}\`, then \`switch ${name} ${version}\`` };
}

/** `GET /operations/projections/:name/diff?version=` (default: the building version). */
export const diffQuery = z.object({ version: queryVersion.optional() });

export const tableDiff = z.object({
  table: z.string(),
  live: z.string(),
  other: z.string(),
  rowsLive: z.number(),
  rowsOther: z.number(),
  onlyInLive: z.number(),
  onlyInOther: z.number(),
  sampleOnlyInLive: z.array(z.record(z.string(), z.unknown())),
  sampleOnlyInOther: z.array(z.record(z.string(), z.unknown())),
  /** Sums of amount columns that differ. */
  totals: z.array(z.object({ column: z.string(), live: z.number(), other: z.number() })),
  /** Code columns (a status, a list) whose rows per value differ: value -> rows, `null` for no value. Codes are not summed. */
  categories: z.array(z.object({ column: z.string(), live: z.record(z.string(), z.number()), other: z.record(z.string(), z.number()) })),
  shapeChanged: z.string().optional(),
});

/** One column's changes between rows of the same key: "ror changed for 312 trades of 41 users, largest +3.2". */
export const figureDelta = z.object({
  table: z.string(),
  column: z.string(),
  rowsChanged: z.number(),
  /** Distinct users of those rows (null when the table has no user column). */
  users: z.number().nullable(),
  /** The signed change of largest size (other minus live); null for non-numeric columns. */
  largestDelta: z.number().nullable(),
  samples: z.array(z.object({ key: z.record(z.string(), z.unknown()), user: z.string().nullable(), live: z.unknown(), other: z.unknown() })),
});
export type FigureDelta = z.infer<typeof figureDelta>;

export const keyedRows = z.object({
  table: z.string(),
  /** Key columns used to match rows; empty when the table has no primary key (no per-row comparison). */
  key: z.array(z.string()),
  matched: z.number(),
  onlyInLive: z.number(),
  onlyInOther: z.number(),
});

export const diffResponse = z.object({
  projection: z.string(),
  live: z.object({ version: z.number().int(), codeVersion: z.number().int() }),
  other: z.object({ version: z.number().int(), codeVersion: z.number().int(), status: z.enum(['live', 'building', 'retired']) }),
  identical: z.boolean(),
  /**
   * Events in the log after the compared version's own position (a building version stops where its
   * rebuild read; the live one keeps moving): rows those events touch differ until it is caught up.
   * Null when the store cannot count.
   */
  otherBehind: z.number().nullable(),
  tables: z.array(tableDiff),
  keyed: z.array(keyedRows),
  figures: z.array(figureDelta),
});
export type DiffResponse = z.infer<typeof diffResponse>;

export const switchRequest = z.object({ version: version }).strict();
/**
 * The version to retire, named: its tables are dropped and nothing rolls back to it after, so the API does
 * not pick one (QA: an empty body dropped the most recently retired version). The CLI's `retire <name>`
 * without `--version` still retires them all, as it says.
 */
export const retireRequest = z.object({ version: version }).strict();
/**
 * The version to roll back to, named as the console showed it, and the live version it is to replace
 * (optional, the console sends it). A rollback goes back to the most recently retired version; when that
 * is no longer `version` (or `from` is no longer live: another operator, a second tab or the CLI acted
 * since), it is refused with 409 and nothing changes (QA: the confirm rolled back the other operator's
 * rollback instead). The CLI's `rollback <name>` without `--version` still takes whatever is previous.
 */
export const rollbackRequest = z.object({ version: version, from: version.optional() }).strict();
export type RollbackRequest = z.infer<typeof rollbackRequest>;
/**
 * The `resolution` of the 409 that refuses a rollback or abandon whose named version no longer matches:
 * what the operator chose from is gone, so the same request would be refused again. The console then
 * shows the versions as they are now and does not offer to send it again.
 */
export const STALE_CHOICE_RESOLUTION = 'Reload the console and choose again.';
/** The building version to abandon, named: refused with 409 when it is no longer the one building. */
export const abandonRequest = z.object({ version: version }).strict();
export type AbandonRequest = z.infer<typeof abandonRequest>;

export const operatorActionKind = z.enum(['rebuild', 'rebuild-user', 'switch', 'rollback', 'retire', 'abandon']);
export const operatorAction = z.object({
  id: z.string(),
  at: z.string(),
  actorId: z.string(),
  actorEmail: z.string(),
  actorRole: z.string(),
  action: operatorActionKind,
  projection: z.string(),
  version: z.number().int().nullable(),
  userId: z.string().nullable(),
  /** `ok` done, `queued` accepted (rebuilds run in the background), `refused` a 4xx, `failed` an error. */
  outcome: z.enum(['ok', 'queued', 'refused', 'failed']),
  message: z.string(),
});
export type OperatorAction = z.infer<typeof operatorAction>;

/** `GET /operations/actions`: newest first, a page at a time; `before` is the last id of the page before. */
export const actionsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  before: z.uuid('before must be the id of an operator action.').optional(),
});
export type ActionsQuery = z.infer<typeof actionsQuery>;
/** `nextBefore`: the `before` of the next (older) page, or null when this page holds the oldest entry. */
export const actionsResponse = z.object({ actions: z.array(operatorAction), nextBefore: z.string().nullable() });
export type ActionsResponse = z.infer<typeof actionsResponse>;

/** Answer of switch, rollback, retire and abandon: what happened, and the log entry it made. */
export const operatorActionResult = z.object({ message: z.string(), action: operatorAction });
export type OperatorActionResult = z.infer<typeof operatorActionResult>;

/** `POST /operations/projections/:name/rebuild` (202): the rebuild now followed, and its log entry. */
export const rebuildResponse = z.object({ rebuild: rebuildState, existing: z.boolean(), action: operatorAction });
export type RebuildResponse = z.infer<typeof rebuildResponse>;
