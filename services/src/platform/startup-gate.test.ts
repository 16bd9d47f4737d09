import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STARTUP_RESOLUTION, type StartupProgress } from '@oj/contracts/common';
import { API_PREFIX } from '../app/api-prefix.ts';
import type { ProjectorHandle } from '@oj/projections/runtime/projector';
import { createTestApp, signInAs, startTestProjector, type TestApp } from '../identity/testing.ts';
import { StartupGate } from './startup-gate.ts';

/**
 * The API while the projector in the process brings the read models up to date at start (embedded
 * mode): every request but health and readiness is refused before any route runs, with what the start
 * does and how far it got, and nothing is written; once the start is done, everything answers.
 */
describe('the start-up gate', () => {
  let t: TestApp;
  let authorization: string;
  let projector: ProjectorHandle;
  beforeAll(async () => {
    t = await createTestApp({ label: 'startup_gate' });
    projector = await startTestProjector(t, t.deps.eventStore);
    ({ authorization } = await signInAs(t));
    await projector.startedUp;
  });
  afterAll(async () => {
    await projector?.stop();
    await t?.close();
  });

  const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url: `${API_PREFIX}${url}`, headers: { authorization }, ...(payload ? { payload } : {}) });

  it('refuses reads and commands with the progress, writes nothing, and answers once the start is done', async () => {
    let progress: StartupProgress = { phase: 'rebuilding', projection: 'trades', done: 1500, total: 21679, retrying: false };
    let finish: () => void = () => undefined;
    const gate = new StartupGate();
    t.deps.startup = gate;
    gate.follow(() => progress, new Promise<void>((resolve) => (finish = resolve)));

    const list = await call('GET', '/trades/status/open');
    expect(list.statusCode).toBe(503);
    expect(list.headers['retry-after']).toBe('2');
    expect(list.json()).toEqual({
      message: 'Options Journal is recomputing its figures for this release: 6% (1,500 of 21,679 events).',
      detail: progress,
      resolution: STARTUP_RESOLUTION,
    });

    // A command is refused before its route runs: no event is appended.
    const head = await t.deps.eventStore.head();
    const add = await call('POST', '/accounts', { name: 'Main', description: '', is_default: true });
    expect(add.statusCode).toBe(503);
    expect(await t.deps.eventStore.head()).toEqual(head);
    // Without a session too (sign-in waits like everything else), and before the route's own checks.
    expect((await t.app.inject({ method: 'POST', url: `${API_PREFIX}/users/login`, payload: {} })).statusCode).toBe(503);

    // Every event read, the rebuild's last steps (not "99%", QA 78).
    progress = { phase: 'rebuilding', projection: 'trades', done: 21679, total: 21679, retrying: false };
    expect((await call('GET', '/trades/status/open')).json().message).toBe('Options Journal is recomputing its figures for this release: all 21,679 events read, finishing.');

    progress = { phase: 'catching-up', done: 400, total: 1000, retrying: true };
    const again = await call('GET', '/trades/status/open');
    expect(again.json().message).toBe(
      'Options Journal is bringing its figures up to date with your records: 40% (400 of 1,000 events). The last attempt failed and it is trying again; the server log says why.',
    );

    // Health and readiness answer: readiness says it is starting, and how far.
    expect((await call('GET', '/health')).statusCode).toBe(200);
    const ready = await call('GET', '/ready');
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ status: 'starting', startup: progress });

    finish();
    await gate.opened;
    expect((await call('GET', '/trades/status/open')).statusCode).toBe(200);
    expect((await call('GET', '/ready')).statusCode).toBe(200);
    expect(gate.current()).toBeNull();
  });

  it('says "starting" without a count while the projector has not begun', async () => {
    const gate = new StartupGate();
    t.deps.startup = gate;
    gate.hold();
    const res = await call('GET', '/trades/status/open');
    expect(res.statusCode).toBe(503);
    expect(res.json().message).toBe('Options Journal is starting.');
    gate.open();
    await gate.opened;
    expect((await call('GET', '/trades/status/open')).statusCode).toBe(200);
  });

  it('stays held when the projector stops before it was done: the process is ending, and nothing may say the read models are up to date', async () => {
    const gate = new StartupGate();
    t.deps.startup = gate;
    let stop: (err: Error) => void = () => undefined;
    gate.follow(() => ({ phase: 'catching-up', done: 1, total: 2, retrying: false }), new Promise<void>((_, reject) => (stop = reject)));
    stop(new Error('the projector stopped before its read models were up to date'));
    await new Promise((r) => setTimeout(r, 10));
    expect(gate.current()).not.toBeNull();
    expect((await call('GET', '/trades/status/open')).statusCode).toBe(503);
    const opened = await Promise.race([gate.opened.then(() => 'opened'), new Promise((r) => setTimeout(() => r('held'), 50))]);
    expect(opened).toBe('held');
    gate.open();
  });
});

