import { useState, type FormEvent, type Ref } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { AsOfResponse } from '@oj/contracts/audit';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { Alert } from '@/components/ui/alert.tsx';
import { Badge } from '@/components/ui/badge.tsx';
import { Button } from '@/components/ui/button.tsx';
import { SelectInput, TextInput } from '@/components/ui/form-field.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { useBusinessToday } from '@/lib/business-day.ts';
import { asOfQuery, type AsOfTarget } from '../api/audit-api.ts';
import { money, shortId, statusNames, strategyName, utc } from './labels.ts';
import { StoredStateNote } from './stored-state-note.tsx';

function TradeTable({ title, items, total }: { title: string; items: TradeListItem[]; total: number }) {
  return (
    <section className="audit-list" aria-label={`${title} as of`}>
      <h4>
        {title} <Badge tone="neutral">{total.toLocaleString('en-US')}</Badge>
        {total > items.length && <span className="muted audit-small"> the {items.length} most recent shown</span>}
      </h4>
      {items.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <div className="audit-table-wrap audit-cards-wrap">
          <table className="audit-table audit-trade-table phone-cards">
            <thead>
              <tr>
                <th scope="col">Trade</th>
                <th scope="col">Ticker · strategy</th>
                <th scope="col">Strikes</th>
                <th scope="col" className="num">Contracts</th>
                <th scope="col">Opened</th>
                <th scope="col">Closed</th>
                <th scope="col" className="num">Premium open</th>
                <th scope="col" className="num">Premium close</th>
                <th scope="col" className="num">Net captured</th>
              </tr>
            </thead>
            <tbody>
              {items.map((t) => (
                <tr key={t.uid}>
                  <td data-label="Trade">
                    <code className="audit-mono" title={t.uid}>
                      {shortId(t.uid)}
                    </code>
                  </td>
                  <td data-label="Ticker · strategy">
                    <strong>{t.ticker}</strong> <span className="muted">{strategyName(t.su)}</span>
                    {t.status > 3 && <span className="muted"> · {statusNames[t.status]}</span>}
                  </td>
                  <td data-label="Strikes">{t.sp.join(' / ')}</td>
                  <td data-label="Contracts" className="num">
                    {t.cs}
                  </td>
                  <td data-label="Opened" className="audit-date">
                    {t.tod}
                  </td>
                  <td data-label="Closed" className="audit-date">
                    {t.tcd ?? '—'}
                  </td>
                  <td data-label="Premium open" className="num">
                    {money(t.pao)}
                  </td>
                  <td data-label="Premium close" className="num">
                    {money(t.pac)}
                  </td>
                  <td data-label="Net captured" className="num">
                    {money(t.npc)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Deepest indentation a branch of a roll tree gets (QA 74: a 60-roll chain made a phone's page 698 px wide). */
export const MAX_TREE_INDENT = 3;

/**
 * Where each node of a roll tree is drawn (nodes in walk order, each after its parent): a node's only
 * child (the next roll, or a remainder) stays at its indentation, so a chain reads down one column; the
 * children of a node with two or more are one level further in, up to `MAX_TREE_INDENT`. The tree's own
 * `depth` is the lineage depth, unbounded.
 */
export function rollTreeLayout(nodes: readonly { uid: string; parent: string | null }[]): { indent: number; hang: 'root' | 'chain' | 'branch' }[] {
  const childCount = new Map<string, number>();
  for (const n of nodes) if (n.parent !== null) childCount.set(n.parent, (childCount.get(n.parent) ?? 0) + 1);
  const indentOf = new Map<string, number>();
  return nodes.map((n) => {
    const parentIndent = n.parent === null ? undefined : indentOf.get(n.parent);
    const hang = n.parent === null || parentIndent === undefined ? 'root' : (childCount.get(n.parent) ?? 0) > 1 ? 'branch' : 'chain';
    const indent = parentIndent === undefined ? 0 : hang === 'branch' ? Math.min(parentIndent + 1, MAX_TREE_INDENT) : parentIndent;
    indentOf.set(n.uid, indent);
    return { indent, hang };
  });
}

// ↳ a branch's child; ↓ the only successor of the node above.
const arms = { root: null, chain: '↓ ', branch: '↳ ' } as const;

function RollTreeNodes({ nodes }: { nodes: AsOfResponse['roll_trees'][number]['nodes'] }) {
  const layout = rollTreeLayout(nodes);
  return (
    <ol>
      {nodes.map((n, i) => {
        const { indent, hang } = layout[i] ?? { indent: 0, hang: 'root' };
        const arm = arms[hang];
        return (
          <li key={n.uid} data-indent={indent} style={{ paddingLeft: `${indent * 20}px` }}>
            {arm && (
              <span className="audit-tree-arm" aria-hidden="true">
                {arm}
              </span>
            )}
            <code className="audit-mono">{shortId(n.uid)}</code> {n.contract_size} × {n.strike_prices.join('/')} exp {n.expiration_date} ·{' '}
            {n.split ? <Badge tone="warning">Split</Badge> : <Badge tone={n.status === 1 ? 'primary' : n.status === 3 ? 'info' : 'success'}>{statusNames[n.status]}</Badge>}{' '}
            <span className="muted">
              open {money(n.premium_at_open)}
              {n.premium_at_close !== null && ` · close ${money(n.premium_at_close)}`}
            </span>
          </li>
        );
      })}
    </ol>
  );
}

function Trees({ view }: { view: AsOfResponse }) {
  return (
    <div className="audit-trees">
      <section aria-label="Roll trees">
        <h4>Roll trees</h4>
        {view.roll_trees.length === 0 && <p className="muted">No roll or partial close yet.</p>}
        {view.roll_trees.map((tree) => (
          <div key={tree.lineage_id} className="audit-tree">
            <div className="audit-tree-head">
              <strong>{tree.ticker}</strong> <span className="muted">lineage {shortId(tree.lineage_id)}</span>
            </div>
            <RollTreeNodes nodes={tree.nodes} />
          </div>
        ))}
      </section>
      <section aria-label="Split trees">
        <h4>Split trees</h4>
        {view.split_trees.length === 0 && <p className="muted">No split yet.</p>}
        {view.split_trees.map((s) => (
          <div key={s.auid} className="audit-tree">
            <div className="audit-tree-head">
              <strong>{strategyName(s.su)}</strong> <code className="audit-mono">{shortId(s.auid)}</code> <span className="muted">{s.cause}</span>
            </div>
            <ol>
              {s.legs.map((l) => (
                <li key={l.uid} style={{ paddingLeft: '20px' }}>
                  <span className="audit-tree-arm" aria-hidden="true">↳ </span>
                  <code className="audit-mono">{shortId(l.uid)}</code> {strategyName(l.su)} {l.strike_prices.join('/')} ·{' '}
                  {l.status === null ? <span className="muted">deleted</span> : <Badge tone={l.status === 1 ? 'primary' : 'success'}>{statusNames[l.status]}</Badge>}
                </li>
              ))}
            </ol>
          </div>
        ))}
      </section>
    </div>
  );
}

/**
 * The journal as it stood right after an event or at the end of a New York date: the user's events
 * replayed on the server through the read models' own projection code, with the live or an older
 * registered formulas version, the trees focused on one trade's lineage if asked. `target` is the
 * address's (Back, a shared link): the date and trade fields follow it when it changes there.
 */
export function AsOfPanel({
  uid,
  reason,
  target,
  onTarget,
  formulasVersions,
  regionRef,
}: {
  uid: string;
  reason: string;
  target: AsOfTarget | null;
  onTarget: (t: AsOfTarget) => void;
  formulasVersions: number[];
  /** The view's region, focusable by script: "As of" on a timeline row moves keyboard focus here. */
  regionRef?: Ref<HTMLElement>;
}) {
  const today = useBusinessToday();
  const [date, setDate] = useState(target?.date ?? '');
  const [trade, setTrade] = useState(target?.trade ?? '');
  const [shown, setShown] = useState({ date: target?.date, trade: target?.trade });
  if (shown.date !== target?.date || shown.trade !== target?.trade) {
    setShown({ date: target?.date, trade: target?.trade });
    setDate(target?.date ?? '');
    setTrade(target?.trade ?? '');
  }
  const view = useQuery(asOfQuery(uid, reason, target));
  // A date given is the point; without one the event shown stays (the trade focus alone changes), or the latest state.
  const show = (e: FormEvent) => {
    e.preventDefault();
    const focus = trade.trim();
    const point = date ? { date } : target?.event ? { event: target.event } : {};
    onTarget({ ...point, ...(target?.formulas ? { formulas: target.formulas } : {}), ...(focus ? { trade: focus } : {}) });
  };
  const v = view.data;
  return (
    <section className="card audit-panel" aria-label="As of" ref={regionRef} tabIndex={-1}>
      <div className="audit-asof-bar">
        <form onSubmit={show} className="audit-asof-form">
          <label>
            <span>End of New York date</span>
            <TextInput type="date" value={date} max={today} onChange={(e) => setDate(e.target.value)} />
          </label>
          <label>
            <span>Formulas version</span>
            <SelectInput value={String(target?.formulas ?? formulasVersions.at(-1) ?? 1)} onChange={(e) => onTarget({ ...(target ?? {}), formulas: Number(e.target.value) })}>
              {formulasVersions.map((f) => (
                <option key={f} value={f}>
                  v{f}
                  {f === formulasVersions.at(-1) ? ' (live)' : ''}
                </option>
              ))}
            </SelectInput>
          </label>
          <label>
            <span>Trees of trade</span>
            <TextInput value={trade} onChange={(e) => setTrade(e.target.value)} placeholder="trade uid or #short id (all if empty)" maxLength={64} />
          </label>
          <Button type="submit" size="sm" disabled={!date && !trade.trim() && target === null}>
            Show
          </Button>
          <Button type="button" size="sm" variant="ghost" onClick={() => onTarget({})}>
            Latest
          </Button>
        </form>
        <p className="muted audit-small">Or pick “As of” on any timeline row to stand right after that event.</p>
      </div>
      {!target && <p className="muted">Choose an event in the timeline, a date, or the latest state.</p>}
      {view.isFetching && !v && <Spinner label="Replaying the journal" />}
      {view.isError && <Alert tone="danger">{errorMessage(view.error, 'The replay failed.')}</Alert>}
      {v && (
        <div className="audit-asof" aria-busy={view.isFetching}>
          <div className="audit-asof-point">
            {v.at ? (
              <>
                <div className="audit-eyebrow">Right after</div>
                <div className="audit-asof-sentence">{v.at.sentence}</div>
                <div className="muted audit-small">
                  {v.at.business_date} · {utc(v.at.recorded_at)} · {v.at.type} · event {v.events_replayed.toLocaleString('en-US')}
                </div>
              </>
            ) : (
              <div className="audit-asof-sentence">Before the first event</div>
            )}
            {v.date && <div className="muted audit-small">End of {v.date} (New York)</div>}
            <div className="muted audit-small">
              Replayed {v.events_replayed.toLocaleString('en-US')} events through the projection code, formulas v{v.formulas_version}, in {v.elapsed_ms} ms.
            </div>
            <StoredStateNote stored={v.stored_state} />
          </div>
          <div className="audit-stats">
            <div className="audit-stat">
              <span>Open</span>
              <strong>{v.counts.open.toLocaleString('en-US')}</strong>
            </div>
            <div className="audit-stat">
              <span>Closed</span>
              <strong>{v.counts.closed.toLocaleString('en-US')}</strong>
            </div>
            <div className="audit-stat">
              <span>Rolled</span>
              <strong>{v.counts.rolled.toLocaleString('en-US')}</strong>
            </div>
            <div className="audit-stat">
              <span>Net premium</span>
              <strong>{money(v.totals.net_premium)}</strong>
            </div>
            <div className="audit-stat">
              <span>Net captured</span>
              <strong>{money(v.totals.net_premium_captured)}</strong>
            </div>
            <div className="audit-stat">
              <span>Fees</span>
              <strong>{money(v.totals.fees)}</strong>
            </div>
          </div>
          <TradeTable title="Open" items={v.open} total={v.counts.open} />
          <TradeTable title="Closed" items={v.closed} total={v.counts.closed} />
          <TradeTable title="Rolled" items={v.rolled} total={v.counts.rolled} />
          <Trees view={v} />
          <section aria-label="Daily premium as of">
            <h4>Daily premium</h4>
            {v.daily_premium.length === 0 ? (
              <p className="muted">No premium day yet.</p>
            ) : (
              <div className="audit-table-wrap audit-cards-wrap">
                <table className="audit-table audit-trade-table phone-cards">
                  <thead>
                    <tr>
                      <th scope="col">Date</th>
                      <th scope="col" className="num">Net premium</th>
                      <th scope="col" className="num">Fees</th>
                      <th scope="col" className="num">Net captured</th>
                      <th scope="col" className="num">Opened</th>
                      <th scope="col" className="num">Closed</th>
                      <th scope="col" className="num">Wins</th>
                    </tr>
                  </thead>
                  <tbody>
                    {v.daily_premium.map((d) => (
                      <tr key={d.income_date}>
                        <td data-label="Date" className="audit-date audit-card-wide">
                          {d.income_date}
                        </td>
                        <td data-label="Net premium" className="num">
                          {money(d.np)}
                        </td>
                        <td data-label="Fees" className="num">
                          {money(d.nf)}
                        </td>
                        <td data-label="Net captured" className="num">
                          {money(d.npc)}
                        </td>
                        <td data-label="Opened" className="num">
                          {d.otc}
                        </td>
                        <td data-label="Closed" className="num">
                          {d.ctc}
                        </td>
                        <td data-label="Wins" className="num">
                          {d.iw}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </div>
      )}
    </section>
  );
}
