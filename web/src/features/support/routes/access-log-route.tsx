import { useState } from 'react';
import { Link } from 'react-router';
import { PageHeader } from '@/components/layout/page-header.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Badge } from '@/components/ui/badge.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { RoleGate } from '@/features/auth/components/role-gate.tsx';
import { useAccessLog } from '../api/audit-api.ts';
import { utc } from '../components/labels.ts';
import '../components/support.css';

/** Admin: every read of a user's history by support staff, newest first. Append-only: nothing here edits it. */
export function AccessLogRoute() {
  return (
    <RoleGate roles={['Admin']} title="Administrators only" description="The access log of audit replays is read by administrators.">
      <AccessLog />
    </RoleGate>
  );
}

function AccessLog() {
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const log = useAccessLog(cursors.at(-1) ?? null, null);
  return (
    <>
      <PageHeader
        title="Access log"
        description="Who opened whose history, why, what they looked at or exported, and the export's SHA-256. Kept in the event store; no screen or route changes it."
        breadcrumb={[{ label: 'Home', to: '/dashboard' }, { label: 'Audit replay', to: '/support/users' }, { label: 'Access log' }]}
      />
      <section className="card audit-panel" aria-label="Access log">
        {log.isPending && <Spinner label="Reading the access log" />}
        {log.isError && <Alert tone="danger">{errorMessage(log.error, 'The access log could not be read.')}</Alert>}
        {log.data && (
          <>
            <div className="audit-table-wrap audit-cards-wrap">
              <table className="audit-table audit-access-log phone-cards">
                <thead>
                  <tr>
                    <th scope="col">When (UTC)</th>
                    <th scope="col">Staff</th>
                    <th scope="col">Whose history</th>
                    <th scope="col">Reason</th>
                    <th scope="col">What</th>
                    <th scope="col">Request · digest</th>
                  </tr>
                </thead>
                <tbody>
                  {log.data.items.length === 0 && (
                    <tr>
                      <td colSpan={6} className="muted">
                        Nobody has opened a history yet.
                      </td>
                    </tr>
                  )}
                  {log.data.items.map((a) => (
                    <tr key={a.id}>
                      {/* A date-time is read whole: never broken mid-hour (QA: "2026-12-05 1 / 7:04:18Z"). */}
                      <td data-label="When (UTC)" className="audit-mono audit-time audit-card-wide">
                        {utc(a.at)}
                      </td>
                      <td data-label="Staff">
                        {a.support.name} <Badge tone="primary">{a.support.role}</Badge>
                        <div className="muted audit-small">{a.support.email}</div>
                      </td>
                      <td data-label="Whose history">
                        <Link to={`/support/users/${a.target_uid}`}>{a.target_email}</Link>
                      </td>
                      <td data-label="Reason" className="audit-card-wide">
                        {a.reason}
                      </td>
                      <td data-label="What">
                        <Badge tone={a.view === 'export' ? 'warning' : 'neutral'}>{a.view}</Badge>
                        <div className="muted audit-small">{a.detail}</div>
                      </td>
                      <td data-label="Request · digest" className="audit-mono audit-small audit-card-wide">
                        <div>{a.request_id}</div>
                        {a.digest && <div className="audit-digest">sha256 {a.digest}</div>}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <div className="audit-pager">
              <Button size="sm" variant="secondary" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
                Newer
              </Button>
              <Button size="sm" variant="secondary" disabled={!log.data.next_cursor} onClick={() => setCursors((c) => [...c, log.data!.next_cursor])}>
                Older
              </Button>
            </div>
          </>
        )}
      </section>
    </>
  );
}
