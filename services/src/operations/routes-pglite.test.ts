import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { readRegistry } from '@oj/projections/runtime/registry';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';
import { appendPremiums, figuresProjection, visible } from './testing.ts';

/** Embedded mode (PGlite, one process): the console's rebuild, diff, switch, rollback, retire and log. */
let t: TestApp;
let operator: { authorization: string; email: string };
beforeAll(async () => {
  t = await createTestApp({ pglite: true });
  operator = await signInAs(t, { role: 'Operator' });
});
afterAll(async () => {
  await t?.close();
});

const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
  t.app.inject({ method, url: `/api/v1${url}`, headers: { authorization: operator.authorization }, ...(payload ? { payload } : {}) });

async function settled(id: string) {
  for (let i = 0; i < 400; i++) {
    const r = (await call('GET', '/operations/live')).json().rebuilds.find((x: { id: string }) => x.id === id);
    if (r && (r.phase === 'done' || r.phase === 'failed')) return r;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`rebuild ${id} did not finish`);
}

describe('projections console on PGlite', () => {
  it('rebuilds beside live, diffs by figure, switches, rolls back and retires', async () => {
    const [A, B] = [randomUUID(), randomUUID()];
    await appendPremiums(t.deps.eventStore, A, 'l1', [30, 30]); // 60: changes with v2
    await appendPremiums(t.deps.eventStore, A, 'l2', [10]);
    await appendPremiums(t.deps.eventStore, B, 'l1', [99]); // changes
    await visible(t.deps.eventStore, 4);
    t.deps.projections = [figuresProjection(1)];
    expect((await call('POST', '/operations/projections/ops_figures/rebuild', { switch: true })).statusCode).toBe(202);
    expect((await settled('rebuild-ops_figures')).phase).toBe('done');

    t.deps.projections = [figuresProjection(2)];
    expect((await call('POST', '/operations/projections/ops_figures/rebuild', {})).statusCode).toBe(202);
    expect(await settled('rebuild-ops_figures')).toMatchObject({ phase: 'done', version: 2, eventsDone: 4, eventsTotal: 4 });
    const diff = (await call('GET', '/operations/projections/ops_figures/diff')).json();
    expect(diff.figures.map((f: Record<string, unknown>) => [f.table, f.column, f.rowsChanged, f.users, f.largestDelta])).toEqual([['stream_figures', 'ror', 2, 2, 1.5]]);
    expect(diff.otherBehind).toBe(0);

    expect((await call('POST', '/operations/projections/ops_figures/switch', { version: 2 })).statusCode).toBe(200);
    expect((await call('POST', '/operations/projections/ops_figures/rollback', { version: 1, from: 2 })).statusCode).toBe(200);
    // A second confirm of the same rollback (another tab) finds v1 live: refused, and v1 stays live.
    const stale = await call('POST', '/operations/projections/ops_figures/rollback', { version: 1, from: 2 });
    expect([stale.statusCode, stale.json().message]).toEqual([409, 'ops_figures is no longer at v2: v1 is live now. Reload the console and choose again.']);
    expect((await readRegistry(t.deps.database.db, 'ops_figures')).map((r) => [r.version, r.status])).toEqual([[1, 'live'], [2, 'retired']]);
    // Two at once (one process, one connection): one rolls forward to v2, the other is refused.
    const both = await Promise.all([0, 1].map(() => call('POST', '/operations/projections/ops_figures/rollback', { version: 2, from: 1 })));
    expect(both.map((r) => r.statusCode).sort(), both.map((r) => r.body).join('\n')).toEqual([200, 409]);
    expect((await readRegistry(t.deps.database.db, 'ops_figures')).map((r) => [r.version, r.status])).toEqual([[1, 'retired'], [2, 'live']]);
    // A build abandoned twice at once: dropped once, the other refused.
    expect((await call('POST', '/operations/projections/ops_figures/rebuild', {})).statusCode).toBe(202);
    expect(await settled('rebuild-ops_figures')).toMatchObject({ phase: 'done', version: 3 });
    const abandons = await Promise.all([0, 1].map(() => call('POST', '/operations/projections/ops_figures/abandon', { version: 3 })));
    expect(abandons.map((r) => r.statusCode).sort(), abandons.map((r) => r.body).join('\n')).toEqual([200, 409]);
    // What became of it is said once the other abandon's entry is in the log, which races with this answer.
    expect(abandons.find((r) => r.statusCode === 409)!.json().message).toMatch(/^ops_figures v3 is no longer building: it (was abandoned|is gone \(abandoned, or retired for good\))\. Reload the console and choose again\.$/);
    expect((await call('POST', '/operations/projections/ops_figures/retire', { version: 1 })).json().message).toBe('Retired ops_figures v1: tables dropped, no rollback to it.');
    expect((await readRegistry(t.deps.database.db, 'ops_figures')).map((r) => [r.version, r.status])).toEqual([[2, 'live']]);
    const logged = (await call('GET', '/operations/actions')).json().actions as Array<{ action: string; outcome: string; actorRole: string; version: number | null; message: string }>;
    // How each console rebuild ended: an entry of its own, appended as it ends (QA: only "started … ok").
    expect(logged.filter((a) => a.actorRole === 'system').map((a) => [a.action, a.outcome, a.version, a.message.replace(/ \(asked for by [^)]+\)/, '').replace(/ \(\d+ events\)/, '')]).reverse()).toEqual([
      ['rebuild', 'ok', 1, 'Rebuild of ops_figures v1 ended: built and switched: now live.'],
      ['rebuild', 'ok', 2, 'Rebuild of ops_figures v2 ended: built beside the live version, not switched: compare, then switch or abandon it.'],
      ['rebuild', 'ok', 3, 'Rebuild of ops_figures v3 ended: built beside the live version, not switched: compare, then switch or abandon it.'],
    ]);
    const actions = logged.filter((a) => a.actorRole !== 'system');
    expect(actions.map((a: { action: string; outcome: string }) => `${a.action}:${a.outcome}`).reverse().map((a: string) => a.replace(/^(rollback|abandon):(ok|refused)$/, '$1'))).toEqual([
      'rebuild:ok', 'rebuild:ok', 'switch:ok', 'rollback', 'rollback', 'rollback', 'rollback', 'rebuild:ok', 'abandon', 'abandon', 'retire:ok',
    ]);
    expect(actions.filter((a: { outcome: string }) => a.outcome === 'refused').map((a: { action: string }) => a.action).sort()).toEqual(['abandon', 'rollback', 'rollback']);
    await expect(sql`delete from operator_actions`.execute(t.deps.database.db)).rejects.toThrow(/append-only/);
  });
});
