import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineageStreamId } from '@oj/contracts/journal-events';
import { FixedClock } from '@oj/infra/clock';
import { deterministicUuid, uuidv7 } from '@oj/infra/ids';
import { upcastJournalEvent } from '@oj/infra/eventstore/create';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import type { EventStore, ExpectedRevision, NewEvent } from '@oj/infra/eventstore/port';
import type { Database } from '@oj/infra/db/database';
import { createPGliteDatabase } from '@oj/infra/testing/postgres';
import { migrate } from '../platform/migrations.ts';
import { addAccount } from '../accounts/commands.ts';
import { createUser } from '../identity/commands.ts';
import type { Principal } from '../app/principal.ts';
import { AppError } from '../app/errors.ts';
import { runJournalCommand, type JournalContext } from './commands.ts';

/**
 * The handler's race handling, made deterministic: a real store whose next appends are preceded by
 * another request's append to the same stream (what a concurrent command does between our read and
 * our append).
 */
class InterleavingStore {
  readonly store: PostgresEventStore;
  pending: Array<() => Promise<unknown>> = [];
  constructor(store: PostgresEventStore) {
    this.store = store;
  }
  asEventStore(): EventStore {
    return new Proxy(this.store, {
      get: (target, prop) => {
        if (prop === 'append') {
          return async (streamId: string, events: NewEvent[], expected: ExpectedRevision) => {
            const before = this.pending.shift();
            if (before) await before();
            return target.append(streamId, events, expected);
          };
        }
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }
}

let database: Database;
let interleaving: InterleavingStore;
let ctx: JournalContext;
/** The other request: same handler, plain store (its appends are not interleaved). */
let otherCtx: JournalContext;
let principal: Principal;
let account: string;
const clock = new FixedClock('2026-03-02T15:00:00Z');
const config = { JWT_SECRET: 'x'.repeat(40), ACCESS_TOKEN_TTL_SECONDS: 900, REFRESH_TOKEN_TTL_DAYS: 30, PUBLIC_URL: 'http://journal.test' };

beforeAll(async () => {
  database = await createPGliteDatabase();
  await migrate(database.db);
  interleaving = new InterleavingStore(new PostgresEventStore(database, { upcast: upcastJournalEvent }));
  ctx = { db: database.db, eventStore: interleaving.asEventStore(), clock };
  otherCtx = { db: database.db, eventStore: interleaving.store, clock };
  const userId = await createUser({ db: database.db, clock, config: config as never }, { name: 'Race Trader', email: 'race@example.com', password: 'Secret1!x', verified: true });
  principal = { userId, email: 'race@example.com', name: 'Race Trader', role: 'User', subsStatus: 1, subscriptionActive: true, verified: true };
  account = (await addAccount({ db: database.db, clock, dataDir: '/tmp' }, principal, { name: 'Main', broker: 'ibkr', ac_type: 1, broker_commission: 0.65, broker_fee: 0.03 })).uid;
});
afterAll(async () => {
  await interleaving?.store.close();
  await database?.close();
});

const caller = () => ({ principal, requestId: uuidv7(), idempotencyKey: null });
const open = async () =>
  (await runJournalCommand(ctx, caller(), {
    kind: 'addTrade',
    body: {
      trade_data: { ticker: 'KO', strategy_uid: 'cash-secured-put', account_uid: account, strike_prices: [60], trade_open_date: '2026-02-02', expiration_date: '2026-03-20', contract_size: 2, premium_at_open: 100, net_fee_to_open: 1, net_delta: 0.2, stock_price_at_open: 62 },
      tag_data: [],
    },
  })) as { uid: string };
const edit = (uid: string, notes: string, on = ctx) => runJournalCommand(on, caller(), { kind: 'update', uid, body: { notes } });
const close = (uid: string, on = ctx) =>
  runJournalCommand(on, caller(), { kind: 'close', uid, action: 'close', body: { contract_size: 2, trade_close_date: '2026-02-27', premium_at_close: 10, net_fee_to_close: 1, close_transaction: 2 } });
const stream = (uid: string) => interleaving.store.readStream(lineageStreamId(principal.userId, uid));
async function refusal(p: Promise<unknown>): Promise<{ kind: string; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return { kind: e.kind, message: e.message };
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('a lost race', () => {
  it('re-reads and re-decides once: still valid, it succeeds on top of the other command', async () => {
    const trade = await open();
    interleaving.pending.push(() => edit(trade.uid, 'theirs', otherCtx));
    const answer = (await edit(trade.uid, 'mine')) as { notes: string };
    expect(answer.notes).toBe('mine');
    expect((await stream(trade.uid)).map((e) => [e.type, (e.data as { changes?: { notes?: string } }).changes?.notes])).toEqual([
      ['TradeOpened', undefined],
      ['TradeEdited', 'theirs'],
      ['TradeEdited', 'mine'],
    ]);
  });

  it('no longer valid after the re-read: 409 with the decider\'s message, nothing appended', async () => {
    const trade = await open();
    interleaving.pending.push(() => close(trade.uid, otherCtx));
    expect(await refusal(edit(trade.uid, 'too late'))).toEqual({ kind: 'conflict', message: 'Closed trades are final: this trade cannot be edited.' });
    expect((await stream(trade.uid)).map((e) => e.type)).toEqual(['TradeOpened', 'TradeClosed']);
  });

  it('losing twice: 409 "changed by another request"', async () => {
    const trade = await open();
    interleaving.pending.push(() => edit(trade.uid, 'a', otherCtx), () => edit(trade.uid, 'b', otherCtx));
    expect(await refusal(edit(trade.uid, 'mine'))).toEqual({ kind: 'conflict', message: 'This trade was changed by another request at the same time. Reload it and try again.' });
    expect(await stream(trade.uid)).toHaveLength(3);
  });
});

/**
 * The handler remembers each lineage as it last read or appended it and decides on that without a
 * read. Here the stream moves on behind its back (another gateway, in production): the decision must
 * still end up made on the stream as it is.
 */
describe('a remembered lineage that went stale', () => {
  const behindTheBack = async (uid: string, type: 'TradeEdited' | 'TradeDeleted' | 'TradeClosed', data: object) => {
    const events = await stream(uid);
    const last = events.at(-1)!;
    await interleaving.store.append(
      lineageStreamId(principal.userId, uid),
      [{ id: uuidv7(), type, schemaVersion: 1, data, metadata: { ...last.metadata, correlationId: uuidv7(), causationId: null, idempotencyKey: null } }],
      last.revision,
    );
  };

  it('a still-valid command loses its append, re-reads and succeeds on top of the other change', async () => {
    const trade = await open();
    await edit(trade.uid, 'remembered');
    await behindTheBack(trade.uid, 'TradeEdited', { tradeId: trade.uid, changes: { notes: 'elsewhere' } });
    const answer = (await edit(trade.uid, 'mine')) as { notes: string };
    expect(answer.notes).toBe('mine');
    expect((await stream(trade.uid)).map((e) => [e.type, e.revision, (e.data as { changes?: { notes?: string } }).changes?.notes])).toEqual([
      ['TradeOpened', 0, undefined],
      ['TradeEdited', 1, 'remembered'],
      ['TradeEdited', 2, 'elsewhere'],
      ['TradeEdited', 3, 'mine'],
    ]);
  });

  it('a command refused on the remembered state is decided again on a fresh read: a trade made elsewhere is found', async () => {
    // The same partial close, once through the handler (to copy its event) and once behind its back.
    const [copied, stale] = [await open(), await open()];
    const partial = { contract_size: 1, trade_close_date: '2026-02-27', premium_at_close: 10, net_fee_to_close: 1, close_transaction: 2 } as const;
    await runJournalCommand(ctx, caller(), { kind: 'close', uid: copied.uid, action: 'close', body: partial });
    const closedEvent = (await stream(copied.uid)).at(-1)!;
    const remainder = uuidv7();
    const data = closedEvent.data as { tradeId: string; remainder: { tradeId: string } };
    await behindTheBack(stale.uid, 'TradeClosed', { ...data, tradeId: stale.uid, remainder: { ...data.remainder, tradeId: remainder } });
    await database.db.insertInto('trade_lineage_index').values({ trade_uid: remainder, user_id: principal.userId, lineage_id: stale.uid }).execute();
    const answer = (await runJournalCommand(ctx, caller(), { kind: 'close', uid: remainder, action: 'close', body: partial })) as { closed_trade: { uid: string } };
    expect(answer.closed_trade.uid).toBe(remainder);
    expect((await stream(stale.uid)).map((e) => e.type)).toEqual(['TradeOpened', 'TradeClosed', 'TradeClosed']);
  });

  it('a keyed retry decided on the remembered state finds its first try\'s events stored later in the stream: answered from them, appended once', async () => {
    const trade = await open();
    await edit(trade.uid, 'remembered');
    // Behind the back: another edit, then the first try of the keyed request (its events are under the
    // key's ids; it crashed before its answer was stored, so the key's claim holds no answer).
    await behindTheBack(trade.uid, 'TradeEdited', { tradeId: trade.uid, changes: { notes: 'elsewhere' } });
    const key = `stored-later-${trade.uid}`;
    const events = await stream(trade.uid);
    await interleaving.store.append(
      lineageStreamId(principal.userId, trade.uid),
      [
        {
          id: deterministicUuid(principal.userId, key, '0'),
          type: 'TradeEdited',
          schemaVersion: 1,
          data: { tradeId: trade.uid, changes: { netDelta: 0.45 } },
          metadata: { ...events.at(-1)!.metadata, correlationId: uuidv7(), causationId: null, idempotencyKey: key },
        },
      ],
      events.at(-1)!.revision,
    );
    const retry = { ...caller(), idempotencyKey: key };
    const answer = (await runJournalCommand(ctx, retry, { kind: 'update', uid: trade.uid, body: { net_delta: 0.45 } })) as { notes: string; nd: number };
    // Decided on the remembered state (notes 'remembered', revision 1), its append found the key's event
    // at revision 3, not 2: the answer is the stream's as of that event, with the other edit in it.
    expect([answer.notes, answer.nd]).toEqual(['elsewhere', 0.45]);
    expect((await stream(trade.uid)).map((e) => [e.type, e.revision, e.metadata.idempotencyKey])).toEqual([
      ['TradeOpened', 0, null],
      ['TradeEdited', 1, null],
      ['TradeEdited', 2, null],
      ['TradeEdited', 3, key],
    ]);
    // The answer is stored on the key, and what the handler remembers is the stream as it is: a later
    // command appends after revision 3 without a lost race.
    expect(await runJournalCommand(ctx, retry, { kind: 'update', uid: trade.uid, body: { net_delta: 0.45 } })).toEqual(answer);
    expect(((await edit(trade.uid, 'after')) as { notes: string }).notes).toBe('after');
    expect((await stream(trade.uid)).map((e) => e.revision)).toEqual([0, 1, 2, 3, 4]);
  });

  it('a command the fresh stream refuses is refused with the decider\'s answer, nothing appended', async () => {
    const trade = await open();
    await edit(trade.uid, 'remembered');
    await behindTheBack(trade.uid, 'TradeDeleted', { tradeId: trade.uid });
    const refused = await refusal(close(trade.uid));
    expect(refused.kind).toBe('not_found');
    expect((await stream(trade.uid)).map((e) => e.type)).toEqual(['TradeOpened', 'TradeEdited', 'TradeDeleted']);
  });
});
