import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { errorMessage } from '@/lib/api-client.ts';
import { formatDateTime } from '@/lib/format.ts';
import { PageHeader } from '@/components/layout/page-header.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Badge } from '@/components/ui/badge.tsx';
import { Button } from '@/components/ui/button.tsx';
import { EmptyState } from '@/components/ui/empty-state.tsx';
import { Icon } from '@/components/ui/icons.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { RestrictedArea } from '@/features/auth/components/role-gate.tsx';
import { useSession } from '@/features/auth/hooks/use-session.ts';
import { useContactMessage, useContactMessages, useProfileChanges } from '../api/get-contact-messages.ts';
import { ChangeThumb } from '../components/change-thumb.tsx';
import '../components/contact.css';

const fieldLabels: Record<string, string> = { name: 'Name', username: 'Username', website: 'Website', avatar: 'Avatar', cover: 'Cover image' };

/** Pictures are shown as small thumbnails (their URL as the title); text values as text. */
function ChangeValue({ field, value }: { field: string; value: string | null }) {
  if (value === null) return <span className="muted">(none)</span>;
  if ((field === 'avatar' || field === 'cover') && value.startsWith('/api/v1/uploads/')) {
    return <ChangeThumb key={value} label={fieldLabels[field] ?? field} src={value} />;
  }
  return <>{value}</>;
}

