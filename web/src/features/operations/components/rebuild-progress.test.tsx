import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { RebuildState } from '@oj/contracts/operations';
import { RebuildProgress } from './rebuild-progress.tsx';

const base: RebuildState = {
  id: 'rebuild-trades',
  projection: 'trades',
  userId: null,
  userEmail: null,
  switch: false,
  version: 7,
  phase: 'building',
  eventsDone: 1200,
  eventsTotal: 4000,
  rate: 850.4,
  etaSeconds: 3.3,
  changes: null,
  error: null,
  requestedBy: 'olga@example.com',
  startedAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
  runner: 'bullmq',
};

const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();

describe('rebuild progress panel', () => {
  it('shows phase, events done of total, rate, ETA and the bar mid-build', () => {
    const html = renderToStaticMarkup(<RebuildProgress rebuild={base} />);
    expect(html).toContain('data-phase="building"');
    expect(html).toContain('aria-valuenow="30"');
    expect(html).toContain('width:30%');
    expect(text(html)).toContain('Building Rebuild v7 · beside live');
    expect(text(html)).toContain('Events 1,200 / 4,000');
    expect(text(html)).toContain('Rate 850 ev/s');
    expect(text(html)).toContain('ETA 4s');
    expect(text(html)).toContain('Runner projector job');
  });

  it('never shows more events done than in all: the total is the log when it started, later events are folded too (QA: 5,736 / 5,709)', () => {
    expect(text(renderToStaticMarkup(<RebuildProgress rebuild={{ ...base, phase: 'finishing', eventsDone: 5736, eventsTotal: 5709 }} />))).toContain('Events 5,736 / 5,736');
  });

  it('shows a failure with its error, and a one-user rebuild without a bar', () => {
    expect(text(renderToStaticMarkup(<RebuildProgress rebuild={{ ...base, phase: 'failed', error: 'A rebuild of trades is already running' }} />))).toContain(
      'Failed Rebuild v7 · beside live',
    );
    const user = renderToStaticMarkup(<RebuildProgress rebuild={{ ...base, userId: '0197aaaa-0000-7000-8000-000000000000', phase: 'done', eventsDone: 42 }} />);
    expect(user).not.toContain('role="progressbar"');
    expect(text(user)).toContain('Rebuild user 0197aaaa-0000-7000-8000-000000000000');
    expect(text(user)).toContain('Events 42');
  });

  it('says where a finished build stands now, by the status the page polls', () => {
    const done = { ...base, phase: 'done' as const, eventsDone: 4000 };
    // QA: "Done · Rebuild v104 · beside live" stayed after v104 went live (a switch, then rollbacks).
    expect(text(renderToStaticMarkup(<RebuildProgress rebuild={done} versionStatus="live" />))).toContain('Done Rebuild v7 · now live');
    expect(text(renderToStaticMarkup(<RebuildProgress rebuild={{ ...done, switch: true }} versionStatus="live" />))).toContain('Done Rebuild v7 · now live');
    expect(text(renderToStaticMarkup(<RebuildProgress rebuild={done} versionStatus="building" />))).toContain('Done Rebuild v7 · beside live');
    expect(text(renderToStaticMarkup(<RebuildProgress rebuild={done} versionStatus="retired" />))).toContain('Done Rebuild v7 · retired since');
    // Still running: what it will do when built, whatever the registry says yet.
    expect(text(renderToStaticMarkup(<RebuildProgress rebuild={{ ...base, switch: true }} versionStatus="building" />))).toContain('Building Rebuild v7 · switches when built');
  });

  it('names a one-user recompute asked for by e-mail by that e-mail, with the id', () => {
    const id = '0197aaaa-0000-7000-8000-000000000000';
    const html = renderToStaticMarkup(<RebuildProgress rebuild={{ ...base, userId: id, userEmail: 'tom.trader@example.com', phase: 'done', eventsDone: 42 }} />);
    expect(text(html)).toContain(`Rebuild user tom.trader@example.com (${id})`);
  });

  it('says what a finished one-user recompute wrote', () => {
    const none = { inserted: 0, updated: 0, deleted: 0 };
    const user = { ...base, userId: 'u-1', phase: 'done' as const, eventsDone: 42 };
    const right = renderToStaticMarkup(<RebuildProgress rebuild={{ ...user, changes: { trades: none, daily_premium: none, stream_revisions: none } }} />);
    expect(text(right)).toContain('Every row was right, nothing written.');
    const repaired = renderToStaticMarkup(
      <RebuildProgress rebuild={{ ...user, changes: { trades: { inserted: 0, updated: 1, deleted: 1 }, daily_premium: { inserted: 2, updated: 0, deleted: 0 }, stream_revisions: none } }} />,
    );
    expect(text(repaired)).toContain('Rows written: trades 1 replaced, 1 removed; daily_premium 2 added.');
  });
});
