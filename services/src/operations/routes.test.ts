import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { START, type EventStore } from '@oj/infra/eventstore/port';
import type { Projection } from '@oj/projections/runtime/projection';
import { applyLaneBatch } from '@oj/projections/runtime/apply';
import { laneOf } from '@oj/projections/runtime/lanes';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { countingProjection } from '@oj/projections/runtime/test-projection';
import { rebuild } from '@oj/projections/runtime/rebuild';
import { readRegistry } from '@oj/projections/runtime/registry';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';
import { migrate } from '../platform/migrations.ts';
import type { Principal } from '../app/principal.ts';
import { recordAction } from './actions.ts';
import { appendPremiums, visible, figuresProjection, rorV1, rorV2 } from './testing.ts';

let t: TestApp;
let database: TestDatabase;
let store: EventStore;
let admin: { authorization: string; email: string };
let operator: { authorization: string; email: string; userId: string };
let user: { authorization: string };
beforeAll(async () => {
  database = await createTestDatabase('operations_routes');
  await migrate(database.db);
  store = new PostgresEventStore(database);
  t = await createTestApp({ database, eventStore: store });
  admin = await signInAs(t, { role: 'Admin' });
  operator = await signInAs(t, { role: 'Operator' });
  user = await signInAs(t, { role: 'User' });
});
afterAll(async () => {
  await t?.close();
  await store?.close();
});

type Method = 'GET' | 'POST';
const call = (method: Method, url: string, authorization?: string, payload?: unknown) =>
  t.app.inject({ method, url: `/api/v1${url}`, ...(authorization ? { headers: { authorization } } : {}), ...(payload !== undefined ? { payload: payload as object } : {}) });

/** Waits until the console reports the rebuild `id` finished (the in-process runner of this gateway). */
async function settled(id: string) {
  for (let i = 0; i < 400; i++) {
    const live = (await call('GET', '/operations/live', operator.authorization)).json();
    const r = live.rebuilds.find((x: { id: string }) => x.id === id);
    if (r && (r.phase === 'done' || r.phase === 'failed')) return r;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`rebuild ${id} did not finish`);
}

/** What a lane does with the last event of the log: applies it to the live version with `code`. */
async function deliver(code: Projection, n: number) {
  await visible(store, n);
  const e = (await store.readAll({ after: START, limit: n + 1 })).at(-1)!;
  // ops_probe (the first test's read model) is live too: a lane applies a batch to every live version.
  await applyLaneBatch(database.db, [code, countingProjection({ name: 'ops_probe' })], { lane: laneOf(e.metadata.userId, t.config.PROJECTOR_LANES), prev: START, events: [e] });
}

const runtimeDeps = () => ({ database, eventStore: store, projections: t.deps.projections!, lanes: t.config.PROJECTOR_LANES });

describe('GET /operations/projections', () => {
  it('answers the registry, checkpoints and rebuilds to an Admin and an Operator', async () => {
    const projection = countingProjection({ name: 'ops_probe' });
    await rebuild({ database, eventStore: store, projections: [projection], lanes: 2 }, 'ops_probe');
    for (const who of [admin, operator]) {
      const res = await call('GET', '/operations/projections', who.authorization);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.transport).toBe('in-process');
      const probe = body.projections.find((p: { name: string }) => p.name === 'ops_probe');
      expect(probe.versions).toMatchObject([{ version: 1, status: 'live', tables: { stream_counts: 'stream_counts_v1', user_sequences: 'user_sequences_v1' }, counts: { stream_counts: 0, user_sequences: 0 } }]);
      expect(probe.versions[0].checkpoints).toHaveLength(2);
      expect(probe.rebuilds).toMatchObject([{ version: 1, eventsDone: 0 }]);
      expect(probe.warning).toBe('not in the running code catalogue');
    }
  });
});

