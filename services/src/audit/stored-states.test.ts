import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { AsOfResponse } from '@oj/contracts/audit';
import { upcastJournalEvent } from '@oj/infra/eventstore/create';
import { logOriginOf } from '@oj/infra/eventstore/log-origin';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { comparePositions, positionToString, type LogPosition } from '@oj/infra/eventstore/port';
import { readUserLog } from '@oj/infra/eventstore/user-log';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import type { ProjectorHandle } from '@oj/projections/runtime/projector';
import { liveTables } from '@oj/projections/runtime/registry';
import { allTradeRows, dailyRecords, dayTradesOf, foldUser, splitPositions } from '@oj/projections/trades/user-rows';
import { login } from '../identity/commands.ts';
import { identityContext } from '../identity/routes.ts';
import { createTestApp, signInAs, startTestProjector, type TestApp } from '../identity/testing.ts';
import { SEED_PASSWORD, seedJournals } from '../journal/seed/generate.ts';
import { advance, emptyJournal } from './journal-state.ts';
import { inProcessParts, workerParts, type PartRunner } from './part-runner.ts';
import { asOf, forgetAllReplays, verify, type AuditContext } from './queries.ts';
import { partOf, sameStructure } from './state-codec.ts';
import { extendUserStates, runStateMaintenance, startStateMaintenance } from './state-maintenance.ts';
import { currentStateKey, forgetDecodedStates, journalAfterChunk, readChain, type StateKey } from './stored-states.ts';

/**
 * Stored replay states against the replay from the first event, on seeded journals with every kind of
 * action (through the command handler) and a trader's hand-made history through the API: at every
 * event and date, before, at and after each stored chunk, after new appends, under another code
 * version or log origin, with a stored row changed by hand, with an event removed below a chunk, and
 * with an append held open below the visibility horizon. Chunks are a few events long here so a small
 * journal has many of them. Today is Monday 2 March 2026.
 */
const TODAY = '2026-03-02';
const CHUNK = { chunkEvents: 5, minEvents: 0, maxEventsPerRun: 1_000_000 };
type Who = { userId: string; authorization: string };

