import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { PageHeader } from '@/components/layout/page-header.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Badge } from '@/components/ui/badge.tsx';
import { Button } from '@/components/ui/button.tsx';
import { FormField, TextInput } from '@/components/ui/form-field.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { formatDate } from '@/lib/format.ts';
import { useSession } from '@/features/auth/hooks/use-session.ts';
import { RoleGate } from '@/features/auth/components/role-gate.tsx';
import { useFindUsers } from '../api/audit-api.ts';
import '../components/support.css';

/** Support > Audit: find a user by e-mail, username or uid, then open the history (with a reason). */
export function SupportSearchRoute() {
  return (
    <RoleGate roles={['Support', 'Admin']} title="Support staff only" description="Audit replay is for support staff and administrators; every read is recorded in the access log.">
      <SupportSearch />
    </RoleGate>
  );
}

function SupportSearch() {
  const [term, setTerm] = useState('');
  const [query, setQuery] = useState<string | null>(null);
  const found = useFindUsers(query);
  const session = useSession();
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (term.trim()) setQuery(term.trim());
  };
  return (
    <>
      <PageHeader
        title="Audit replay"
        description="Replay a trader's journal event by event. Finding a user is not logged; opening their history asks for a reason and every read is recorded in the access log the trader can see."
        breadcrumb={[{ label: 'Home', to: '/dashboard' }, { label: 'Audit replay' }]}
        actions={session.user?.role === 'Admin' ? <Link to="/support/access-log" className="btn btn-secondary btn-md">Access log</Link> : undefined}
      />
      <section className="card audit-search" aria-label="Find a user">
        <form onSubmit={onSubmit} className="audit-search-form">
          <FormField label="E-mail, username or user id" hint="Exact match; e-mail and username ignore case.">
            {({ id, describedBy }) => <TextInput id={id} aria-describedby={describedBy} value={term} onChange={(e) => setTerm(e.target.value)} placeholder="trader@example.com" autoFocus />}
          </FormField>
          <Button type="submit" loading={found.isFetching} disabled={!term.trim()}>
            Find user
          </Button>
        </form>
        {found.isError && <Alert tone="danger">{errorMessage(found.error, 'The search failed.')}</Alert>}
        {found.data && found.data.users.length === 0 && <p className="muted">No user matches “{query}”.</p>}
        {found.data && found.data.users.length > 0 && (
          <ul className="audit-user-list" aria-label="Matching users">
            {found.data.users.map((u) => (
              <li key={u.uid}>
                <div>
                  <div className="audit-user-name">
                    {u.name} {u.role !== 'User' && <Badge tone="primary">{u.role}</Badge>}
                  </div>
                  <div className="muted">
                    {u.email}
                    {u.username ? ` · @${u.username}` : ''} · member since {formatDate(u.user_since.slice(0, 10))}
                  </div>
                  <code className="audit-mono">{u.uid}</code>
                </div>
                <Link className="btn btn-primary btn-md" to={`/support/users/${u.uid}`}>
                  Open history
                </Link>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
