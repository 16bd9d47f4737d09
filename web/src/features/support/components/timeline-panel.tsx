import { Fragment, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { auditMessages, type TimelineEntry } from '@oj/contracts/audit';
import { Alert } from '@/components/ui/alert.tsx';
import { Badge } from '@/components/ui/badge.tsx';
import { Button } from '@/components/ui/button.tsx';
import { SelectInput, TextInput } from '@/components/ui/form-field.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { timelinePageQuery } from '../api/audit-api.ts';
import { emptyTimelineFilters, timelineAddressOf, withTimelineAddress, type TimelineAddress, type TimelineFilterState } from '../utils/timeline-address.ts';
import { sameParameters } from '../utils/view-address.ts';
import { EventDiff } from './event-diff.tsx';
import { eventLabels, eventTones, eventTypes, shortId, utc } from './labels.ts';

const PAGE = 50;

/**
 * Every event of the user in log order, keyset-paged (a page is read from a position, so a page deep in a
 * heavy user's 250,000 events costs what the first does). Each row opens its diff in place, or the as-of
 * view right after it. The applied filters and the page live in the address: each change is a step Back
 * undoes, and a reload or a shared link shows the same page (QA: a reload went back to page 1). The page is
 * one position, whatever its number: Previous reads back from the page's first event (QA 74: an address
 * with a cursor per page turned grew past what the server accepts).
 */
export function TimelinePanel({ uid, reason, onAsOf }: { uid: string; reason: string; onAsOf: (e: TimelineEntry) => void }) {
  const [params, setParams] = useSearchParams();
  const address = timelineAddressOf(params);
  const applied = address.filters;
  const appliedKey = JSON.stringify(applied);
  // What the timeline could not read from the address leaves it in the route, with the rest of the address.
  const [draft, setDraft] = useState<TimelineFilterState>(applied);
  // The form follows the address when the applied filters change there (Back, a trade chip); a page change
  // keeps what is typed but not applied yet. Apply and Clear show their filters at once (`go`): the address
  // they asked for is not followed again when it arrives, a moment later, so what is typed in that moment
  // stays (the fields were set back to what was applied).
  const [seenKey, setSeenKey] = useState(appliedKey);
  const [askedKey, setAskedKey] = useState<string | null>(null);
  if (seenKey !== appliedKey) {
    setSeenKey(appliedKey);
    setAskedKey(null);
    if (askedKey !== appliedKey) setDraft(applied);
  }
  const [open, setOpen] = useState<string | null>(null);
  const page = useQuery(timelinePageQuery(uid, reason, address, PAGE));
  // The same address again (Apply with nothing changed) is no step for Back to go over. New filters are
  // shown in the form at once, as the address will read them; a page turned leaves the form as typed.
  const go = (next: TimelineAddress) => {
    const to = withTimelineAddress(params, next);
    const asked = timelineAddressOf(to).filters;
    const key = JSON.stringify(asked);
    if (sameParameters(to, params)) return;
    if (key !== appliedKey) {
      setDraft(asked);
      setAskedKey(key);
    }
    setParams(to);
  };

  // The server refuses a From after the To (422): said beside the dates, and not sent.
  const rangeError = draft.from && draft.to && draft.from > draft.to ? auditMessages.dateRange : null;
  const apply = (e: FormEvent) => {
    e.preventDefault();
    if (rangeError) return;
    go({ filters: draft, page: null });
    setOpen(null);
  };
  const clear = () => go({ filters: emptyTimelineFilters, page: null });
  const set = (k: keyof TimelineFilterState) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.target.value }));
  // While another page or filter loads, the page shown is the last one: its pager is not this page's.
  const previous = page.isPlaceholderData ? null : (page.data?.previous ?? null);
  const next = page.isPlaceholderData ? null : (page.data?.next ?? null);

  return (
    <section className="card audit-panel" aria-label="Timeline">
      <form className="audit-filters" onSubmit={apply} aria-label="Timeline filters">
        <label>
          <span>Trade</span>
          <TextInput value={draft.trade} onChange={set('trade')} placeholder="trade uid" maxLength={64} />
        </label>
        <label>
          <span>Lineage</span>
          <TextInput value={draft.lineage} onChange={set('lineage')} placeholder="lineage id" maxLength={64} />
        </label>
        <label>
          <span>Event</span>
          <SelectInput value={draft.type} onChange={set('type')}>
            <option value="">Any event</option>
            {eventTypes.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </SelectInput>
        </label>
        <label>
          <span>From (NY date)</span>
          <TextInput type="date" value={draft.from} onChange={set('from')} />
        </label>
        <label>
          <span>To</span>
          <TextInput type="date" value={draft.to} onChange={set('to')} aria-invalid={rangeError !== null} aria-describedby={rangeError ? 'timeline-range-error' : undefined} />
        </label>
        <label>
          <span>Order</span>
          <SelectInput value={draft.direction} onChange={set('direction')}>
            <option value="forward">Oldest first</option>
            <option value="backward">Newest first</option>
          </SelectInput>
        </label>
        {rangeError && (
          <p className="field-error audit-filter-error" id="timeline-range-error" role="alert">
            {rangeError}
          </p>
        )}
        <div className="audit-filter-actions">
          <Button type="submit" size="sm" disabled={rangeError !== null}>
            Apply
          </Button>
          <Button type="button" size="sm" variant="ghost" onClick={clear}>
            Clear
          </Button>
        </div>
      </form>
      {page.isError && <Alert tone="danger">{errorMessage(page.error, 'The timeline could not be read.')}</Alert>}
      {page.isPending && <Spinner label="Reading the log" />}
      {page.data && (
        <>
          <div className="audit-page-info">
            <span>
              <strong>{page.data.total.toLocaleString('en-US')}</strong> events match · page {page.data.number} of {page.data.pages.toLocaleString('en-US')}
            </span>
            {page.isFetching && <Spinner size="sm" label="" />}
          </div>
          <div className="audit-table-wrap audit-timeline-wrap" aria-busy={page.isFetching}>
            <table className="audit-table audit-timeline">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Event</th>
                  <th scope="col">What happened</th>
                  <th scope="col">Who · command · request</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.data.items.length === 0 && (
                  <tr>
                    <td colSpan={5} className="muted">
                      No event matches these filters.
                    </td>
                  </tr>
                )}
                {page.data.items.map((e) => (
                  <Fragment key={e.position}>
                    <tr className={open === e.position ? 'audit-row-open' : undefined} data-event-type={e.type}>
                      <td className="audit-when">
                        <div>{e.business_date}</div>
                        <div className="muted audit-mono">{utc(e.recorded_at)}</div>
                      </td>
                      <td className="audit-event">
                        <Badge tone={eventTones[e.type] ?? 'neutral'}>{eventLabels[e.type] ?? e.type}</Badge>
                        <div className="muted audit-small">
                          {e.type} v{e.schema_version} · rev {e.revision}
                        </div>
                      </td>
                      <td className="audit-sentence">
                        <div>{e.sentence}</div>
                        <div className="audit-trades">
                          {e.trades.map((t) => (
                            <button key={t} type="button" className="audit-trade-chip" title={`Filter by trade ${t}`} onClick={() => go({ filters: { ...applied, trade: t }, page: null })}>
                              {shortId(t)}
                            </button>
                          ))}
                        </div>
                      </td>
                      <td className="audit-meta">
                        <div>{e.actor.label}</div>
                        <div className="muted">{e.command ?? '—'}</div>
                        <div className="muted audit-mono audit-small" title="Request id">
                          req {e.request_id}
                        </div>
                        {e.idempotency_key && (
                          <div className="muted audit-mono audit-small" title="Idempotency key">
                            key {e.idempotency_key}
                          </div>
                        )}
                      </td>
                      <td className="audit-actions">
                        <Button size="sm" variant={open === e.position ? 'primary' : 'secondary'} aria-expanded={open === e.position} onClick={() => setOpen(open === e.position ? null : e.position)}>
                          Diff
                        </Button>
                        <Button size="sm" variant="ghost" onClick={() => onAsOf(e)}>
                          As of
                        </Button>
                      </td>
                    </tr>
                    {open === e.position && (
                      <tr className="audit-diff-row">
                        <td colSpan={5}>
                          <EventDiff uid={uid} reason={reason} position={e.position} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                ))}
              </tbody>
            </table>
          </div>
          <div className="audit-pager">
            {/* While another page or filter loads, the rows shown are the last ones: their positions are not this page's.
                aria-disabled, not disabled: a focused button made disabled drops keyboard focus to <body>, and
                Enter on Next page left the next Tab on the footer (QA). A click while unavailable does nothing. */}
            <Button size="sm" variant="secondary" aria-disabled={!previous || undefined} onClick={() => previous && go(previous)}>
              Previous page
            </Button>
            <Button size="sm" variant="secondary" aria-disabled={!next || undefined} onClick={() => next && go(next)}>
              Next page
            </Button>
          </div>
        </>
      )}
    </section>
  );
}