function MessageReader({ id }: { id: string }) {
  const message = useContactMessage(id);
  const changes = useProfileChanges(message.data?.user_uid ?? null);
  if (message.isPending) return <Spinner label="Loading message..." />;
  if (message.isError) return <Alert tone="danger">{errorMessage(message.error, 'Failed to load the message.')}</Alert>;
  const m = message.data;
  return (
    <article className="message-reader" aria-label="Message">
      <h2 className="card-title">{m.subject}</h2>
      <dl className="details-grid">
        <dt>From</dt>
        <dd>
          {m.user_name} &lt;{m.user_email}&gt;
        </dd>
        <dt>User id</dt>
        <dd>
          <span className="mono">{m.user_uid}</span>{' '}
          {/* The reader's roles (Support, Admin) are audit replay's: the sender's history is one click away,
              behind its reason prompt (QA: the id had to be copied into Audit replay). */}
          <Link to={`/support/users/${m.user_uid}`} className="message-history-link">
            Open trade history
          </Link>
        </dd>
        <dt>Sent</dt>
        <dd>{formatDateTime(m.created_at)}</dd>
        <dt>Mailed to support</dt>
        <dd>{m.mailed ? <Badge tone="success">Yes</Badge> : <Badge tone="neutral">No (SUPPORT_EMAIL not set)</Badge>}</dd>
      </dl>
      {/* Plain text: whatever the user typed is shown as text, never as markup. */}
      <p className="message-body">{m.message}</p>
      <h3 className="message-subtitle">Profile changes of this user</h3>
      {changes.isPending ? (
        <Spinner size="sm" label="Loading changes..." />
      ) : changes.isError ? (
        <Alert tone="danger">{errorMessage(changes.error, 'Failed to load the profile changes.')}</Alert>
      ) : changes.data.length === 0 ? (
        <p className="muted">No profile changes.</p>
      ) : (
        <div className="profile-changes-scroll">
          <table className="profile-changes">
            <thead>
              <tr>
                <th>When</th>
                <th>Field</th>
                <th>Before</th>
                <th>After</th>
              </tr>
            </thead>
            <tbody>
              {changes.data.map((c, i) => (
                <tr key={`${c.changed_at}-${c.field}-${i}`}>
                  <td className="nowrap">{formatDateTime(c.changed_at)}</td>
                  <td>{fieldLabels[c.field] ?? c.field}</td>
                  <td>
                    <ChangeValue field={c.field} value={c.old_value} />
                  </td>
                  <td>
                    <ChangeValue field={c.field} value={c.new_value} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </article>
  );
}

/** A page number from the address: a whole number from 1, else the first page. */
function pageOf(raw: string | null): number {
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 && n <= 100_000 ? n : 1;
}

/** /admin/messages: contact messages for Admin and Support, newest first, with the sender's profile history. */
export function AdminMessagesRoute() {
  const session = useSession();
  const allowed = session.privilege === 'Admin' || session.privilege === 'Support';
  // The page and the message being read are in the address (`?page=2&message=…`), so a reload, Back or a
  // link pasted into a ticket opens the same message (QA: the address stayed /admin/messages).
  const [params, setParams] = useSearchParams();
  const page = pageOf(params.get('page'));
  const selected = params.get('message')?.trim() || null;
  const go = (to: { page?: number; message?: string | null }) =>
    setParams((p) => {
      const next = new URLSearchParams(p);
      const n = to.page ?? page;
      if (n > 1) next.set('page', String(n));
      else next.delete('page');
      const m = to.message === undefined ? selected : to.message;
      if (m) next.set('message', m);
      else next.delete('message');
      return next;
    });
  // Other roles never ask: the server would refuse them anyway (403).
  const list = useContactMessages(page, allowed);
  // A message chosen low in the list (or on a phone, where the reader is below it) is brought into view;
  // it opened out of sight before (QA).
  const readerRef = useRef<HTMLElement>(null);
  const [opened, setOpened] = useState(0);
  useEffect(() => {
    if (opened > 0) readerRef.current?.scrollIntoView({ block: 'nearest' });
  }, [opened]);
  const open = (id: string) => {
    go({ message: id });
    setOpened((n) => n + 1);
  };

  if (!allowed) {
    return <RestrictedArea title="Support staff only" description="Contact messages are read by administrators and support staff." />;
  }

  return (
    <>
      <PageHeader title="Messages" breadcrumb={[{ label: 'Admin' }, { label: 'Messages' }]} description="What users sent through Contact Us." />
      <div className="messages-layout">
        <section className="card messages-list" aria-label="Contact messages">
          {list.isPending ? (
            <Spinner label="Loading messages..." />
          ) : list.isError ? (
            <Alert tone="danger">{errorMessage(list.error, 'Failed to load messages.')}</Alert>
          ) : list.data.items.length === 0 && list.data.total > 0 ? (
            // A page past the last one (an old link, messages deleted since): not "no messages" (QA).
            <EmptyState
              icon={<Icon name="mail" size={26} />}
              title={`Page ${page} is past the last page (${list.data.pages}).`}
              action={
                <Button variant="secondary" size="sm" onClick={() => go({ page: list.data.pages })}>
                  Go to page {list.data.pages}
                </Button>
              }
            />
          ) : list.data.items.length === 0 ? (
            <EmptyState icon={<Icon name="mail" size={26} />} title="No messages yet" />
          ) : (
            <>
              <ul className="message-items">
                {list.data.items.map((m) => (
                  <li key={m.id}>
                    <button type="button" className={`message-item${selected === m.id ? ' active' : ''}`} aria-pressed={selected === m.id} onClick={() => open(m.id)}>
                      <span className="message-item-head">
                        <strong>{m.subject}</strong>
                        <span className="muted nowrap message-meta">{formatDateTime(m.created_at)}</span>
                      </span>
                      <span className="muted message-meta">{m.user_name} · {m.user_email}</span>
                      <span className="message-item-preview">{m.preview}</span>
                    </button>
                  </li>
                ))}
              </ul>
              <div className="messages-pager">
                <Button variant="secondary" size="sm" disabled={page <= 1} onClick={() => go({ page: page - 1 })}>
                  Previous
                </Button>
                <span className="muted message-meta">
                  Page {list.data.page} of {list.data.pages} · {list.data.total} {list.data.total === 1 ? 'message' : 'messages'}
                </span>
                <Button variant="secondary" size="sm" disabled={page >= list.data.pages} onClick={() => go({ page: page + 1 })}>
                  Next
                </Button>
              </div>
            </>
          )}
        </section>
        <section className="card messages-reader" ref={readerRef}>
          {selected ? <MessageReader id={selected} /> : <p className="muted">Choose a message to read it.</p>}
        </section>
      </div>
    </>
  );
}