describe('access', () => {
  const routes: Array<[Method, string, unknown?]> = [
    ['GET', '/operations/projections'],
    ['GET', '/operations/live'],
    ['GET', '/operations/stream'],
    ['GET', '/operations/actions'],
    ['GET', '/operations/projections/ops_figures/diff'],
    ['POST', '/operations/projections/ops_figures/rebuild', {}],
    ['POST', '/operations/projections/ops_figures/switch', { version: 1 }],
    ['POST', '/operations/projections/ops_figures/rollback', { version: 1 }],
    ['POST', '/operations/projections/ops_figures/retire', { version: 1 }],
    ['POST', '/operations/projections/ops_figures/abandon', { version: 1 }],
    ['POST', '/operations/queues-session'],
  ];
  it.each(routes)('%s %s: 401 without a token, 403 for a normal user', async (method, url, body) => {
    expect((await call(method, url, undefined, body)).statusCode).toBe(401);
    const res = await call(method, url, user.authorization, body);
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('You do not have permission to do this.');
  });

  it('the queues board session is Admin only; without REDIS_URL there is no board', async () => {
    expect((await call('POST', '/operations/queues-session', operator.authorization)).statusCode).toBe(403);
    const res = await call('POST', '/operations/queues-session', admin.authorization);
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toMatch(/needs REDIS_URL/);
    expect((await call('GET', '/operations/queues/', admin.authorization)).statusCode).toBe(404);
    expect((await call('GET', '/operations/live', admin.authorization)).json().queuesUrl).toBeNull();
  });

  it('nothing a normal user tried is in the operator log', async () => {
    const actions = (await call('GET', '/operations/actions', admin.authorization)).json().actions;
    expect(actions.filter((a: { actorRole: string }) => a.actorRole === 'User')).toEqual([]);
  });
});

