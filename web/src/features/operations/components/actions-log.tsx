import { Alert } from '@/components/ui/alert.tsx';
import { Badge, type BadgeTone } from '@/components/ui/badge.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { useOperatorActions } from '../api/operations-api.ts';
import { dateTime } from './format.ts';

const tone: Record<string, BadgeTone> = { ok: 'success', queued: 'info', refused: 'warning', failed: 'danger' };

/** The append-only log of operator actions (who, what, when, and how it ended). */
export function ActionsLog() {
  const actions = useOperatorActions();
  const entries = actions.data?.pages.flatMap((p) => p.actions) ?? [];
  return (
    <section className="card ops-card" aria-labelledby="ops-actions-title">
      <h2 id="ops-actions-title" className="ops-card-title">
        Operator actions
      </h2>
      {actions.isPending ? (
        <Spinner label="Loading actions" />
      ) : actions.isError && entries.length === 0 ? (
        // A log that could not be read is not an empty log.
        <Alert tone="danger">
          {errorMessage(actions.error, 'Could not load the operator actions.')}{' '}
          <Button size="sm" variant="secondary" onClick={() => void actions.refetch()}>
            Try again
          </Button>
        </Alert>
      ) : entries.length === 0 ? (
        <p className="ops-muted">No operator action yet. Rebuilds, switches, rollbacks and retires are recorded here.</p>
      ) : (
        <>
          <ol className="ops-actions" data-testid="actions-log">
            {entries.map((a) => (
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
          {actions.isFetchNextPageError && <Alert tone="warning">{errorMessage(actions.error, 'Could not load older actions.')}</Alert>}
          {actions.hasNextPage && (
            <div className="ops-actions-more">
              <Button size="sm" variant="secondary" loading={actions.isFetchingNextPage} onClick={() => void actions.fetchNextPage()}>
                Show older actions
              </Button>
            </div>
          )}
        </>
      )}
    </section>
  );
}
