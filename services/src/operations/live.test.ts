import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { createLogger } from '@oj/infra/logger';
import type { EventStore } from '@oj/infra/eventstore/port';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { takeStreamEvents, type RebuildState, type StreamEvent } from '@oj/contracts/operations';
import { laneQueueName, redisConnection } from '@oj/projections/runtime/projector';
import { REBUILD_QUEUE, startRebuildWorker, type RebuildWorker } from '@oj/projections/runtime/rebuild-job';
import { readRegistry } from '@oj/projections/runtime/registry';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';
import { migrate } from '../platform/migrations.ts';
import { appendPremiums, figuresProjection, visible } from './testing.ts';
import { NO_LANE_WORKER, OperationsConsole } from './live.ts';
import { authMessages } from '../identity/auth-plugin.ts';
import { sql } from 'kysely';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `ojops${randomUUID().slice(0, 8)}`;

/**
 * Reads Server-Sent Events from the running gateway until `until` accepts one (or throws on timeout).
 * `opened` resolves once the snapshot has arrived: the gateway subscribes the stream to changes as it
 * sends the snapshot, so whatever happens after that reaches this stream.
 */
function readEvents(url: string, authorization: string, until: (event: string, data: any) => boolean): { opened: Promise<void>; events: Promise<StreamEvent[]> } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const events = (async () => {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), 45_000);
    try {
      const res = await fetch(url, { headers: { authorization, accept: 'text/event-stream' }, signal: abort.signal });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const seen: StreamEvent[] = [];
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        const { events, rest } = takeStreamEvents(buffer + value);
        buffer = rest;
        for (const e of events) {
          seen.push(e);
          if (e.event === 'snapshot') open();
          if (until(e.event, e.data)) return seen;
        }
      }
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
  })();
  // A stream that fails before its snapshot fails `opened` as well.
  return { opened: Promise.race([opened, events.then(() => undefined)]), events };
}