describe('a formula change, rehearsed end to end', () => {
  // Hand-made journal: premiums per user and lineage. rorV2 differs from rorV1 for sums above 50.
  const A = randomUUID();
  const B = randomUUID();
  const C = randomUUID();
  const journal: Array<[string, string, number[]]> = [
    [A, 'l1', [20, 40]], // 60: changes
    [A, 'l2', [51]], // 51: changes
    [A, 'l3', [10]],
    [B, 'l1', [30]],
    [B, 'l2', [25, 30]], // 55: changes
    [C, 'l1', [70]], // 70: changes
    [C, 'l2', [5, 5]],
  ];
  const changed = [...journal].filter(([, , p]) => p.reduce((a, b) => a + b, 0) > 50);

  it('builds v1, rebuilds v2 beside it, diffs, switches, rolls back, switches again and retires', async () => {
    for (const [u, l, p] of journal) await appendPremiums(store, u, l, p);
    await visible(store, 10);
    t.deps.projections = [figuresProjection(1)];

    // v1: the first build of the read model, switched at once.
    let res = await call('POST', '/operations/projections/ops_figures/rebuild', operator.authorization, { switch: true });
    expect(res.statusCode).toBe(202);
    expect(res.json().rebuild).toMatchObject({ id: 'rebuild-ops_figures', projection: 'ops_figures', switch: true, runner: 'in-process' });
    expect((await settled('rebuild-ops_figures')).phase).toBe('done');
    expect((await readRegistry(database.db, 'ops_figures')).map((r) => [r.version, r.status])).toEqual([[1, 'live']]);

    // The code now has formulas v2. A rebuild killed after its first batch leaves v2 half built.
    t.deps.projections = [figuresProjection(2)];
    await expect(
      rebuild(runtimeDeps(), 'ops_figures', {
        batchSize: 3,
        switch: false,
        onProgress: (p) => {
          if (p.phase === 'building' && p.eventsDone > 0) throw new Error('killed');
        },
      }),
    ).rejects.toThrow('killed');
    // The page counts the half-built version now; those counts must not outlive the switch.
    expect((await call('GET', '/operations/projections', operator.authorization)).statusCode).toBe(200);
    res = await call('POST', '/operations/projections/ops_figures/switch', operator.authorization, { version: 2 });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe('ops_figures v2 is not fully built: its rebuild stopped at 3 of 10 events.');

    // The console resumes it beside the live version (no switch).
    res = await call('POST', '/operations/projections/ops_figures/rebuild', operator.authorization, {});
    expect(res.statusCode).toBe(202);
    const done = await settled('rebuild-ops_figures');
    expect(done).toMatchObject({ phase: 'done', version: 2, switch: false, eventsDone: 10, eventsTotal: 10 });
    expect((await readRegistry(database.db, 'ops_figures')).map((r) => [r.version, r.status])).toEqual([
      [1, 'live'],
      [2, 'building'],
    ]);

    // The diff shows exactly the changed figure: ror, in the four streams above 50, of three users.
    res = await call('GET', '/operations/projections/ops_figures/diff', operator.authorization);
    expect(res.statusCode).toBe(200);
    const diff = res.json();
    expect(diff).toMatchObject({ projection: 'ops_figures', live: { version: 1, codeVersion: 1 }, other: { version: 2, codeVersion: 2, status: 'building' }, identical: false, otherBehind: 0 });
    expect(diff.keyed).toEqual([{ table: 'stream_figures', key: ['stream_id'], matched: journal.length, onlyInLive: 0, onlyInOther: 0 }]);
    expect(diff.figures.map((f: Record<string, unknown>) => ({ ...f, samples: undefined }))).toEqual([
      { table: 'stream_figures', column: 'ror', rowsChanged: changed.length, users: new Set(changed.map(([u]) => u)).size, largestDelta: 1.5, samples: undefined },
    ]);
    expect(changed.length).toBe(4);
    const sums = (f: (p: number) => number) => changed.reduce((s, [, , p]) => s + f(p.reduce((a, b) => a + b, 0)), 0);
    expect(diff.figures[0].samples).toHaveLength(4);
    expect(diff.figures[0].samples.reduce((s: number, x: { live: number }) => s + x.live, 0)).toBeCloseTo(sums(rorV1), 9);
    expect(diff.figures[0].samples.reduce((s: number, x: { other: number }) => s + x.other, 0)).toBeCloseTo(sums(rorV2), 9);
    const table = diff.tables.find((x: { table: string }) => x.table === 'stream_figures');
    expect(table).toMatchObject({ rowsLive: 7, rowsOther: 7, onlyInLive: 4, onlyInOther: 4 });
    expect(table.totals.map((x: { column: string }) => x.column)).toEqual(['ror']);

    // Switch, and the impossible ones around it. Events appended after the build are caught up by it.
    // Meanwhile the lanes (still the v1 code of a rolling deploy) applied an event to the live v1.
    await appendPremiums(store, B, 'l3', [80]);
    await deliver(figuresProjection(1), 11);
    res = await call('POST', '/operations/projections/ops_figures/switch', admin.authorization, { version: 2 });
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe('ops_figures v2 is live; v1 is retired, kept for a rollback.');
    journal.push([B, 'l3', [80]]);
    const counts = async () =>
      (await call('GET', '/operations/projections', operator.authorization)).json().projections.find((p: { name: string }) => p.name === 'ops_figures').versions.map((v: { version: number; status: string; counts: unknown }) => [v.version, v.status, v.counts]);
    expect(await counts()).toEqual([
      [1, 'retired', { stream_figures: journal.length }],
      [2, 'live', { stream_figures: journal.length }],
    ]);
    expect((await call('POST', '/operations/projections/ops_figures/switch', operator.authorization, { version: 2 })).json().message).toBe('ops_figures v2 is already live.');
    expect((await call('POST', '/operations/projections/ops_figures/switch', operator.authorization, { version: 9 })).statusCode).toBe(404);
    res = await call('POST', '/operations/projections/ops_figures/switch', operator.authorization, { version: 'two' });
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toBe('Version must be a whole number.');
    res = await call('GET', '/operations/projections/ops_figures/diff', operator.authorization);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe('ops_figures has no building version to compare with.');
    expect((await call('POST', '/operations/projections/ops_figures/retire', operator.authorization, { version: 2 })).json().message).toBe(
      'ops_figures v2 is live: only a retired version can be retired.',
    );
    const ror = async (version: number) =>
      (await sql<{ ror: number }>`select ror from ${sql.table(`stream_figures_v${version}`)} order by ror`.execute(database.db)).rows.map((r) => r.ror);
    expect(await ror(2)).toEqual(journal.map(([, , p]) => rorV2(p.reduce((a, b) => a + b, 0))).sort((a, b) => a - b));

    // Rollback to v1: it must catch up with the event that came after it was retired, which only its
    // own formulas may do. With v2's code running that is refused; with v1's code deployed it works.
    await appendPremiums(store, C, 'l3', [90]);
    await deliver(figuresProjection(2), 12);
    journal.push([C, 'l3', [90]]);
    res = await call('POST', '/operations/projections/ops_figures/rollback', operator.authorization, { version: 1, from: 2 });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe('ops_figures v1 was built by formulas v1 and the code runs formulas v2: it cannot catch up. Rebuild instead.');
    t.deps.projections = [figuresProjection(1)];
    res = await call('POST', '/operations/projections/ops_figures/rollback', operator.authorization, { version: 1, from: 2 });
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe('ops_figures rolled back from v2 to v1.');
    expect((await readRegistry(database.db, 'ops_figures')).map((r) => [r.version, r.status])).toEqual([
      [1, 'live'],
      [2, 'retired'],
    ]);
    expect(await ror(1)).toEqual(journal.map(([, , p]) => rorV1(p.reduce((a, b) => a + b, 0))).sort((a, b) => a - b));
    t.deps.projections = [figuresProjection(2)];
    res = await call('POST', '/operations/projections/ops_figures/switch', operator.authorization, { version: 2 });
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe('ops_figures v2 is live again; v1 is retired, kept for a rollback.');
    // Row counts are the tables' own, for every version (one row per stream of the journal).
    const figures = (await call('GET', '/operations/projections', operator.authorization)).json().projections.find((p: { name: string }) => p.name === 'ops_figures');
    expect(figures.versions.map((v: { version: number; status: string; counts: unknown }) => [v.version, v.status, v.counts])).toEqual([
      [1, 'retired', { stream_figures: journal.length }],
      [2, 'live', { stream_figures: journal.length }],
    ]);
    expect(await ror(2)).toEqual(journal.map(([, , p]) => rorV2(p.reduce((a, b) => a + b, 0))).sort((a, b) => a - b));

    // One user, recomputed in the live version.
    await sql`update stream_figures_v2 set ror = -1 where user_id = ${A}`.execute(database.db);
    res = await call('POST', '/operations/projections/ops_figures/rebuild', operator.authorization, { userId: A });
    expect(res.statusCode).toBe(202);
    expect(await settled(`rebuild-ops_figures-user-${A}`)).toMatchObject({ phase: 'done', userId: A, eventsDone: 4 });
    // A's events were appended without an account: the answer says no account has the id, so a mistyped
    // id does not read like a healthy user. A real account's id gets no such note.
    expect(res.json().action.message).toMatch(/ No user account has this id\.$/);
    res = await call('POST', '/operations/projections/ops_figures/rebuild', operator.authorization, { userId: operator.userId });
    expect(res.statusCode).toBe(202);
    // Asked for by id: no e-mail is looked up for it (an Operator has no user lookup).
    expect(res.json().rebuild.userEmail).toBeNull();
    expect(await settled(`rebuild-ops_figures-user-${operator.userId}`)).toMatchObject({ userEmail: null });
    expect(res.json().action.message).not.toContain('No user account');
    // By e-mail (an Operator has no user lookup of its own): the same account, and an unknown e-mail refused.
    res = await call('POST', '/operations/projections/ops_figures/rebuild', operator.authorization, { userEmail: operator.email.toUpperCase() });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().rebuild).toMatchObject({ userId: operator.userId, userEmail: operator.email });
    expect(res.json().action.message).toMatch(new RegExp(`^Rebuild of ops_figures for user ${operator.email.replace(/[.]/g, '\\.')} \\(${operator.userId}\\): `));
    // The progress card names the user by it, as the operator searched (QA: it showed only the id).
    expect(await settled(`rebuild-ops_figures-user-${operator.userId}`)).toMatchObject({ userId: operator.userId, userEmail: operator.email });
    res = await call('POST', '/operations/projections/ops_figures/rebuild', operator.authorization, { userEmail: 'nobody.here@example.com' });
    expect([res.statusCode, res.json().message]).toEqual([404, 'No user account has this e-mail.']);
    res = await call('POST', '/operations/projections/ops_figures/rebuild', operator.authorization, { userEmail: operator.email, userId: A });
    expect([res.statusCode, res.json().message]).toEqual([422, 'Give a user id or an e-mail, not both.']);
    expect(await ror(2)).toEqual(journal.map(([, , p]) => rorV2(p.reduce((a, b) => a + b, 0))).sort((a, b) => a - b));

    // Retire v1: no rollback after that. The version is named: an empty body drops nothing.
    res = await call('POST', '/operations/projections/ops_figures/retire', operator.authorization, {});
    expect(res.statusCode).toBe(422);
    expect((await readRegistry(database.db, 'ops_figures')).map((r) => [r.version, r.status])).toEqual([[1, 'retired'], [2, 'live']]);
    res = await call('POST', '/operations/projections/ops_figures/retire', operator.authorization, { version: 1 });
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe('Retired ops_figures v1: tables dropped, no rollback to it.');
    expect((await readRegistry(database.db, 'ops_figures')).map((r) => [r.version, r.status])).toEqual([[2, 'live']]);
    res = await call('POST', '/operations/projections/ops_figures/rollback', operator.authorization, { version: 1 });
    expect(res.statusCode).toBe(409);
    // What became of v1 is known: the log has its retire (QA: "retired for good (or never built)").
    expect(res.json().message).toBe('ops_figures has no v1 to roll back to now: it was retired for good. Reload the console and choose again.');
    // The version is named: an empty body rolls nothing back.
    res = await call('POST', '/operations/projections/ops_figures/rollback', operator.authorization, {});
    expect(res.statusCode).toBe(422);
    expect((await call('POST', '/operations/projections/nope/rebuild', operator.authorization, {})).statusCode).toBe(404);
    // v3 was never handed out: said so (QA: "it is gone (abandoned, or retired for good)").
    expect((await call('POST', '/operations/projections/ops_figures/abandon', operator.authorization, { version: 3 })).json().message).toBe(
      'ops_figures has no v3: it was never built. Reload the console and choose again.',
    );

    // Every action is in the log, newest first, with who and the outcome.
    const actions = (await call('GET', '/operations/actions?limit=200', admin.authorization)).json().actions.filter((a: { projection: string }) => a.projection === 'ops_figures');
    expect(actions.map((a: { action: string; outcome: string; version: number | null; actorEmail: string }) => [a.action, a.outcome, a.version, a.actorEmail]).reverse()).toEqual([
      ['rebuild', 'ok', 1, operator.email],
      // How each rebuild ended is an entry of its own, after its request's (QA: only "started … ok").
      ['rebuild', 'ok', 1, 'rebuild runner'],
      ['switch', 'refused', 2, operator.email],
      ['rebuild', 'ok', 2, operator.email],
      ['rebuild', 'ok', 2, 'rebuild runner'],
      ['switch', 'ok', 2, admin.email],
      ['switch', 'refused', 2, operator.email],
      ['switch', 'refused', 9, operator.email],
      // Refused by the contract (422) is refused too (QA: not logged).
      ['switch', 'refused', null, operator.email],
      ['retire', 'refused', 2, operator.email],
      ['rollback', 'refused', 1, operator.email],
      ['rollback', 'ok', 1, operator.email],
      ['switch', 'ok', 2, operator.email],
      // One-user recomputes answered done: their entry says how they ended, no second one.
      ['rebuild-user', 'ok', 2, operator.email],
      ['rebuild-user', 'ok', 2, operator.email],
      ['rebuild-user', 'ok', 2, operator.email],
      // An unknown e-mail (404), and an id with an e-mail (422) (QA: not logged).
      ['rebuild-user', 'refused', null, operator.email],
      ['rebuild-user', 'refused', null, operator.email],
      ['retire', 'refused', null, operator.email],
      ['retire', 'ok', 1, operator.email],
      ['rollback', 'refused', 1, operator.email],
      ['rollback', 'refused', null, operator.email],
      ['abandon', 'refused', 3, operator.email],
    ]);
    const said = (i: number) => actions[actions.length - 1 - i].message;
    expect(said(1)).toMatch(new RegExp(`^Rebuild of ops_figures v1 \\(asked for by ${operator.email}\\) ended: built and switched: now live \\(\\d+ events\\)\\.$`));
    expect(said(4)).toMatch(/^Rebuild of ops_figures v2 \(asked for by .+\) ended: built beside the live version, not switched/);
    expect(said(8)).toBe('Invalid request (body.version): Version must be a whole number.');
    expect([said(16), said(17)]).toEqual(['User nobody.here@example.com: No user account has this e-mail.', `User ${operator.email}: Give a user id or an e-mail, not both.`]);
    // Append-only: the table refuses changes whoever asks.
    await expect(sql`delete from operator_actions`.execute(database.db)).rejects.toThrow(/append-only/);
    await expect(sql`update operator_actions set message = 'x'`.execute(database.db)).rejects.toThrow(/append-only/);
  });
});

