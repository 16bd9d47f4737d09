import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { useExport } from '../api/audit-api.ts';

/** Exports with their SHA-256, as recorded in the access log. */
export function ExportPanel({ uid, reason }: { uid: string; reason: string }) {
  const run = useExport(uid, reason);
  return (
    <section className="card audit-panel" aria-label="Export">
      <h3 className="card-title">Export the history</h3>
      <p className="muted">
        <b>Events (JSON Lines)</b>: one event per line in log order, envelope and data as stored. <b>Timeline (CSV)</b>: the timeline as shown here, one row per event.
        The SHA-256 of the file is shown below and written to the access log, so the file can be checked later (<code>sha256sum file</code>).
      </p>
      <div className="audit-export-buttons">
        <Button onClick={() => run.mutate('jsonl')} loading={run.isPending && run.variables === 'jsonl'} disabled={run.isPending}>
          Download events (JSON Lines)
        </Button>
        <Button variant="secondary" onClick={() => run.mutate('csv')} loading={run.isPending && run.variables === 'csv'} disabled={run.isPending}>
          Download timeline (CSV)
        </Button>
      </div>
      {run.isError && <Alert tone="danger">{errorMessage(run.error, 'The export failed.')}</Alert>}
      {run.data && (
        <dl className="audit-export-result" aria-label="Export result">
          <dt>File</dt>
          <dd>{run.data.filename}</dd>
          <dt>Size</dt>
          <dd>{run.data.bytes.toLocaleString('en-US')} bytes</dd>
          <dt>SHA-256</dt>
          <dd>
            <code className="audit-mono audit-digest">{run.data.digest}</code>
          </dd>
        </dl>
      )}
    </section>
  );
}
