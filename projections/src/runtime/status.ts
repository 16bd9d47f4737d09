import { builtVersionAdvice, codeVersionLabel, type ProjectionsStatusResponse } from '@oj/contracts/operations';
import { projectionStatus, routedLanes } from './registry.ts';
import type { RuntimeDeps } from './rebuild.ts';

const iso = (d: Date | string | null) => (d === null ? null : d instanceof Date ? d.toISOString() : new Date(d).toISOString());

/** Row counts by version (`countVersions`), kept between status answers of one process. */
export type CountCache = Map<string, { at: number; counts: Record<string, number> }>;

/**
 * The status answer shared by the operations route and `npm run projections -- status [--json]`, with
 * every version's rows counted (`countVersions`): the CLI's status showed none for a live version the
 * projector created at start-up (QA), whose registry row has no snapshot, while the console counted them.
 */
export async function projectionsStatus(deps: RuntimeDeps, transport: 'bullmq' | 'in-process', countCache: CountCache = new Map()): Promise<ProjectionsStatusResponse> {
  return countVersions(deps, await registryStatus(deps, transport), countCache);
}

async function registryStatus(deps: RuntimeDeps, transport: 'bullmq' | 'in-process'): Promise<ProjectionsStatusResponse> {
  // The count the dispatcher routes with (recorded), not this process's PROJECTOR_LANES: a CLI started
  // with another value measured every lane's lag with the wrong users (QA: "lanes 4" while routing with 6).
  const lanes = await routedLanes(deps.database.db, deps.lanes);
  const rows = await projectionStatus(deps.database.db, deps.eventStore, deps.projections, lanes);
  return {
    lanes,
    ...(lanes === deps.lanes ? {} : { configuredLanes: deps.lanes }),
    transport,
    projections: rows.map((p) => ({
      name: p.name,
      codeVersion: p.codeVersion,
      ...(p.warning ? { warning: p.warning } : {}),
      ...(p.lagUnknown ? { lagUnknown: p.lagUnknown } : {}),
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
        builtAt: iso(r.builtAt),
        finishedAt: iso(r.finishedAt),
      })),
      lag: p.lag.map((l) => ({ version: l.version, lane: l.lane, checkpoint: l.checkpoint, behindEvents: l.behindEvents, behindSeconds: l.behindSeconds, capped: l.capped })),
    })),
  };
}

/**
 * Row counts in the registry are a snapshot taken when a rebuild ends (and the version the projector
 * created itself at start-up has none), while the live version keeps growing. So every version's
 * tables are counted, at most every 15 s per version with a cache the caller keeps (the console's
 * gateway), so its numbers are current without a count of big tables on every refresh; the registry's
 * snapshot stays the answer when counting fails.
 */
export async function countVersions(deps: RuntimeDeps, status: ProjectionsStatusResponse, cache: CountCache): Promise<ProjectionsStatusResponse> {
  for (const p of status.projections) {
    const code = deps.projections.find((x) => x.name === p.name);
    if (!code?.countRows) continue;
    for (const v of p.versions) {
      // A switch, a finished rebuild (new registry counts) or a retire counts again at once.
      const key = `${p.name}/${v.version}/${v.status}/${v.liveSince}/${v.retiredAt}/${JSON.stringify(v.counts)}`;
      let hit = cache.get(key);
      if (!hit || Date.now() - hit.at > 15_000) {
        const counts = await code.countRows(deps.database.db, v.tables).catch(() => null);
        if (!counts) continue;
        hit = { at: Date.now(), counts };
        for (const k of cache.keys()) if (k.startsWith(`${p.name}/${v.version}/`)) cache.delete(k);
        cache.set(key, hit);
      }
      v.counts = hit.counts;
    }
  }
  return status;
}

/** `npm run projections -- status` in words: per read model its versions with row counts, unfinished rebuilds and lag. */
export function formatStatus(status: ProjectionsStatusResponse): string {
  const differs = status.configuredLanes === undefined ? '' : ` (the dispatcher routes with ${status.lanes} lanes; PROJECTOR_LANES here is ${status.configuredLanes}: give every process of the deployment the same value)`;
  const out: string[] = [`lanes ${status.lanes}, transport ${status.transport}${differs}`];
  if (!status.projections.length) out.push('(no projections in the catalogue)');
  for (const p of status.projections) {
    out.push('', `${p.name} (code v${p.codeVersion ?? '-'})${p.warning ? `  !! ${p.warning}` : ''}`);
    // A complete build waiting for its switch reads "built", as the console says (QA: "building").
    const waiting = new Set(p.rebuilds.filter((r) => !r.finishedAt && r.builtAt).map((r) => r.version));
    for (const v of p.versions) {
      const state = waiting.has(v.version) && v.status === 'building' ? 'built' : v.status;
      const counts = Object.entries(v.counts).map(([t, n]) => `${t}=${n}`).join(' ');
      // Formulas as the screens number them (QA: "formulas v203" where support's screens say formulas v2).
      out.push(`  v${v.version} ${state.padEnd(8)} ${codeVersionLabel(v.codeVersion)} tables ${Object.values(v.tables).join(', ')}${counts ? `  rows ${counts}` : ''}`);
    }
    for (const r of p.rebuilds.filter((r) => !r.finishedAt)) {
      // A complete build of `rebuild --no-switch` waits for the operator, not for a resume (QA).
      // Built by another release's code (QA 75: an older projector took the job): no switch to advise.
      if (r.builtAt) {
        const builtBy = p.versions.find((v) => v.version === r.version)?.codeVersion ?? null;
        out.push(`  v${r.version} built, not switched: ${builtVersionAdvice(p.name, r.version, builtBy, p.codeVersion).text}`);
      }
      // The total is the log's length when it started; events written since are folded too (QA: "5736/5709").
      else out.push(`  rebuild of v${r.version} in progress/stopped at ${r.checkpoint}: ${r.eventsDone}/${r.eventsTotal === null ? '?' : Math.max(r.eventsDone, r.eventsTotal)} events (resume: rebuild ${p.name})`);
    }
    const behind = p.lag.filter((l) => l.behindEvents > 0 || l.capped);
    if (p.lagUnknown) out.push(`  lag: ${p.lagUnknown}`);
    else if (behind.length) out.push(`  lag: ${behind.map((l) => `lane ${l.lane} ${l.behindEvents}${l.capped ? '+' : ''} events / ${l.behindSeconds.toFixed(1)}s`).join('; ')}`);
    else out.push('  lag: caught up');
  }
  return out.join('\n');
}