describe('rollback and abandon name the version the operator chose', () => {
  // Two operators (or two tabs) look at the same card: v2 live, v1 retired. What one of them confirms
  // must be what the other one left, or nothing happens (QA: the confirm rolled the first rollback back).
  const name = 'ops_stale';
  const url = (what: string) => `/operations/projections/${name}/${what}`;
  const registry = async () => (await readRegistry(database.db, name)).map((r) => [r.version, r.status]);
  /** Everything a refused command must leave as it was: registry rows, checkpoints and every version's rows. */
  const snapshot = async () => {
    const rows = await sql<Record<string, unknown>>`select * from projection_registry where name = ${name} order by version`.execute(database.db);
    const cps = await sql<Record<string, unknown>>`select * from projection_checkpoints where projection = ${name} order by version, lane`.execute(database.db);
    const tables: Record<string, unknown[]> = {};
    for (const r of await readRegistry(database.db, name)) {
      for (const table of Object.values(r.tables)) tables[table] = (await sql`select * from ${sql.table(table)} order by 1`.execute(database.db)).rows;
    }
    return { registry: rows.rows, checkpoints: cps.rows, tables };
  };
  const lastAction = async () => (await call('GET', '/operations/actions?limit=1', operator.authorization)).json().actions[0];

  beforeAll(async () => {
    await appendPremiums(store, randomUUID(), 's1', [55, 3]);
    await visible(store, (await store.readAll({ after: START, limit: 10_000 })).length);
    await rebuild({ ...runtimeDeps(), projections: [figuresProjection(1, name)] }, name);
    await rebuild({ ...runtimeDeps(), projections: [figuresProjection(1, name)] }, name, { switch: true });
    expect(await registry()).toEqual([
      [1, 'retired'],
      [2, 'live'],
    ]);
    t.deps.projections = [figuresProjection(1, name)];
  });

  it('refuses a rollback whose target or live version changed since (409, nothing changed, logged refused)', async () => {
    // The other operator's rollback, as the console sends it.
    let res = await call('POST', url('rollback'), admin.authorization, { version: 1, from: 2 });
    expect([res.statusCode, res.json().message]).toEqual([200, `${name} rolled back from v2 to v1.`]);
    const before = await snapshot();
    // This operator's dialog still says "Roll back to v1? … v2 is retired".
    res = await call('POST', url('rollback'), operator.authorization, { version: 1, from: 2 });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe(`${name} is no longer at v2: v1 is live now. Reload the console and choose again.`);
    expect(await snapshot()).toEqual(before);
    expect(await lastAction()).toMatchObject({ action: 'rollback', outcome: 'refused', version: 1, actorEmail: operator.email, message: res.json().message });
    // The target alone, named: v1 is live already, and a rollback now goes back to v2, not v1.
    res = await call('POST', url('rollback'), operator.authorization, { version: 1 });
    expect([res.statusCode, res.json().message]).toEqual([409, `${name} v1 is live already. Reload the console and choose again.`]);
    expect(await snapshot()).toEqual(before);
    expect(await registry()).toEqual([
      [1, 'live'],
      [2, 'retired'],
    ]);
  });

  it('of two rollbacks sent at once naming the same target, one rolls back and the other is refused', async () => {
    for (let round = 0; round < 3; round++) {
      const [live, target] = (await readRegistry(database.db, name)).sort((a, b) => (a.status === 'live' ? -1 : b.status === 'live' ? 1 : 0)).map((r) => r.version);
      const answers = await Promise.all([
        call('POST', url('rollback'), operator.authorization, { version: target!, from: live! }),
        call('POST', url('rollback'), admin.authorization, { version: target!, from: live! }),
      ]);
      expect(answers.map((r) => r.statusCode).sort(), answers.map((r) => r.body).join('\n')).toEqual([200, 409]);
      expect(answers.find((r) => r.statusCode === 409)!.json().message).toBe(`${name} is no longer at v${live}: v${target} is live now. Reload the console and choose again.`);
      // Rolled back once: the target is live, not flipped back again.
      expect((await readRegistry(database.db, name)).find((r) => r.status === 'live')!.version).toBe(target);
    }
    const actions = (await call('GET', '/operations/actions?limit=6', operator.authorization)).json().actions;
    expect(actions.map((a: { action: string; outcome: string }) => `${a.action}:${a.outcome}`).sort()).toEqual([...Array(3).fill('rollback:ok'), ...Array(3).fill('rollback:refused')].sort());
  });

  it('refuses to abandon a build that was switched live, abandoned or replaced since, and one of two abandons sent at once', async () => {
    const deps = () => ({ ...runtimeDeps(), projections: [figuresProjection(1, name)] });
    const [building] = await rebuild(deps(), name, { switch: false });
    const v = building!.version;
    // Switched live by another operator while this one's Abandon dialog was open.
    expect((await call('POST', url('switch'), admin.authorization, { version: v })).statusCode).toBe(200);
    let before = await snapshot();
    let res = await call('POST', url('abandon'), operator.authorization, { version: v });
    expect([res.statusCode, res.json().message]).toEqual([409, `${name} v${v} is no longer building: it is live now. Reload the console and choose again.`]);
    expect(await snapshot()).toEqual(before);
    expect(await lastAction()).toMatchObject({ action: 'abandon', outcome: 'refused', version: v });

    // Another build is in progress now: naming an older one drops nothing.
    const [next] = await rebuild(deps(), name, { switch: false });
    before = await snapshot();
    res = await call('POST', url('abandon'), operator.authorization, { version: v });
    expect([res.statusCode, res.json().message]).toEqual([409, `${name} is building v${next!.version} now, not v${v}. Reload the console and choose again.`]);
    expect(await snapshot()).toEqual(before);

    // Two abandons of the same build at once: one drops it, the other is refused.
    const answers = await Promise.all([
      call('POST', url('abandon'), operator.authorization, { version: next!.version }),
      call('POST', url('abandon'), admin.authorization, { version: next!.version }),
    ]);
    expect(answers.map((r) => r.statusCode).sort(), answers.map((r) => r.body).join('\n')).toEqual([200, 409]);
    // What became of it is said once the other abandon's entry is in the log, which races with this answer.
    expect(answers.find((r) => r.statusCode === 409)!.json().message).toMatch(
      new RegExp(`^${name} v${next!.version} is no longer building: it (was abandoned|is gone \\(abandoned, or retired for good\\))\\. Reload the console and choose again\\.$`),
    );
    expect((await readRegistry(database.db, name)).some((r) => r.status === 'building')).toBe(false);
    expect((await call('POST', url('abandon'), operator.authorization, {})).statusCode).toBe(422);
  });
});

