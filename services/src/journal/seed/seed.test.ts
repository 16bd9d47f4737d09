import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journalStreamPrefix } from '@oj/contracts/journal-events';
import { upcastJournalEvent } from '@oj/infra/eventstore/create';
import { PostgresEventStore } from '@oj/infra/eventstore/postgres';
import { createPGliteDatabase } from '@oj/infra/testing/postgres';
import type { Database } from '@oj/infra/db/database';
import { migrate } from '../../platform/migrations.ts';
import { seedJournals } from './generate.ts';

const config = { JWT_SECRET: 'x'.repeat(40), ACCESS_TOKEN_TTL_SECONDS: 900, REFRESH_TOKEN_TTL_DAYS: 30, PUBLIC_URL: 'http://journal.test', DATA_DIR: '/tmp/oj-seed-test' };

async function seeded(seed: number) {
  const database: Database = await createPGliteDatabase();
  await migrate(database.db);
  const eventStore = new PostgresEventStore(database, { upcast: upcastJournalEvent });
  const options = { users: 2, tradesPerUser: 60, seed, today: '2026-03-02' };
  const report = await seedJournals({ db: database.db, eventStore, config }, options);
  const events = await eventStore.readAll({ streamPrefixes: [journalStreamPrefix], limit: 100_000 });
  return { database, eventStore, report, events, options };
}

