import { useState } from 'react';
import { Alert } from '@/components/ui/alert.tsx';
import { Badge } from '@/components/ui/badge.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Checkbox } from '@/components/ui/form-field.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { useOneSubmission } from '@/lib/use-one-submission.ts';
import { useVerify } from '../api/audit-api.ts';
import { shortId, showValue } from './labels.ts';
import { StoredStateNote } from './stored-state-note.tsx';

const kindText = { differs: 'fields differ', only_live: 'only in the live read model', only_replayed: 'missing from the live read model' } as const;

/** Replays the whole history and compares it with the live read models, row by row. */
export function VerifyPanel({ uid, reason }: { uid: string; reason: string }) {
  const run = useVerify(uid, reason);
  const [full, setFull] = useState(false);
  // One replay per press: a double click ran the whole replay twice, two reads in the trader's access log (QA).
  const once = useOneSubmission();
  const r = run.data;
  return (
    <section className="card audit-panel" aria-label="Verify">
      <div className="audit-verify-head">
        <div>
          <h3 className="card-title">Verify the read models</h3>
          <p className="muted">
            Replays every event of this user through the projection code and compares the result with the live read models (trades, lineages, split history, daily
            premium, list counts) field by field. A difference is a projection bug or a stale version.
          </p>
          <Checkbox label="From the first event (not from the last stored replay state)" checked={full} onChange={(e) => setFull(e.target.checked)} />
        </div>
        <Button onClick={() => once((settled) => run.mutate({ full }, { onSettled: settled }))} loading={run.isPending}>
          {r ? 'Verify again' : 'Run Verify'}
        </Button>
      </div>
      {run.isError && <Alert tone="danger">{errorMessage(run.error, 'Verify failed.')}</Alert>}
      {r && (
        <div className="audit-verify-result">
          <div className={`audit-verdict ${r.consistent ? 'ok' : 'bad'}`} role="status">
            {r.consistent ? 'Consistent' : `${r.difference_count} differing row${r.difference_count === 1 ? '' : 's'}`}
            <span className="audit-small">
              {r.events_replayed.toLocaleString('en-US')} events replayed · read models v{r.version} · {r.elapsed_ms} ms
            </span>
          </div>
          {!r.consistent && r.in_flight_events > 0 && (
            <Alert tone="warning">
              {r.in_flight_events === 1 ? 'One of this user’s events was' : `${r.in_flight_events.toLocaleString('en-US')} of this user’s events were`} not applied to the read models yet (being
              projected now): the differences may be only {r.in_flight_events === 1 ? 'that' : 'those'}. Verify again once the user is quiet before calling it a bug.
            </Alert>
          )}
          <StoredStateNote stored={r.stored_state} />
          <table className="audit-table audit-verify-counts">
            <thead>
              <tr>
                <th scope="col">Table</th>
                <th scope="col" className="num">Live rows</th>
                <th scope="col" className="num">Replayed rows</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(r.rows).map(([table, n]) => (
                <tr key={table}>
                  <td>
                    <code className="audit-mono">{table}</code>
                  </td>
                  <td className="num">{n.live.toLocaleString('en-US')}</td>
                  <td className="num">{n.replayed.toLocaleString('en-US')}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {r.differences.length > 0 && (
            <ul className="audit-differences" aria-label="Differing rows">
              {r.differences.map((d) => (
                <li key={`${d.table}/${d.key}`}>
                  <div>
                    <code className="audit-mono">{d.table}</code> row <code className="audit-mono">{d.table === 'trades' ? `${shortId(d.key)} (${d.key})` : d.key}</code>:{' '}
                    <Badge tone="danger">{kindText[d.kind]}</Badge>
                  </div>
                  {d.fields.map((f) => (
                    <div key={f.field} className="audit-small">
                      <b>{f.field}</b>: live <span className="audit-before">{showValue(f.live)}</span>, replayed <span className="audit-after">{showValue(f.replayed)}</span>
                    </div>
                  ))}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