describe('a stuck lane in process', () => {
  it('is listed from the projector\'s stuck-lane gauge and failure counts', async () => {
    const { Counter, Gauge } = await import('prom-client');
    const stuck = new Gauge({ name: 'oj_projector_lane_stuck', help: 'h', labelNames: ['lane'], registers: [t.deps.metrics] });
    const failures = new Counter({ name: 'oj_projector_lane_failures_total', help: 'h', labelNames: ['lane', 'reason'], registers: [t.deps.metrics] });
    stuck.set({ lane: '0' }, 0);
    stuck.set({ lane: '2' }, 1);
    failures.inc({ lane: '2', reason: 'error' }, 7);
    failures.inc({ lane: '0', reason: 'gap' }, 1);
    let errors: unknown[] = [];
    for (let i = 0; i < 200 && !errors.length; i++) {
      await new Promise((r) => setTimeout(r, 100));
      errors = (await call('GET', '/operations/live', operator.authorization)).json().laneErrors;
    }
    expect(errors).toEqual([{ lane: 2, message: 'Keeps failing on the same batch (error): the error is in the projector\'s log ("lane batch failed").', attempts: 7, at: null }]);
    t.deps.metrics.removeSingleMetric('oj_projector_lane_stuck');
    t.deps.metrics.removeSingleMetric('oj_projector_lane_failures_total');
  });
});