describe('stored replay states', () => {
  let database: TestDatabase;
  let t: TestApp;
  let store: PostgresEventStore;
  let projector: ProjectorHandle;
  let seeded: Who[];
  let workers: PartRunner;
  let ctx: AuditContext;

  const url = (path: string) => `/api/v1${path}`;
  const send = async (app: TestApp, who: Who, method: 'POST' | 'PATCH' | 'DELETE', path: string, payload?: unknown) => {
    const r = await app.app.inject({ method, url: url(path), headers: { authorization: who.authorization }, ...(payload ? { payload: payload as object } : {}) });
    expect(r.statusCode, r.body).toBeLessThan(300);
    return r.json();
  };
  const head = async (): Promise<LogPosition | null> => {
    const { rows } = await sql<{ c: string; p: string }>`select transaction_id::text as c, global_position::text as p from events where stream_id like 'trade-%' order by transaction_id desc, global_position desc limit 1`.execute(database.db);
    return rows[0] ? { commit: BigInt(rows[0].c), prepare: BigInt(rows[0].p) } : null;
  };
  const settle = async () => {
    const h = await head();
    if (h) await projector.waitFor(h, 60_000);
  };
  /** Every cache of this process and of the workers: each view below reads the database afresh. */
  const cold = () => forgetAllReplays(workers);
  const withParts = (parts: PartRunner): AuditContext => ({ ...ctx, parts });
  const positions = async (userId: string) => (await readUserLog(database.db, userId)).map((e) => ({ position: positionToString(e.position), date: e.metadata.businessDate }));
  /** A view's answer without what says how it was computed. */
  const view = (a: AsOfResponse) => ({ ...a, elapsed_ms: 0, stored_state: null });
  const chainOf = async (userId: string, key: StateKey = currentStateKey()) => readChain(database.db, userId, key.codeKey, await logOriginOf(database.db));
  /**
   * The user's chain carried to within a chunk of the log's end. The maintenance folds only events below
   * the server's visibility horizon, which a long transaction anywhere on the server (another test file's)
   * holds back for a while: it is run again until the horizon has passed.
   */
  const build = async (userId: string, key?: StateKey) => {
    const total = (await readUserLog(database.db, userId)).length;
    let written = 0;
    for (let i = 0; ; i++) {
      const r = await extendUserStates(database.db, userId, { ...CHUNK, ...(key ? { key } : {}) });
      written += r.written;
      const covered = (await chainOf(userId, key)).at(-1)?.events ?? 0;
      if (total - covered < CHUNK.chunkEvents) return { ...r, written };
      if (i > 300) throw new Error(`the visibility horizon stayed below ${userId}'s events for a minute`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  /** Every kind of action on a fresh trade of `who`, through the API: open, partial close, roll, edit, split, delete. */
  const everyAction = async (who: Who, account: string, n: number) => {
    const trade = (extra: Record<string, unknown> = {}) => ({
      ticker: 'QQQ', strategy_uid: 'cash-secured-put', account_uid: account, strike_prices: [300 + n], trade_open_date: '2026-02-09', expiration_date: '2026-03-20',
      contract_size: 3, premium_at_open: 210, net_fee_to_open: 1.95, net_delta: 0.3, stock_price_at_open: 320, notes: '', ...extra,
    });
    // A trade that an edit at the end moves to another day (the day it left is recomputed too: it may
    // have no trade left); between its open and its edit a chunk ends.
    const moved = await send(t, who, 'POST', '/trades/add-trade', { trade_data: trade({ ticker: 'DIA', trade_open_date: lonelyDays[n % lonelyDays.length] }), tag_data: [] });
    const opened = await send(t, who, 'POST', '/trades/add-trade', { trade_data: trade(), tag_data: [] });
    const partial = await send(t, who, 'POST', `/trades/close/${opened.uid}`, { contract_size: 1, trade_close_date: '2026-02-17', premium_at_close: 40, net_fee_to_close: 0.65, close_transaction: 2 });
    const rolled = await send(t, who, 'POST', `/trades/roll/${partial.remaining_trade.uid}`, {
      trade_roll_data: {
        old_trade: { trade_close_date: '2026-02-24', premium_at_close: 30, net_fee_to_close: 1.3, close_transaction: 2 },
        new_trade: { expiration_date: '2026-04-17', contract_size: 2, strike_prices: [295 + n], premium_at_open: 260, net_fee_to_open: 1.3, net_delta: 0.25, stock_price_at_open: 318 },
      },
      tag_data: [],
    });
    await send(t, who, 'PATCH', `/trades/update/${rolled.new_trade_after_roll.uid}`, { notes: `rolled down ${n}` });
    const spread = await send(t, who, 'POST', '/trades/add-trade', { trade_data: trade({ strategy_uid: 'bull-put-spread', strike_prices: [150 + n, 145 + n], contract_size: 1, premium_at_open: 120, net_fee_to_open: 2 }), tag_data: [] });
    await send(t, who, 'POST', `/trades/split-trade/${spread.uid}`, {
      trade_data: { closing_trade: { leg_index: 1, premium_at_open: 30, status: 2, trade_close_date: '2026-02-27', premium_at_close: 20, net_fee_to_close: 1, close_transaction: 1 }, opening_trade: { premium_at_open: 150 } },
      tag_data: [],
    });
    const gone = await send(t, who, 'POST', '/trades/add-trade', { trade_data: trade({ ticker: 'IWM', strike_prices: [190 + n] }), tag_data: [] });
    await send(t, who, 'DELETE', `/trades/${gone.uid}`);
    await send(t, who, 'PATCH', `/trades/update/${moved.uid}`, { trade_open_date: '2026-01-16', premium_at_open: 215 });
  };
  // Weekdays nothing else is opened or closed on.
  const lonelyDays = ['2026-01-05', '2026-01-06', '2026-01-07', '2026-01-08', '2026-01-09', '2026-01-12', '2026-01-13', '2026-01-14', '2026-01-15'];
  const accountOf = async (who: Who): Promise<string> => (await send(t, who, 'POST', '/accounts/add-account', { name: `Main ${Math.random()}`, broker: 'ibkr', ac_type: 1 })).uid;

  beforeAll(async () => {
    database = await createTestDatabase('audit_states');
    store = new PostgresEventStore(database, { upcast: upcastJournalEvent, pollIntervalMs: 50 });
    t = await createTestApp({ database, eventStore: store, now: `${TODAY}T15:00:00Z` });
    projector = await startTestProjector(t, store);
    const report = await seedJournals({ db: database.db, eventStore: store, config: t.config }, { users: 2, tradesPerUser: 45, seed: 23, today: TODAY });
    const ids = identityContext(t.deps);
    seeded = await Promise.all(report.users.map(async (u) => ({ userId: u.userId, authorization: `Bearer ${(await login(ids, { email: u.email, password: SEED_PASSWORD })).accessToken}` })));
    const trader = await signInAs(t, { name: 'Hand Made' });
    const account = await accountOf(trader);
    for (let n = 0; n < 3; n++) await everyAction(trader, account, n);
    seeded.push(trader);
    workers = workerParts(database.url, 2);
    ctx = { db: database.db, eventStore: store, clock: t.deps.clock, parts: inProcessParts(database.db) };
    await settle();
    const types = await sql<{ type: string }>`select distinct type from events where stream_id like 'trade-%' order by type`.execute(database.db);
    expect(types.rows.map((r) => r.type)).toEqual(['TradeClosed', 'TradeDeleted', 'TradeEdited', 'TradeOpened', 'TradeRolled', 'TradeSplit']);
  }, 240_000);
  afterAll(async () => {
    await workers?.close();
    await projector?.stop();
    await store?.close();
    await t?.close();
    await database?.drop();
  });

  it('each chunk holds the fold of every event up to it, and a journal carried forward from it is the fold from the first event', async () => {
    for (const who of seeded) {
      const r = await build(who.userId);
      expect(r.written).toBeGreaterThan(3);
      const chain = await chainOf(who.userId);
      expect(chain.length).toBe(r.chunks);
      const events = await readUserLog(database.db, who.userId);
      const key = currentStateKey();
      const origin = await logOriginOf(database.db);
      for (const c of chain) {
        const upTo = events.findIndex((e) => positionToString(e.position) === positionToString(c.upto)) + 1;
        expect(upTo).toBe(c.events);
        forgetDecodedStates();
        const stored = await journalAfterChunk(database.db, who.userId, key, origin, chain, c.seq);
        const folded = foldUser(who.userId, events.slice(0, upTo));
        expect(sameStructure([...stored.lineages], [...folded])).toBe(true);
        const byDate = (a: { income_date: string }, b: { income_date: string }) => (a.income_date < b.income_date ? -1 : 1);
        expect(sameStructure([...stored.days.values()].sort(byDate), dailyRecords(who.userId, dayTradesOf(allTradeRows(folded.values()), splitPositions(folded.values()))).sort(byDate))).toBe(true);
        // Carried forward to every later event: the same as folding from the first one.
        for (let n = upTo + 1; n <= Math.min(events.length, upTo + 12); n++) {
          const carried = advance(stored, events.slice(upTo, n));
          const whole = advance(emptyJournal(who.userId), events.slice(0, n));
          expect(carried.events).toBe(n);
          expect(sameStructure([...carried.lineages], [...foldUser(who.userId, events.slice(0, n))])).toBe(true);
          expect(sameStructure([...carried.days.values()].sort(byDate), [...whole.days.values()].sort(byDate))).toBe(true);
        }
      }
    }
  });

  it('as of every event and every date, from the stored states, equals the replay from the first event (in this thread and in worker threads)', async () => {
    for (const who of seeded) {
      await build(who.userId);
      const all = await positions(who.userId);
      const chain = await chainOf(who.userId);
      expect(chain.length).toBeGreaterThan(3);
      for (const [i, p] of all.entries()) {
        const full = await asOf(ctx, who.userId, { event: p.position, list_limit: 1000, full: true });
        expect(full.stored_state).toBeNull();
        const parts = i % 4 === 0 ? [ctx, withParts(workers)] : [ctx];
        for (const c of parts) {
          await cold();
          const stored = await asOf(c, who.userId, { event: p.position, list_limit: 1000 });
          expect(view(stored), `${who.userId} after event ${i}`).toEqual(view(full));
          // Before the first chunk there is nothing stored to start from; from it on, the chunk at or before the event.
          const base = chain.findLast((k) => k.events <= i + 1);
          expect(stored.stored_state?.events ?? null).toBe(base?.events ?? null);
          if (base) expect(stored.stored_state!.events_after).toBe(i + 1 - base.events);
        }
      }
      const dates = [...new Set(all.map((p) => p.date))];
      for (const date of ['2020-01-01', ...dates, TODAY]) {
        const full = await asOf(ctx, who.userId, { date, list_limit: 50, full: true });
        await cold();
        expect(view(await asOf(ctx, who.userId, { date, list_limit: 50 }))).toEqual(view(full));
        expect(view(await asOf(withParts(workers), who.userId, { date, list_limit: 50 }))).toEqual(view(full));
      }
      // The trees focused on a trade, and short lists (the merge of the parts' first items).
      const focus = (await asOf(ctx, who.userId, { list_limit: 1, full: true })).closed[0]?.uid;
      for (const q of [{ list_limit: 1 }, { list_limit: 3, trade: focus }]) {
        expect(view(await asOf(withParts(workers), who.userId, q))).toEqual(view(await asOf(ctx, who.userId, { ...q, full: true })));
      }
    }
  }, 240_000);

  it('Verify from the stored states equals Verify from the first event, and names a changed, a missing and a moved row', async () => {
    const who = seeded[0]!;
    await build(who.userId);
    for (const c of [ctx, withParts(workers)]) {
      await cold();
      const stored = await verify(c, who.userId);
      expect(stored.consistent, JSON.stringify(stored.differences.slice(0, 3))).toBe(true);
      expect(stored.stored_state).not.toBeNull();
      expect({ ...stored, elapsed_ms: 0, stored_state: null }).toEqual({ ...(await verify(c, who.userId, { full: true })), elapsed_ms: 0 });
    }
    const tables = await liveTables(database.db, 'trades');
    const T = sql.table(tables.trades!);
    const [a, b, moved] = (await sql<{ uid: string; lid: string; pao: number }>`select uid, lid, pao from ${T} where user_id = ${who.userId} order by uid limit 3`.execute(database.db)).rows;
    const saved = (await sql<Record<string, unknown>>`select * from ${T} where user_id = ${who.userId} and uid = ${b!.uid}`.execute(database.db)).rows[0]!;
    await sql`update ${T} set pao = pao + 1 where user_id = ${who.userId} and uid = ${a!.uid}`.execute(database.db);
    await sql`delete from ${T} where user_id = ${who.userId} and uid = ${b!.uid}`.execute(database.db);
    // A lineage column changed by hand moves the live row into another part than its replayed row.
    const otherLid = `${moved!.lid}${partOf(moved!.lid) === 0 ? 'y' : 'x'}`;
    expect(partOf(otherLid)).not.toBe(partOf(moved!.lid));
    await sql`update ${T} set lid = ${otherLid} where user_id = ${who.userId} and uid = ${moved!.uid}`.execute(database.db);
    try {
      for (const c of [ctx, withParts(workers)]) {
        await cold();
        const v = await verify(c, who.userId);
        const full = await verify(c, who.userId, { full: true });
        expect(v.consistent).toBe(false);
        expect(v.difference_count).toBe(3);
        expect(v.differences).toContainEqual({ table: 'trades', key: a!.uid, kind: 'differs', fields: [{ field: 'pao', live: a!.pao + 1, replayed: a!.pao }] });
        expect(v.differences).toContainEqual({ table: 'trades', key: b!.uid, kind: 'only_replayed', fields: [] });
        expect(v.differences).toContainEqual({ table: 'trades', key: moved!.uid, kind: 'differs', fields: [{ field: 'lid', live: otherLid, replayed: moved!.lid }] });
        const byKey = (x: { key: string }, y: { key: string }) => (x.key < y.key ? -1 : 1);
        expect([...v.differences].sort(byKey)).toEqual([...full.differences].sort(byKey));
        expect(v.rows).toEqual(full.rows);
      }
    } finally {
      // The value read before, not pao - 1: (x + 1) - 1 is not x for every double (255.34 comes back as 255.34000000000003).
      await sql`update ${T} set pao = ${a!.pao} where user_id = ${who.userId} and uid = ${a!.uid}`.execute(database.db);
      await sql`update ${T} set lid = ${moved!.lid} where user_id = ${who.userId} and uid = ${moved!.uid}`.execute(database.db);
      await sql`insert into ${T} select * from json_populate_record(null::${T}, ${JSON.stringify(saved)}::json)`.execute(database.db);
    }
    expect((await verify(withParts(workers), who.userId)).consistent).toBe(true);
  });

  it('through the routes (parts in the gateway\'s worker threads): the answers say where they started, full=true replays from the first event and is recorded', async () => {
    const who = seeded[0]!;
    await build(who.userId);
    const support = await signInAs(t, { role: 'Support', name: 'Sid Support' });
    const admin = await signInAs(t, { role: 'Admin' });
    const reason = 'Ticket 9001: stored replay states';
    const get = async (path: string, as: { authorization: string } = support) => {
      const r = await t.app.inject({ method: 'GET', url: url(path), headers: { authorization: as.authorization } });
      expect(r.statusCode, r.body).toBe(200);
      return r.json();
    };
    const q = (extra: Record<string, string> = {}) => new URLSearchParams({ reason, ...extra }).toString();
    const chain = await chainOf(who.userId);
    const events = (await positions(who.userId)).length;
    const last = chain.at(-1)!;
    for (const path of [`/audit/users/${who.userId}/as-of`, `/audit/users/${who.userId}/verify`]) {
      const stored = await get(`${path}?${q()}`);
      expect(stored.stored_state).toMatchObject({ position: positionToString(last.upto), events: last.events, events_after: events - last.events });
      const full = await get(`${path}?${q({ full: 'true' })}`);
      expect(full.stored_state).toBeNull();
      expect({ ...stored, elapsed_ms: 0, stored_state: null }).toEqual({ ...full, elapsed_ms: 0 });
    }
    const log = await get(`/audit/access-log?user=${who.userId}&limit=10`, admin);
    const views = log.items.filter((i: { support: { uid: string } }) => i.support.uid === support.userId).map((i: { view: string; detail: string }) => `${i.view}: ${i.detail}`);
    expect(views).toContain('verify: replayed the whole history from the first event against the live read models');
    expect(views).toContain('verify: replayed the whole history against the live read models');
    expect(views.some((v: string) => v.startsWith('as-of:') && v.includes('full=true'))).toBe(true);
  });

  it('after new appends the views fold the events after the last chunk, and the maintenance carries the chain forward', async () => {
    const who = seeded[1]!;
    await build(who.userId);
    const before = await chainOf(who.userId);
    const account = await accountOf(who);
    await everyAction(who, account, 7);
    await everyAction(who, account, 8);
    await settle();
    const compare = async () => {
      for (const p of (await positions(who.userId)).slice(-20)) {
        await cold();
        expect(view(await asOf(withParts(workers), who.userId, { event: p.position, list_limit: 100 }))).toEqual(view(await asOf(ctx, who.userId, { event: p.position, list_limit: 100, full: true })));
      }
      await cold();
      const v = await verify(withParts(workers), who.userId);
      expect(v.consistent, JSON.stringify(v.differences.slice(0, 3))).toBe(true);
      return v;
    };
    const stale = await compare();
    expect(stale.stored_state!.events).toBe(before.at(-1)!.events);
    expect(stale.stored_state!.events_after).toBeGreaterThanOrEqual(CHUNK.chunkEvents);
    const run = await runStateMaintenance(database.db, CHUNK);
    expect(run.find((r) => r.userId === who.userId)?.written).toBeGreaterThan(0);
    await build(who.userId);
    const after = await compare();
    expect(after.stored_state!.events).toBeGreaterThan(before.at(-1)!.events);
    expect(after.stored_state!.events_after).toBeLessThan(CHUNK.chunkEvents);
  });

  it('states of another code version or another log origin are never read, and the maintenance removes them', async () => {
    const who = seeded[2]!;
    const other: StateKey = { ...currentStateKey(), codeKey: 'another version of the fold' };
    await sql`delete from audit_replay_states where user_id = ${who.userId}`.execute(database.db);
    expect((await build(who.userId, other)).written).toBeGreaterThan(0);
    await cold();
    const a = await asOf(withParts(workers), who.userId, { list_limit: 100 });
    expect(a.stored_state).toBeNull();
    expect(view(a)).toEqual(view(await asOf(ctx, who.userId, { list_limit: 100, full: true })));
    // This code's own chain, then moved to another origin (a logical copy of the database).
    await build(who.userId);
    await sql`update audit_replay_states set log_origin = 'another cluster/16384' where user_id = ${who.userId} and code_key = ${currentStateKey().codeKey}`.execute(database.db);
    await cold();
    expect((await verify(withParts(workers), who.userId)).stored_state).toBeNull();
    // A day old, another version's rows go; another origin's at once.
    await sql`update audit_replay_states set created_at = now() - interval '2 days' where code_key = ${other.codeKey}`.execute(database.db);
    await runStateMaintenance(database.db, { ...CHUNK, minEvents: 1_000_000 });
    const left = await sql<{ n: number }>`select count(*)::int as n from audit_replay_states where code_key = ${other.codeKey} or log_origin = 'another cluster/16384'`.execute(database.db);
    expect(left.rows[0]!.n).toBe(0);
  });

  it('a stored row changed by hand fails its SHA-256: views start from the chunk before it, and the maintenance replaces it', async () => {
    const who = seeded[0]!;
    await build(who.userId);
    const chain = await chainOf(who.userId);
    const k = Math.floor(chain.length / 2);
    const full = await asOf(ctx, who.userId, { list_limit: 100, full: true });
    const atK = positionToString(chain[k]!.upto);
    const fullAtK = await asOf(ctx, who.userId, { event: atK, list_limit: 100, full: true });
    const tamper = [
      sql`update audit_replay_states set payload = set_byte(payload, 20, get_byte(payload, 20) # 1) where user_id = ${who.userId} and seq = ${k} and part = 0`,
      sql`update audit_replay_states set events = events + 1 where user_id = ${who.userId} and seq = ${k}`,
      sql`update audit_replay_states set sha256 = sha256(payload) where user_id = ${who.userId} and seq = ${k} and part = -1`,
    ];
    for (const change of tamper) {
      await build(who.userId);
      await change.execute(database.db);
      for (const c of [ctx, withParts(workers)]) {
        await cold();
        expect(view(await asOf(c, who.userId, { list_limit: 100 }))).toEqual(view(full));
        // Right after chunk k's last event the view would start from chunk k: it starts from the one before.
        await cold();
        const a = await asOf(c, who.userId, { event: atK, list_limit: 100 });
        expect(view(a)).toEqual(view(fullAtK));
        expect(a.stored_state!.events, `change ${tamper.indexOf(change)}`).toBe(chain[k - 1]!.events);
        await cold();
        const v = await verify(c, who.userId);
        expect(v.consistent, JSON.stringify(v.differences.slice(0, 3))).toBe(true);
      }
      const repaired = await extendUserStates(database.db, who.userId, CHUNK);
      expect(repaired.removed).toBeGreaterThan(0);
      expect(repaired.chunks).toBe(chain.length);
      await cold();
      expect((await asOf(ctx, who.userId, { list_limit: 100 })).stored_state!.events).toBe(chain.at(-1)!.events);
    }
  });

  it('an event removed below a chunk (a restore from an older backup) makes the views replay from the first event and the maintenance fold again', async () => {
    const victim = await signInAs(t, { name: 'Restored' });
    const account = await accountOf(victim);
    for (let n = 0; n < 3; n++) await everyAction(victim, account, n);
    await settle();
    await build(victim.userId);
    const chain = await chainOf(victim.userId);
    expect(chain.length).toBeGreaterThan(1);
    // The deleted trade's events: removing them leaves a log the projection could have come from.
    const deleted = (await readUserLog(database.db, victim.userId)).filter((e) => e.type === 'TradeDeleted')[0]!;
    await sql`delete from events where event_id = ${deleted.id}::uuid`.execute(database.db);
    await cold();
    const a = await asOf(withParts(workers), victim.userId, { list_limit: 100 });
    expect(a.stored_state === null || a.stored_state.events < chain.find((c) => comparePositions(c.upto, deleted.position) >= 0)!.events).toBe(true);
    expect(view(a)).toEqual(view(await asOf(ctx, victim.userId, { list_limit: 100, full: true })));
    const r = await extendUserStates(database.db, victim.userId, CHUNK);
    expect(r.removed).toBeGreaterThan(0);
    await cold();
    expect(view(await asOf(withParts(workers), victim.userId, { list_limit: 100 }))).toEqual(view(await asOf(ctx, victim.userId, { list_limit: 100, full: true })));
  });

  it('folds only events below the visibility horizon: an append held open keeps the chain before it', async () => {
    const trader = await signInAs(t, { name: 'Held Open' });
    const account = await accountOf(trader);
    let inserted!: () => void;
    const insertedAt = new Promise<void>((r) => (inserted = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const pausing = new PostgresEventStore(database, {
      upcast: upcastJournalEvent,
      afterInsert: async (streamId) => {
        if (!streamId.startsWith(`trade-${trader.userId}.`)) return;
        inserted();
        await released;
      },
    });
    const held = await createTestApp({ database, eventStore: pausing, now: `${TODAY}T15:00:00Z` });
    try {
      for (let n = 0; n < 2; n++) await everyAction(trader, account, n);
      const open = held.app.inject({ method: 'POST', url: url('/trades/add-trade'), headers: { authorization: trader.authorization }, payload: { trade_data: { ticker: 'HELD', strategy_uid: 'cash-secured-put', account_uid: account, strike_prices: [50], trade_open_date: '2026-02-10', expiration_date: '2026-03-20', contract_size: 1, premium_at_open: 80, net_fee_to_open: 0.65, net_delta: 0.2, stock_price_at_open: 55, notes: '' }, tag_data: [] } });
      await insertedAt;
      // Committed after the held append took its position: they sort after it.
      for (let n = 2; n < 4; n++) await everyAction(trader, account, n);
      await extendUserStates(database.db, trader.userId, CHUNK);
      const heldPosition = (await sql<{ c: string }>`select min(transaction_id)::text as c from events where stream_id like ${`trade-${trader.userId}.%`} and transaction_id >= pg_snapshot_xmin(pg_current_snapshot())`.execute(database.db)).rows[0]?.c;
      const chain = await chainOf(trader.userId);
      expect(chain.length).toBeGreaterThan(0);
      // Nothing at or after the horizon is folded: the held transaction's later neighbours wait with it.
      expect(heldPosition).toBeTruthy();
      for (const c of chain) expect(c.upto.commit < BigInt(heldPosition!)).toBe(true);
      release();
      expect((await open).statusCode).toBe(201);
      await settle();
      await build(trader.userId);
      await cold();
      const a = await asOf(withParts(workers), trader.userId, { list_limit: 100 });
      expect(a.counts.open).toBe((await asOf(ctx, trader.userId, { list_limit: 100, full: true })).counts.open);
      expect(view(a)).toEqual(view(await asOf(ctx, trader.userId, { list_limit: 100, full: true })));
      expect((await verify(withParts(workers), trader.userId)).consistent).toBe(true);
    } finally {
      release();
      // Only the second app: the database is the suite's.
      await held.app.close();
      await pausing.close();
    }
  });

  it("a lineage's part is the one PostgreSQL computes for its rows (Verify reads live rows a part at a time)", async () => {
    const ids = ['', 'a', 'b', 'L000009n8', '019caf10-3180-796e-817a-b1546d53961f', 'é', 'ü', 'x😀', '😀', 'ab\u00ff'];
    const { rows } = await sql<{ id: string; part: number }>`select id, ascii(right(id, 1)) % 2 as part from unnest(${ids}::text[]) as id`.execute(database.db);
    for (const r of rows) expect(partOf(r.id), JSON.stringify(r.id)).toBe(r.part);
  });

  it('the maintenance runs in one process at a time, leaves small users alone and stores nothing past its budget', async () => {
    await sql`delete from audit_replay_states`.execute(database.db);
    const logger = { info: () => {}, warn: () => {}, error: () => {} };
    const a = startStateMaintenance(t.db, { ...CHUNK, intervalMs: 3_600_000, logger });
    const b = startStateMaintenance(t.db, { ...CHUNK, intervalMs: 3_600_000, logger });
    try {
      const [ra, rb] = await Promise.all([a.runNow(), b.runNow()]);
      // One of them held the lock and did the work; the other found it taken.
      expect([ra.length, rb.length].sort()).toEqual([0, seeded.length + 2]);
    } finally {
      await a.stop();
      await b.stop();
    }
    await sql`delete from audit_replay_states`.execute(database.db);
    const most = await sql<{ n: number }>`select max(n)::int as n from (select count(*) as n from events where stream_id like 'trade-%' group by split_part(stream_id, '.', 1)) c`.execute(database.db);
    expect(await runStateMaintenance(database.db, { ...CHUNK, minEvents: most.rows[0]!.n + 1 })).toEqual([]);
    const bounded = await runStateMaintenance(database.db, { ...CHUNK, maxEventsPerRun: 4 * CHUNK.chunkEvents });
    expect(bounded.reduce((n, r) => n + r.folded, 0)).toBe(4 * CHUNK.chunkEvents);
  });
});
