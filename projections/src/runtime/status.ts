import type { ProjectionsStatusResponse } from '@oj/contracts/operations';
import { projectionStatus } from './registry.ts';
import type { RuntimeDeps } from './rebuild.ts';

const iso = (d: Date | string | null) => (d === null ? null : d instanceof Date ? d.toISOString() : new Date(d).toISOString());

/** The status answer shared by the operations route and `npm run projections -- status --json`. */
export async function projectionsStatus(deps: RuntimeDeps, transport: 'bullmq' | 'in-process'): Promise<ProjectionsStatusResponse> {
  const rows = await projectionStatus(deps.database.db, deps.eventStore, deps.projections, deps.lanes);
  return {
    lanes: deps.lanes,
    transport,
    projections: rows.map((p) => ({
      name: p.name,
      codeVersion: p.codeVersion,
      ...(p.warning ? { warning: p.warning } : {}),
      versions: p.versions.map((v) => ({
        version: v.version,
        codeVersion: v.codeVersion,
        status: v.status,
        lanes: v.lanes,
        tables: v.tables,
        counts: v.counts,
        createdAt: iso(v.createdAt)!,
        liveSince: iso(v.liveSince),
        retiredAt: iso(v.retiredAt),
        checkpoints: v.checkpoints,
      })),
      rebuilds: p.rebuilds.map((r) => ({
        version: r.version,
        checkpoint: r.checkpoint,
        eventsDone: r.eventsDone,
        eventsTotal: r.eventsTotal,
        startedAt: iso(r.startedAt)!,
        updatedAt: iso(r.updatedAt)!,
        finishedAt: iso(r.finishedAt),
      })),
      lag: p.lag.map((l) => ({ version: l.version, lane: l.lane, checkpoint: l.checkpoint, behindEvents: l.behindEvents, behindSeconds: l.behindSeconds, capped: l.capped })),
    })),
  };
}
