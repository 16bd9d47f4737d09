import { useEffect, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { RebuildState } from '@oj/contracts/operations';
import { PageHeader } from '@/components/layout/page-header.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Icon } from '@/components/ui/icons.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { RoleGate } from '@/features/auth/components/role-gate.tsx';
import { openQueuesSession, useProjectionsStatus } from '../api/operations-api.ts';
import { useOperationsStream } from '../api/use-operations-stream.ts';
import { ActionsLog } from '../components/actions-log.tsx';
import { ProjectionCard } from '../components/projection-card.tsx';
import '../components/operations.css';

/** /operations: the projections console (Admin and Operator). */
export function OperationsRoute() {
  return (
    <RoleGate roles={['Admin', 'Operator']} title="Operators only" description="The projections console is for administrators and operators.">
      <OperationsConsole />
    </RoleGate>
  );
}

function OperationsConsole() {
  const client = useQueryClient();
  const toast = useToast();
  const status = useProjectionsStatus();
  // A rebuild that changes phase changes versions and counts: refresh the status then, not on a timer only.
  const phases = useRef(new Map<string, string>());
  const onRebuilds = (rebuilds: RebuildState[]) => {
    let changed = false;
    for (const r of rebuilds) {
      if (phases.current.get(r.id) !== r.phase) changed = true;
      phases.current.set(r.id, r.phase);
    }
    if (changed) {
      void client.invalidateQueries({ queryKey: ['operations', 'status'] });
      void client.invalidateQueries({ queryKey: ['operations', 'actions'] });
    }
  };
  const stream = useOperationsStream(onRebuilds);
  const live = stream.live;
  useEffect(() => () => phases.current.clear(), []);

  const openQueues = async () => {
    try {
      const { url } = await openQueuesSession();
      window.open(url, '_blank', 'noopener');
    } catch (err) {
      toast.error('Could not open the queues', errorMessage(err, 'Try again.'));
    }
  };

  return (
    <div className="ops-page">
      <PageHeader
        title="Projections"
        breadcrumb={[{ label: 'Home', to: '/dashboard' }, { label: 'Operations' }]}
        description="Read models built from the trade journal: versions, lanes, rebuilds, and what a new version changes before it goes live."
        actions={
          <div className="ops-header-actions">
            <span className={`ops-live-pill${stream.connected ? ' is-on' : ''}`} role="status" data-testid="live-pill">
              <span aria-hidden="true" className="ops-dot" />
              {stream.connected ? 'Live' : 'Reconnecting…'}
            </span>
            {live?.queuesUrl && (
              <Button size="sm" variant="secondary" onClick={() => void openQueues()} icon={<Icon name="external" size={16} />}>
                Queues
              </Button>
            )}
          </div>
        }
      />
      {stream.error && !stream.connected && <Alert tone="warning">{stream.error}</Alert>}
      {status.isPending ? (
        <div className="ops-center">
          <Spinner label="Loading projections" />
        </div>
      ) : !status.data ? (
        <Alert tone="danger">{errorMessage(status.error, 'Could not load the projections.')}</Alert>
      ) : (
        <>
          {/* A failed refresh keeps the last state on screen (and any dialog open over it), with a warning. */}
          {status.isError && <Alert tone="warning">{errorMessage(status.error, 'Could not refresh the projections.')} Showing the state as of {new Date(status.dataUpdatedAt).toLocaleTimeString()}; retrying.</Alert>}
          <p className="ops-muted ops-meta">
            {status.data.lanes} lanes · {status.data.transport === 'bullmq' ? 'BullMQ lanes and rebuild jobs' : 'in-process lanes and rebuilds'} · lag sampled every {live?.sampleSeconds ?? 5}s, last 15 minutes
          </p>
          {status.data.configuredLanes !== undefined && (
            <Alert tone="warning">
              The dispatcher routes with {status.data.lanes} lanes, and this gateway&apos;s PROJECTOR_LANES is {status.data.configuredLanes}: give every process of the deployment the same value.
            </Alert>
          )}
          <div className="ops-layout">
            <div className="ops-main">
              {status.data.projections.map((p) => (
                <ProjectionCard key={p.name} projection={p} live={live} onRebuildStarted={stream.upsertRebuild} />
              ))}
            </div>
            <aside className="ops-side">
              <ActionsLog />
            </aside>
          </div>
        </>
      )}
    </div>
  );
}
