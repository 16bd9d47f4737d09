import { describeRowChanges, type RebuildState } from '@oj/contracts/operations';
import { Badge, type BadgeTone } from '@/components/ui/badge.tsx';
import { duration, int, phaseLabel, timeAgo } from './format.ts';

const tone: Record<RebuildState['phase'], BadgeTone> = { queued: 'neutral', building: 'primary', finishing: 'info', switching: 'info', done: 'success', failed: 'danger' };

type VersionStatus = 'live' | 'building' | 'retired';

/**
 * What the card says it rebuilt. A one-user recompute: the user, by the e-mail the operator gave with
 * the whole id (its first eight characters do not tell users apart, QA). A version: while it runs, what
 * it will do when built; once done, where its version stands now by the status the page polls (QA: "Done
 * · v104 · beside live" stayed after v104 went live through a switch or a rollback).
 */
export function rebuildSubject(rebuild: RebuildState, versionStatus: VersionStatus | null): string {
  // Lower case, as the operator log's line for it says ("Rebuild of trades for user …"; QA: "Rebuild User …").
  if (rebuild.userId) return rebuild.userEmail ? `user ${rebuild.userEmail} (${rebuild.userId})` : `user ${rebuild.userId}`;
  const version = `v${rebuild.version ?? '…'}`;
  if (rebuild.phase === 'done') {
    if (versionStatus === 'live') return `${version} · now live`;
    if (versionStatus === 'retired') return `${version} · retired since`;
    if (versionStatus === 'building') return `${version} · beside live`;
  }
  return `${version}${rebuild.switch ? ' · switches when built' : ' · beside live'}`;
}

/** One rebuild: phase, a bar, events done of total, events/s and ETA (pushed by the server as it goes). */
export function RebuildProgress({ rebuild, versionStatus = null }: { rebuild: RebuildState; versionStatus?: VersionStatus | null }) {
  const ratio = rebuild.phase === 'done' ? 1 : rebuild.eventsTotal ? Math.min(1, rebuild.eventsDone / rebuild.eventsTotal) : 0;
  const active = rebuild.phase !== 'done' && rebuild.phase !== 'failed';
  const what = rebuildSubject(rebuild, versionStatus);
  return (
    <div className={`ops-rebuild${active ? ' is-active' : ''}`} data-testid={`rebuild-${rebuild.id}`} data-phase={rebuild.phase}>
      <div className="ops-rebuild-head">
        <Badge tone={tone[rebuild.phase]}>{phaseLabel[rebuild.phase]}</Badge>
        <span className="ops-rebuild-what">Rebuild {what}</span>
        <span className="ops-muted ops-rebuild-who">
          {rebuild.requestedBy ? `${rebuild.requestedBy} · ` : ''}
          {timeAgo(rebuild.startedAt)}
        </span>
      </div>
      {!rebuild.userId && (
        <div
          className="ops-bar"
          role="progressbar"
          aria-label={`Rebuild of ${rebuild.projection}`}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.round(ratio * 100)}
        >
          <span style={{ width: `${ratio * 100}%` }} />
        </div>
      )}
      <dl className="ops-rebuild-stats">
        <div>
          <dt>Events</dt>
          <dd data-testid="rebuild-events">
            {int(rebuild.eventsDone)}
            {/* The log's length when it started; events written since are folded too, so never fewer than done. */}
            {rebuild.eventsTotal !== null && !rebuild.userId ? ` / ${int(Math.max(rebuild.eventsDone, rebuild.eventsTotal))}` : ''}
          </dd>
        </div>
        {!rebuild.userId && (
          <>
            <div>
              <dt>Rate</dt>
              <dd>{active ? `${int(rebuild.rate)} ev/s` : '—'}</dd>
            </div>
            <div>
              <dt>ETA</dt>
              <dd>{active ? duration(rebuild.etaSeconds) : '—'}</dd>
            </div>
          </>
        )}
        <div>
          <dt>Runner</dt>
          <dd>{rebuild.runner === 'bullmq' ? 'projector job' : 'in process'}</dd>
        </div>
      </dl>
      {rebuild.changes && (
        <p className="ops-rebuild-changes" data-testid="rebuild-changes">
          {describeRowChanges(rebuild.changes).replace(/^./, (c) => c.toUpperCase())}.
        </p>
      )}
      {rebuild.error && <p className="ops-error">{rebuild.error}</p>}
    </div>
  );
}
