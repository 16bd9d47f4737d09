import { Badge, type BadgeTone } from '@/components/ui/badge.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { useOperatorActions } from '../api/operations-api.ts';
import { dateTime } from './format.ts';

const tone: Record<string, BadgeTone> = { ok: 'success', queued: 'info', refused: 'warning', failed: 'danger' };

/** The append-only log of operator actions (who, what, when, and how it ended). */
export function ActionsLog() {
  const actions = useOperatorActions();
  return (
    <section className="card ops-card" aria-labelledby="ops-actions-title">
      <h2 id="ops-actions-title" className="ops-card-title">
        Operator actions
      </h2>
      {actions.isPending ? (
        <Spinner label="Loading actions" />
      ) : !actions.data?.actions.length ? (
        <p className="ops-muted">No operator action yet. Rebuilds, switches, rollbacks and retires are recorded here.</p>
      ) : (
        <ol className="ops-actions" data-testid="actions-log">
          {actions.data.actions.map((a) => (
            <li key={a.id} data-action={a.action} data-outcome={a.outcome}>
              <div className="ops-action-line">
                <Badge tone={tone[a.outcome] ?? 'neutral'}>{a.outcome}</Badge>
                <strong>{a.action}</strong>
                <span>
                  {a.projection}
                  {a.version !== null ? ` v${a.version}` : ''}
                </span>
                <time className="ops-muted" dateTime={a.at}>
                  {dateTime(a.at)}
                </time>
              </div>
              <div className="ops-action-msg">{a.message}</div>
              <div className="ops-muted ops-action-who">
                {a.actorEmail} · {a.actorRole}
              </div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