describe('embedded mode: a console rebuild stopped by a restart', () => {
  it('is resumed when the server starts again, without switching', async () => {
    const U = randomUUID();
    await appendPremiums(store, U, 'r1', [60, 7]);
    const before = (await store.readAll({ after: START, limit: 10_000 })).length;
    await visible(store, before);
    await rebuild({ database, eventStore: store, projections: [figuresProjection(1, 'ops_resume')], lanes: t.config.PROJECTOR_LANES }, 'ops_resume');
    // The console started v2; the process died after one batch.
    t.deps.projections = [figuresProjection(2, 'ops_resume')];
    const res = await call('POST', '/operations/projections/ops_resume/rebuild', operator.authorization, {});
    expect(res.statusCode).toBe(202);
    await settled('rebuild-ops_resume');
    await sql`update projection_rebuilds set built_at = null, events_done = 1 where projection = 'ops_resume' and version = 2`.execute(database.db);

    const { buildApp } = await import('../app/app.ts');
    const { Registry } = await import('prom-client');
    const restarted = await buildApp({ ...t.deps, metrics: new Registry(), projections: [figuresProjection(2, 'ops_resume')] }, { logger: false });
    try {
      await restarted.ready();
      let state: { phase: string; requestedBy: string; switch: boolean } | undefined;
      for (let i = 0; i < 400 && state?.phase !== 'done'; i++) {
        const live = (await restarted.inject({ method: 'GET', url: '/api/v1/operations/live', headers: { authorization: operator.authorization } })).json();
        state = live.rebuilds.find((r: { id: string }) => r.id === 'rebuild-ops_resume');
        if (state?.phase !== 'done') await new Promise((r) => setTimeout(r, 50));
      }
      expect(state).toMatchObject({ phase: 'done', switch: false, requestedBy: `${operator.email} (resumed after a restart)` });
      const built = await sql<{ built: boolean }>`select built_at is not null as built from projection_rebuilds where projection = 'ops_resume' and version = 2`.execute(database.db);
      expect(built.rows[0]?.built).toBe(true);
      expect((await readRegistry(database.db, 'ops_resume')).map((r) => [r.version, r.status])).toEqual([
        [1, 'live'],
        [2, 'building'],
      ]);
    } finally {
      await restarted.close();
    }
  });
});