describe('services mode (REDIS_URL): rebuilds are projector jobs, the board is for Admins', () => {
  let t: TestApp;
  let database: TestDatabase;
  let store: EventStore;
  let worker: RebuildWorker;
  let base: string;
  beforeAll(async () => {
    database = await createTestDatabase('operations_live');
    await migrate(database.db);
    store = new PostgresEventStore(database);
    t = await createTestApp({ database, eventStore: store, env: { REDIS_URL, BULLMQ_PREFIX: prefix, PROJECTOR_LANES: '2' } });
    t.deps.projections = [figuresProjection(1)];
    // The projector's rebuild worker, as `npm run projector` runs it.
    worker = startRebuildWorker({ connection: redisConnection(REDIS_URL), prefix, logger: createLogger('silent'), deps: { database, eventStore: store, projections: t.deps.projections, lanes: 2 } });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await worker?.stop();
    await t?.close();
    await store?.close();
    for (const name of [REBUILD_QUEUE, laneQueueName(0), laneQueueName(1)]) {
      const q = new Queue(name, { connection: redisConnection(REDIS_URL), prefix });
      await q.obliterate({ force: true }).catch(() => undefined);
      await q.close();
    }
  });

  it('pushes a rebuild job’s progress over Server-Sent Events until it is done', async () => {
    for (let i = 0; i < 5; i++) await appendPremiums(store, randomUUID(), 'l1', [10 * i, 5]);
    await visible(store, 10);
    const operator = await signInAs(t, { role: 'Operator' });
    const { opened, events } = readEvents(`${base}/api/v1/operations/stream`, operator.authorization, (event, data) => event === 'rebuilds' && data.some((r: { phase: string }) => r.phase === 'done'));
    // The snapshot comes first; the rebuild is requested once the stream has it.
    await opened;
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/operations/projections/ops_figures/rebuild', headers: { authorization: operator.authorization }, payload: { switch: true } });
    expect(res.statusCode).toBe(202);
    expect(res.json().rebuild).toMatchObject({ id: 'rebuild-ops_figures', runner: 'bullmq', requestedBy: operator.email });
    const seen = await events;
    expect(seen[0]!.event).toBe('snapshot');
    expect(seen[0]!.data).toMatchObject({ transport: 'bullmq', queuesUrl: null });
    const last = (seen.at(-1)!.data as RebuildState[]).find((r) => r.id === 'rebuild-ops_figures');
    expect(last).toMatchObject({ phase: 'done', version: 1, eventsDone: 10, eventsTotal: 10, runner: 'bullmq', requestedBy: operator.email });
    expect((await readRegistry(database.db, 'ops_figures')).map((r) => [r.version, r.status])).toEqual([[1, 'live']]);
    // A one-user recompute asked for by e-mail keeps it in the job: the card names the user by it.
    const byEmail = await t.app.inject({ method: 'POST', url: '/api/v1/operations/projections/ops_figures/rebuild', headers: { authorization: operator.authorization }, payload: { userEmail: operator.email } });
    expect(byEmail.statusCode, byEmail.body).toBe(202);
    expect(byEmail.json().rebuild).toMatchObject({ runner: 'bullmq', userEmail: operator.email });
    for (let i = 0; i < 200; i++) {
      const live = (await t.app.inject({ method: 'GET', url: '/api/v1/operations/live', headers: { authorization: operator.authorization } })).json();
      const job = live.rebuilds.find((r: RebuildState) => r.userId !== null);
      if (job?.phase === 'done') {
        expect(job).toMatchObject({ userEmail: operator.email });
        break;
      }
      if (i === 199) throw new Error('the one-user rebuild job did not finish');
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 60_000);

  it("logs how each rebuild job ended, once, whichever gateways' consoles see it end (QA: only \"started … ok\")", async () => {
    // The jobs of the test before: a rebuild that switched, and a one-user recompute.
    const ends = async () =>
      (await sql<{ action: string; version: number | null; outcome: string; message: string; actor_role: string }>`select action, version, outcome, message, actor_role from operator_actions
        where actor_role = 'system' order by at, id`.execute(database.db)).rows;
    for (let i = 0; i < 200 && (await ends()).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    const seen = await ends();
    expect(seen.map((e) => [e.action, e.version, e.outcome])).toEqual([
      ['rebuild', 1, 'ok'],
      ['rebuild-user', 1, 'ok'],
    ]);
    expect(seen[0]!.message).toMatch(/^Rebuild of ops_figures v1 \(asked for by .+\) ended: built and switched: now live \(10 events\)\.$/);
    // Another gateway's console, opened after the jobs ended, finds the same ends and adds none.
    const other = new OperationsConsole({ deps: () => ({ database, eventStore: store, projections: t.deps.projections!, lanes: 2 }), bull: { connection: redisConnection(REDIS_URL), prefix } });
    try {
      await other.recordEnds();
      await other.recordEnds();
    } finally {
      await other.close();
    }
    expect(await ends()).toEqual(seen);
  }, 30_000);

  it('ends an event stream once its user is no longer an operator', async () => {
    const operator = await signInAs(t, { role: 'Operator' });
    const stream = readEvents(`${base}/api/v1/operations/stream`, operator.authorization, () => false);
    const ended = stream.events.then(
      () => 'no',
      (err: Error) => err.message,
    );
    // The role is taken away once the stream is open (before, the stream would be refused a 403).
    await stream.opened;
    await database.db.updateTable('users').set({ role: 'User' }).where('uid', '=', operator.userId).execute();
    expect(await ended).toBe('stream ended');
  });

  it('shows the error a stuck lane keeps failing on', async () => {
    const connection = redisConnection(REDIS_URL);
    const lane = new Queue(laneQueueName(1), { connection, prefix });
    // A lane batch whose handler throws: BullMQ keeps it, delayed, with the reason of its last failure.
    const failing = new Worker(laneQueueName(1), async () => { throw new Error('trades handler: cannot fold TradeRolled'); }, { connection, prefix });
    await lane.add('batch', { lane: 1 }, { attempts: 100, backoff: { type: 'fixed', delay: 60_000 } });
    const operator = await signInAs(t, { role: 'Operator' });
    let errors: Array<{ lane: number; message: string; attempts: number }> = [];
    for (let i = 0; i < 200 && !errors.some((e) => e.lane === 1 && e.attempts > 0); i++) {
      await new Promise((r) => setTimeout(r, 100));
      errors = (await t.app.inject({ method: 'GET', url: '/api/v1/operations/live', headers: { authorization: operator.authorization } })).json().laneErrors;
    }
    // Lane 0 has no worker at all in this test bed: that is said, not a job's old error.
    expect(errors).toEqual([
      { lane: 0, message: NO_LANE_WORKER, attempts: 0, at: null },
      { lane: 1, message: 'trades handler: cannot fold TradeRolled', attempts: 1, at: expect.any(String) },
    ]);
    // Its worker gone, lane 1 is a lane nobody works either (QA: it read "caught up").
    await failing.close();
    let after: typeof errors = [];
    for (let i = 0; i < 100 && after.find((e) => e.lane === 1)?.message !== NO_LANE_WORKER; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = (await t.app.inject({ method: 'GET', url: '/api/v1/operations/live', headers: { authorization: operator.authorization } })).json().laneErrors;
    }
    await lane.close();
    expect(after.find((e) => e.lane === 1)).toEqual({ lane: 1, message: NO_LANE_WORKER, attempts: 0, at: null });
  });

  it('mounts the BullMQ board for Admins only, its UI from the package, nothing from another origin', async () => {
    const admin = await signInAs(t, { role: 'Admin' });
    const operator = await signInAs(t, { role: 'Operator' });
    expect((await fetch(`${base}/api/v1/operations/queues/`)).status).toBe(401);
    expect((await fetch(`${base}/api/v1/operations/queues/`, { headers: { authorization: operator.authorization } })).status).toBe(403);
    const refused = await fetch(`${base}/api/v1/operations/queues/api/queues`, { headers: { authorization: operator.authorization } });
    expect(refused.status).toBe(403);
    // The API's own refusal, not the board's "ERRORS.INTERNAL_SERVER_ERROR" (QA).
    expect(await refused.json()).toMatchObject({ message: authMessages.forbidden });
    const trader = await signInAs(t);
    for (const path of ['/api/v1/operations/queues/', '/api/v1/operations/queues/api/queues']) {
      const r = await fetch(`${base}${path}`, { headers: { authorization: trader.authorization } });
      expect([r.status, await r.json()], path).toEqual([403, expect.objectContaining({ message: authMessages.forbidden })]);
    }
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/operations/queues-session', headers: { authorization: operator.authorization } })).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/operations/live', headers: { authorization: admin.authorization } })).json().queuesUrl).toBe('/api/v1/operations/queues/');

    // The page opens by navigation: the Admin gets a cookie scoped to the board's path.
    const session = await fetch(`${base}/api/v1/operations/queues-session`, { method: 'POST', headers: { authorization: admin.authorization } });
    expect(session.status).toBe(200);
    const cookie = session.headers.get('set-cookie')!;
    expect(cookie).toMatch(/oj_queues=.*Path=\/api\/v1\/operations\/queues;.*HttpOnly/);
    const page = await fetch(`${base}/api/v1/operations/queues/`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Projector queues');
    expect(html).not.toMatch(/https?:\/\//);
    const assets = [...html.matchAll(/(?:src|href)="(static\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    for (const a of assets) {
      const r = await fetch(`${base}/api/v1/operations/queues/${a}`, { headers: { cookie: cookie.split(';')[0]! } });
      expect(r.status, a).toBe(200);
    }
    const api = await fetch(`${base}/api/v1/operations/queues/api/queues`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(api.status).toBe(200);
    const names = ((await api.json()) as { queues: Array<{ name: string }> }).queues.map((q: { name: string }) => q.name).sort();
    expect(names).toEqual([REBUILD_QUEUE, laneQueueName(0), laneQueueName(1)].sort());
    // A forged or foreign cookie is refused.
    expect((await fetch(`${base}/api/v1/operations/queues/`, { headers: { cookie: `oj_queues=${admin.email}.9999999999.x` } })).status).toBe(401);
  });
});