describe('seed', () => {
  let a: Awaited<ReturnType<typeof seeded>>;
  let b: Awaited<ReturnType<typeof seeded>>;
  beforeAll(async () => {
    a = await seeded(7);
    b = await seeded(7);
  }, 120_000);
  afterAll(async () => {
    for (const x of [a, b]) {
      await x?.eventStore.close();
      await x?.database.close();
    }
  });

  it('writes every kind of command, with few refusals', () => {
    expect(Object.keys(a.report.commands).sort()).toEqual(['addClosedTrade', 'addTrade', 'close', 'delete', 'roll', 'split', 'update'].sort());
    expect(a.report.refused).toBeLessThan(5);
    const types = new Set(a.events.map((e) => e.type));
    expect([...types].sort()).toEqual(['TradeClosed', 'TradeDeleted', 'TradeEdited', 'TradeOpened', 'TradeRolled', 'TradeSplit']);
    expect(a.events.some((e) => e.type === 'TradeClosed' && (e.data as { close: { closeAction: string } }).close.closeAction === 'expireWorthless')).toBe(true);
  });

  it('closes each position with the opposite transaction, and leaves open no trade that expired over a week before its today (QA)', () => {
    // Each trade's opening transaction, from the events that create it (a remainder keeps its parent's).
    const ot = new Map<string, number>();
    const closes: { tradeId: string; closeTransaction: number; closeAction: string }[] = [];
    const open = new Map<string, string>(); // trade -> expiration, while open
    const expirationOf = new Map<string, string>();
    for (const e of a.events) {
      const d = e.data as Record<string, any>;
      if (e.type === 'TradeOpened') {
        ot.set(d.tradeId, d.terms.openTransaction);
        expirationOf.set(d.tradeId, d.terms.expirationDate);
        open.set(d.tradeId, d.terms.expirationDate);
      }
      if (e.type === 'TradeClosed' || e.type === 'TradeRolled') {
        closes.push({ tradeId: d.tradeId, closeTransaction: d.close.closeTransaction, closeAction: d.close.closeAction });
        open.delete(d.tradeId);
        if (d.remainder) {
          ot.set(d.remainder.tradeId, ot.get(d.tradeId)!);
          expirationOf.set(d.remainder.tradeId, expirationOf.get(d.tradeId)!);
          open.set(d.remainder.tradeId, expirationOf.get(d.tradeId)!);
        }
      }
      if (e.type === 'TradeRolled') {
        ot.set(d.newTrade.tradeId, d.newTrade.terms.openTransaction);
        expirationOf.set(d.newTrade.tradeId, d.newTrade.terms.expirationDate);
        open.set(d.newTrade.tradeId, d.newTrade.terms.expirationDate);
      }
      if (e.type === 'TradeSplit') {
        open.delete(d.tradeId);
        closes.push({ tradeId: d.closedLeg.tradeId, closeTransaction: d.closedLeg.close.closeTransaction, closeAction: d.closedLeg.close.closeAction });
        ot.set(d.closedLeg.tradeId, d.closedLeg.openTransaction);
        ot.set(d.openLeg.tradeId, d.openLeg.openTransaction);
        open.set(d.openLeg.tradeId, expirationOf.get(d.tradeId)!);
      }
      if (e.type === 'TradeDeleted') open.delete(d.tradeId);
    }
    const priced = closes.filter((c) => c.closeAction === 'close');
    expect(priced.length).toBeGreaterThan(20);
    expect(priced.filter((c) => c.closeTransaction !== 3 - ot.get(c.tradeId)!)).toEqual([]);
    // Today is 2 March 2026: what is still open expired on 23 February or later.
    expect(open.size).toBeGreaterThan(0);
    expect([...open].filter(([, ed]) => ed < '2026-02-23')).toEqual([]);
  });

  it('is deterministic for a seed (same trades, same event data)', () => {
    const shape = (x: typeof a) => x.events.map((e) => [e.type, JSON.stringify(e.data).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'uuid')]);
    // User ids differ between databases; event payloads do not, apart from the account uid.
    expect(shape(a).length).toBe(shape(b).length);
    expect(shape(a)).toEqual(shape(b));
  });

  it('records no event after the wall clock when seeding today in the morning (QA: events stamped 16:00Z at 10:46Z)', async () => {
    const database: Database = await createPGliteDatabase();
    try {
      await migrate(database.db);
      const eventStore = new PostgresEventStore(database, { upcast: upcastJournalEvent });
      const now = new Date('2026-03-02T14:46:00Z');
      await seedJournals({ db: database.db, eventStore, config }, { users: 1, tradesPerUser: 5, seed: 3, now });
      const events = await eventStore.readAll({ streamPrefixes: [journalStreamPrefix], limit: 1_000 });
      expect(events.length).toBeGreaterThan(0);
      expect(events.filter((e) => Date.parse(e.metadata.recordedAt) > now.getTime())).toEqual([]);
      await eventStore.close();
    } finally {
      await database.close();
    }
  });

  it('running the same seed again appends nothing', async () => {
    await seedJournals({ db: a.database.db, eventStore: a.eventStore, config }, a.options);
    const again = await a.eventStore.readAll({ streamPrefixes: [journalStreamPrefix], limit: 100_000 });
    expect(again).toHaveLength(a.events.length);
    // Another day with the same seed: the same keys name other trades, and the refusals say so (QA 74:
    // "refused: 5", no reason), still appending nothing.
    const other = await seedJournals({ db: a.database.db, eventStore: a.eventStore, config }, { ...a.options, tradesPerUser: 3, today: '2026-02-02' });
    expect(other.refused).toBeGreaterThan(0);
    expect(other.refusedBecause).toEqual({ 'This Idempotency-Key was already used for a different request.': other.refused });
    expect(await a.eventStore.readAll({ streamPrefixes: [journalStreamPrefix], limit: 100_000 })).toHaveLength(a.events.length);
  });
});

describe('npm run seed, its command line', () => {
  it('prints its usage for --help, -h and help, and one line with the usage for an unknown option, never a stack trace (QA)', async () => {
    const { spawnSync } = await import('node:child_process');
    const cli = new URL('./cli.ts', import.meta.url).pathname;
    const run = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { ...process.env, DATABASE_URL: '' } });
    const help = run('--help');
    expect(help.status).toBe(0);
    // Every option with its default (QA: the usage read as if --users and --trades were required).
    expect(help.stdout.split('\n').slice(0, 3)).toEqual([
      'usage: npm run seed -- [--users N] [--trades M] [--seed S] [--today YYYY-MM-DD]',
      '  --users N    traders to create (default 3), each a verified user with a trade account',
      '  --trades M   trades per trader (default 50), opened, closed, rolled, split and edited through the command handler',
    ]);
    for (const ask of ['-h', 'help']) {
      const again = run(ask);
      expect([again.status, again.stdout], ask).toEqual([0, help.stdout]);
    }
    const bogus = run('--bogus');
    expect(bogus.status).toBe(2);
    expect(bogus.stderr).toBe(`Unknown option '--bogus'\n${help.stdout}`);
  });
});