describe('a rebuild requested while the same rebuild runs', () => {
  it("follows it, and the log describes the running job's own options, not the request's", async () => {
    await appendPremiums(store, randomUUID(), 'g1', [12, 13]);
    await visible(store, (await store.readAll({ after: START, limit: 10_000 })).length);
    // A rebuild held in its first batch until the test lets it go.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const figures = figuresProjection(1, 'ops_follow');
    t.deps.projections = [{ ...figures, apply: async (ctx, events) => (await held, figures.apply(ctx, events)) }];
    try {
      let res = await call('POST', '/operations/projections/ops_follow/rebuild', operator.authorization, { switch: false });
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json().action.message).toBe('Rebuild of ops_follow v1 beside the live version: started.');
      // QA: this said "(switches when built): already running", of a job that would not switch.
      res = await call('POST', '/operations/projections/ops_follow/rebuild', operator.authorization, { switch: true });
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json()).toMatchObject({ existing: true, rebuild: { switch: false } });
      expect(res.json().action.message).toBe('Rebuild of ops_follow v1 beside the live version: already running, following it. Its own options apply: it does not switch when built.');
      res = await call('POST', '/operations/projections/ops_follow/rebuild', operator.authorization, {});
      expect(res.json().action.message).toBe('Rebuild of ops_follow v1 beside the live version: already running, following it.');
    } finally {
      release();
    }
    expect(await settled('rebuild-ops_follow')).toMatchObject({ phase: 'done', switch: false });
    expect((await readRegistry(database.db, 'ops_follow')).map((r) => [r.version, r.status])).toEqual([[1, 'building']]);
  });
});

