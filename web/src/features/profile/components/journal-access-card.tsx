import type { AccessView } from '@oj/contracts/audit';
import { Alert } from '@/components/ui/alert.tsx';
import { Badge } from '@/components/ui/badge.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { formatDateTime } from '@/lib/format.ts';
import { useJournalAccess } from '../api/get-journal-access.ts';

const viewText: Record<AccessView, string> = {
  overview: 'opened your history',
  timeline: 'read your timeline',
  'as-of': 'looked at your journal as of a past point',
  diff: 'looked at what one change did',
  verify: 'checked your figures against your history',
  export: 'exported your history',
  profile: 'looked up your profile',
};

/**
 * Access to your journal: every time support staff opened this trader's history, with their name, the
 * reason they gave and what they looked at. Consecutive reads of one visit (same person, same reason)
 * are shown as one line with the count, so a long audit does not bury the list.
 */
export function JournalAccessCard() {
  const access = useJournalAccess();
  const visits: Array<{ at: string; by: string; role: string; reason: string; views: AccessView[]; reads: number }> = [];
  for (const a of access.data?.items ?? []) {
    const last = visits.at(-1);
    if (last && last.by === a.by && last.reason === a.reason) {
      last.reads += 1;
      if (!last.views.includes(a.view)) last.views.push(a.view);
      continue;
    }
    visits.push({ at: a.at, by: a.by, role: a.role, reason: a.reason, views: [a.view], reads: 1 });
  }
  return (
    <section className="card" aria-labelledby="journal-access-title">
      <h2 id="journal-access-title" className="card-title">
        Access to your journal
      </h2>
      {access.isError && <Alert tone="danger">{errorMessage(access.error, 'Could not load who accessed your journal.')}</Alert>}
      {access.isPending && <p className="muted">Loading…</p>}
      {access.data && visits.length === 0 && <p className="muted">Nobody from support has opened your trade history.</p>}
      {visits.length > 0 && (
        <ul style={{ listStyle: 'none', margin: 0, padding: 0, display: 'grid', gap: 'var(--space-3)' }} aria-label="Accesses to your journal">
          {visits.map((v) => (
            <li key={`${v.at}-${v.by}`} style={{ display: 'grid', gap: 2, paddingBottom: 'var(--space-3)', borderBottom: '1px solid var(--color-border)' }}>
              <div>
                <strong>{v.by}</strong> <Badge tone="primary">{v.role}</Badge> <span className="muted">{formatDateTime(v.at)}</span>
              </div>
              <div>Reason: “{v.reason}”</div>
              <div className="muted">
                {v.views.map((x) => viewText[x]).join(', ')}
                {v.reads > 1 ? ` (${v.reads} reads)` : ''}
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
