import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { auditReason, type TimelineEntry } from '@oj/contracts/audit';
import { PageHeader } from '@/components/layout/page-header.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Badge } from '@/components/ui/badge.tsx';
import { Button } from '@/components/ui/button.tsx';
import { FormField, TextArea } from '@/components/ui/form-field.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { useTabs, type TabItem } from '@/components/ui/tabs.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { restoreShape } from '@/lib/session-drafts.ts';
import { useKeptInput } from '@/features/auth/hooks/use-kept-input.ts';
import { RoleGate } from '@/features/auth/components/role-gate.tsx';
import { overviewQuery, type AsOfTarget } from '../api/audit-api.ts';
import { AsOfPanel } from '../components/as-of-panel.tsx';
import { ExportPanel } from '../components/export-panel.tsx';
import { saveReason, savedReason } from '../components/reason.ts';
import { TimelinePanel } from '../components/timeline-panel.tsx';
import { VerifyPanel } from '../components/verify-panel.tsx';
import { utc } from '../components/labels.ts';
import { timelineAddressOf, withTimelineAddress } from '../utils/timeline-address.ts';
import { asOfTargetOf, sameParameters, tabOf, withAsOfTarget, withTab, type AuditTab } from '../utils/view-address.ts';
import '../components/support.css';

const tabs: readonly TabItem<AuditTab>[] = [
  { id: 'timeline', label: 'Timeline' },
  { id: 'as-of', label: 'As of' },
  { id: 'verify', label: 'Verify' },
  { id: 'export', label: 'Export' },
];

/**
 * Asks why the history is opened; nothing of the user's history is read before. Asked again ("Change
 * reason"), it starts from the current reason, and Cancel or Escape keeps it (QA: the reason was
 * forgotten at once, with no way back).
 */
function ReasonGate({ uid, onReason, current = null, onCancel }: { uid: string; onReason: (r: string) => void; current?: string | null; onCancel?: () => void }) {
  const [text, setText] = useState(current ?? '');
  // A reason typed as the session runs out is here again after the sign-in, not to be typed twice.
  const restored = useKeptInput(
    `audit-reason:${uid}`,
    () => (text.trim() === '' || text === current ? undefined : { text }),
    (kept) => setText(restoreShape({ text: '' }, kept).text),
  );
  const [touched, setTouched] = useState(false);
  const parsed = auditReason.safeParse(text);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (parsed.success) onReason(parsed.data);
  };
  const escape = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || !onCancel) return;
    e.preventDefault();
    onCancel();
  };
  return (
    <section className="card audit-gate" aria-label="Reason for access" onKeyDown={escape}>
      <h2 className="card-title">{current ? 'Why are you reading this history now?' : 'Why are you opening this history?'}</h2>
      <p className="muted">
        The reason is recorded with every read, together with your name and the request id. The trader sees it under “Access to your journal” on their profile.
      </p>
      {restored && <Alert tone="info">Your session ended while you were typing this reason. What you had typed is back: check it, then submit it.</Alert>}
      <form onSubmit={submit}>
        <FormField label="Reason" required error={touched && !parsed.success ? (parsed.error.issues[0]?.message ?? null) : null} hint="For example a ticket number and what it is about.">
          {({ id, describedBy, invalid }) => (
            <TextArea
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              rows={2}
              value={text}
              onChange={(e) => setText(e.target.value)}
              placeholder="Ticket 4711: the May premium total looks wrong"
              autoFocus
            />
          )}
        </FormField>
        <div className="audit-gate-actions">
          <Button type="submit">{current ? 'Use this reason' : 'Open history'}</Button>
          {onCancel && (
            <Button type="button" variant="ghost" onClick={onCancel}>
              Cancel
            </Button>
          )}
        </div>
      </form>
    </section>
  );
}

/** One user's history for an audit: timeline, as-of views, diffs, Verify and exports. */
export function SupportUserRoute() {
  return (
    <RoleGate roles={['Support', 'Admin']} title="Support staff only" description="Audit replay is for support staff and administrators; every read is recorded in the access log.">
      <SupportUser />
    </RoleGate>
  );
}