describe('GET /operations/actions, a page at a time', () => {
  it('pages back through the whole log newest first, each entry once, steady while entries are added', async () => {
    const actor = { userId: operator.userId, email: operator.email, role: 'Operator' } as Principal;
    for (let i = 0; i < 7; i++) await recordAction(database.db, actor, { action: 'rebuild', projection: 'ops_paging', version: i, outcome: 'ok', message: `entry ${i}` });
    const whole = (await call('GET', '/operations/actions?limit=200', admin.authorization)).json();
    expect(whole.nextBefore).toBeNull();
    const ids: string[] = whole.actions.map((a: { id: string }) => a.id);
    expect(ids.length).toBeGreaterThanOrEqual(7);

    const paged: string[] = [];
    let before: string | null = null;
    let pages = 0;
    do {
      const res = await call('GET', `/operations/actions?limit=3${before ? `&before=${before}` : ''}`, operator.authorization);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.actions.length).toBeLessThanOrEqual(3);
      paged.push(...body.actions.map((a: { id: string }) => a.id));
      before = body.nextBefore;
      // An entry recorded while the operator pages back is on the first page, not in the older ones.
      if (pages++ === 0) await recordAction(database.db, actor, { action: 'switch', projection: 'ops_paging', version: 9, outcome: 'refused', message: 'while paging' });
    } while (before !== null);
    expect(paged).toEqual(ids);
    expect(pages).toBe(Math.ceil(ids.length / 3));
    expect((await call('GET', '/operations/actions?limit=1', admin.authorization)).json().actions[0].message).toBe('while paging');
  });

  it('refuses a `before` that names no entry (404) or is no id (422), and a plain user (403)', async () => {
    let res = await call('GET', `/operations/actions?before=${randomUUID()}`, operator.authorization);
    expect([res.statusCode, res.json().message]).toEqual([404, 'No operator action has this id.']);
    res = await call('GET', '/operations/actions?before=not-an-id', operator.authorization);
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toMatch(/before must be the id of an operator action\./);
    expect((await call('GET', '/operations/actions', user.authorization)).statusCode).toBe(403);
  });
});