function SupportUser() {
  const { uid = '' } = useParams();
  const [reason, setReason] = useState<string | null>(() => savedReason(uid));
  // The tab and the as-of view live in the address beside the timeline's filters and page (`?tab=as-of&
  // asof_event=…`), so a reload, Back or a link pasted into a ticket shows the same view, after the reason.
  // Each change is pushed, as the timeline's pages are: Back undoes the last step on this screen, whether
  // it was a page, a tab or another as-of point.
  const [params, setParams] = useSearchParams();
  const tab = tabOf(params);
  const asOf = asOfTargetOf(params);
  // The same view again (the tab already selected) is no step to go Back over.
  const go = (next: URLSearchParams) => {
    if (!sameParameters(next, params)) setParams(next);
  };
  const { tabList, panelProps } = useTabs(tabs, tab, (t) => go(withTab(params, t)));
  const setAsOf = (t: AsOfTarget) => go(withAsOfTarget(params, t));
  // What the screen could not read from the address (a hand-edited or stale link) leaves it, so the address
  // says what is shown. One effect for the whole address: two would each replace it from the same render,
  // and the last would put back what the first removed.
  const readable = withTab(withAsOfTarget(withTimelineAddress(params, timelineAddressOf(params)), asOf), tab);
  const clean = sameParameters(readable, params);
  const readableSearch = readable.toString();
  useEffect(() => {
    if (!clean) setParams(new URLSearchParams(readableSearch), { replace: true });
  }, [clean, readableSearch, setParams]);
  const overview = useQuery({ ...overviewQuery(uid, reason ?? ''), enabled: reason !== null });
  // "Change reason" asks again, from the current one; the history shows again only once it is given or kept.
  const [changing, setChanging] = useState(false);
  // Where keyboard focus goes once the next render is on screen: the element that had it is gone (the
  // reason form, a timeline row's As of button in a panel now hidden), and focus fell to <body> (QA).
  const focusNext = useRef<'summary' | 'as-of' | 'change-reason' | null>(null);
  const summaryRef = useRef<HTMLElement>(null);
  const asOfRef = useRef<HTMLElement>(null);
  const changeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const want = focusNext.current;
    if (!want) return;
    const target = want === 'summary' ? summaryRef.current : want === 'as-of' ? asOfRef.current : changeRef.current;
    if (target) {
      focusNext.current = null;
      target.focus();
    } else if (want === 'summary' && overview.isError) {
      // No summary to land on: the header's Change reason, beside the error.
      focusNext.current = null;
      changeRef.current?.focus();
    }
  });

  const crumbs = [{ label: 'Home', to: '/dashboard' }, { label: 'Audit replay', to: '/support/users' }, { label: overview.data?.user.name ?? 'History' }];
  if (reason === null || changing) {
    return (
      <>
        <PageHeader title="Audit replay" breadcrumb={crumbs} />
        <ReasonGate
          uid={uid}
          current={changing ? reason : null}
          onCancel={
            changing
              ? () => {
                  setChanging(false);
                  focusNext.current = 'change-reason';
                }
              : undefined
          }
          onReason={(r) => {
            saveReason(uid, r);
            setReason(r);
            setChanging(false);
            focusNext.current = 'summary';
          }}
        />
      </>
    );
  }
  // One step: the As of tab right after the row's event (Back returns to the row's page of the timeline).
  const showAsOf = (e: TimelineEntry) => {
    focusNext.current = 'as-of';
    go(withTab(withAsOfTarget(params, { event: e.position, ...(asOf?.formulas ? { formulas: asOf.formulas } : {}) }), 'as-of'));
  };
  const o = overview.data;
  return (
    <>
      <PageHeader
        title={o ? `History of ${o.user.name}` : 'Audit replay'}
        breadcrumb={crumbs}
        actions={
          <Button ref={changeRef} variant="ghost" size="sm" onClick={() => setChanging(true)}>
            Change reason
          </Button>
        }
      />
      {overview.isPending && <Spinner label="Opening the history" />}
      {overview.isError && (
        <Alert tone="danger">
          {errorMessage(overview.error, 'The history could not be opened.')} <Link to="/support/users">Find another user</Link>
        </Alert>
      )}
      {o && (
        <>
          <section className="card audit-summary" aria-label="User" ref={summaryRef} tabIndex={-1}>
            <div className="audit-summary-user">
              <div className="audit-user-name">
                {o.user.name} {o.user.role !== 'User' && <Badge tone="primary">{o.user.role}</Badge>}
              </div>
              <div className="muted">
                {o.user.email}
                {o.user.username ? ` · @${o.user.username}` : ''}
              </div>
              <code className="audit-mono muted">{o.user.uid}</code>
            </div>
            <dl className="audit-summary-facts">
              <div>
                <dt>Events</dt>
                <dd>{o.events.toLocaleString('en-US')}</dd>
              </div>
              <div>
                <dt>Lineages</dt>
                <dd>{o.lineages.toLocaleString('en-US')}</dd>
              </div>
              <div>
                <dt>First event</dt>
                <dd>{o.first_event_at ? utc(o.first_event_at) : '—'}</dd>
              </div>
              <div>
                <dt>Last event</dt>
                <dd>{o.last_event_at ? utc(o.last_event_at) : '—'}</dd>
              </div>
            </dl>
            <div className="audit-reason" role="note">
              <span className="audit-eyebrow">Reason, recorded with every read</span>
              <span>{reason}</span>
            </div>
          </section>
          {tabList({ label: 'Audit views', className: 'audit-tabs', tabClassName: 'audit-tab' })}
          {/* The timeline stays mounted: its filters and page survive a look at another tab. */}
          <div {...panelProps('timeline')}>
            <TimelinePanel uid={uid} reason={reason} onAsOf={showAsOf} />
          </div>
          <div {...panelProps('as-of')}>{tab === 'as-of' && <AsOfPanel uid={uid} reason={reason} target={asOf} onTarget={setAsOf} formulasVersions={o.formulas_versions} regionRef={asOfRef} />}</div>
          <div {...panelProps('verify')}>{tab === 'verify' && <VerifyPanel uid={uid} reason={reason} />}</div>
          <div {...panelProps('export')}>{tab === 'export' && <ExportPanel uid={uid} reason={reason} />}</div>
        </>
      )}
    </>
  );
}
