import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPGliteDatabase, createTestDatabase } from '@oj/infra/testing/postgres';
import type { Database } from '@oj/infra/db/database';
import { physicalTables } from '../runtime/projection.ts';
import { tradesProjection } from './projection.ts';
import { tradeDaySummary, type TradeDaySection, type TradeOfDay } from '@oj/contracts/trade-views';
import { tradesByDate, type TradeReadTables } from './queries.ts';
import { appendSplitSpread, JournalLog, smallJournal, terms } from './testing.ts';

/**
 * Issue 14: the day a position was opened shows that position, not the rows later commands cut it
 * into. The small journal's B is a bull put spread (400/395, 1 contract, credit 150, fee 3) opened
 * 6 January 2026 and split on 8 January (long 395 leg B1 closed for a credit of 70, short 400 leg B2
 * kept open, later assigned); A (3 contracts, credit 600, fee 3) opened 5 January, 1 contract closed
 * on 7 January, the remainder A2 (2 contracts) rolled on 9 January.
 */
// Embedded mode reads the same query from PGlite (the split record's gene is jsonb on both).
describe.each(['postgres', 'pglite'] as const)('on %s', (mode) => {
let database: Database;
let tables: TradeReadTables;
const user = 'user-1';

beforeAll(async () => {
  database = mode === 'postgres' ? await createTestDatabase('trades_by_date') : await createPGliteDatabase();
  tables = physicalTables(tradesProjection, tradesProjection.version) as unknown as TradeReadTables;
  await tradesProjection.createTables(database.db, tables as unknown as Record<string, string>);
  const log = smallJournal(user, 'user-2');
  await database.db.transaction().execute((trx) => tradesProjection.apply({ trx, tables: tables as unknown as Record<string, string>, mode: 'live' }, log.events));
  // user-3: a bull put spread (credit 150) opened 6 January, split on 8 January (long leg 50 closed, short
  // leg 200 kept), and the short leg's premium then edited to 210.
  const edited = new JournalLog();
  appendSplitSpread(edited, 'user-3', 'S');
  edited.append('user-3', 'S', { type: 'TradeEdited', data: { tradeId: 'S2', changes: { premiumAtOpen: 210 } } });
  await database.db.transaction().execute((trx) => tradesProjection.apply({ trx, tables: tables as unknown as Record<string, string>, mode: 'live' }, edited.events));
  // user-4: a bull put spread P on 2 contracts (400/395, credit 300, fee 4) opened 6 January; 1 contract
  // closed on 7 January, the remainder P2 (1 contract, credit 150, fee 2) split on 8 January: the long
  // leg P21 (395, debit 50, fee 1) closed, the short leg P22 (400, credit 200, fee 1) kept open.
  const partThenSplit = new JournalLog();
  partThenSplit.append('user-4', 'P', {
    type: 'TradeOpened',
    data: { tradeId: 'P', lineageId: 'P', terms: terms({ ticker: 'SPY', strategyUid: 'bull-put-spread', strikePrices: [400, 395], contractSize: 2, premiumAtOpen: 300, netFeeToOpen: 4, openDate: '2026-01-06', expirationDate: '2026-01-16', netDelta: 0.15 }) },
  });
  partThenSplit.append('user-4', 'P', {
    type: 'TradeClosed',
    data: {
      tradeId: 'P',
      close: { closeAction: 'close', closeDate: '2026-01-07', contractsClosed: 1, premiumAtClose: 60, netFeeToClose: 1, closeTransaction: 2 },
      closedPart: { premiumAtOpen: 150, netFeeToOpen: 2 },
      remainder: { tradeId: 'P2', contractSize: 1, premiumAtOpen: 150, netFeeToOpen: 2 },
    },
  });
  partThenSplit.append('user-4', 'P', {
    type: 'TradeSplit',
    data: {
      tradeId: 'P2',
      closedLeg: {
        tradeId: 'P21', legIndex: 1, strategyUid: 'long-put', strikePrice: 395, premiumAtOpen: 50, netFeeToOpen: 1, openTransaction: 2,
        close: { closeAction: 'close', closeDate: '2026-01-08', contractsClosed: 1, premiumAtClose: 70, netFeeToClose: 1, closeTransaction: 1 },
      },
      openLeg: { tradeId: 'P22', legIndex: 0, strategyUid: 'naked-put', strikePrice: 400, premiumAtOpen: 200, netFeeToOpen: 1, openTransaction: 1 },
    },
  });
  await database.db.transaction().execute((trx) => tradesProjection.apply({ trx, tables: tables as unknown as Record<string, string>, mode: 'live' }, partThenSplit.events));
});
afterAll(async () => {
  if (database && 'drop' in database) await (database as { drop(): Promise<void> }).drop();
  else await database?.close();
});

const today = '2026-02-02';
/** The list's trades of one section, in list order. */
const inSection = (day: TradeOfDay[], section: TradeDaySection) => day.filter((t) => t.section === section);

describe('trades by date (issue 14)', () => {
  it('the day a bull put spread was opened lists the spread, not its split legs', async () => {
    const day = await tradesByDate(database.db, tables, user, '2026-01-06', today);
    expect(inSection(day, 'open').map((t) => t.uid)).toEqual(['B']);
    // Strikes in leg order (short 400, long 395), the gene's contract and credit, both legs' fees (1.5 + 1.5).
    expect(inSection(day, 'open')[0]).toMatchObject({ ticker: 'SPY', su: 'bull-put-spread', sp: [400, 395], cs: 1, pao: 150, ot: 1, nfto: 3, status: 1, tcd: null, auid: null });
    // Collateral of a credit vertical: width 5 x 100 x 1 - 150 = 350.
    expect(inSection(day, 'open')[0]?.c).toBe(350);
    expect(inSection(day, 'scalp')).toEqual([]);
    expect(inSection(day, 'closed')).toEqual([]);
    // The day's premium is the spread's credit: -50 (long leg, debit) + 200 (short leg, credit).
    expect(tradeDaySummary(day)).toEqual({ trades: 1, open_count: 1, scalp_count: 0, closed_count: 0, premium: 150, fees: 3, net: 147 });
  });

  it('the day a position was opened shows it whole after a partial close (3 contracts, 600)', async () => {
    const day = await tradesByDate(database.db, tables, user, '2026-01-05', today);
    expect(inSection(day, 'open').map((t) => t.uid)).toEqual(['A']);
    expect(inSection(day, 'open')[0]).toMatchObject({ cs: 3, pao: 600, nfto: 3, status: 1, pf: null });
    expect(tradeDaySummary(day)).toMatchObject({ trades: 1, open_count: 1, premium: 600, fees: 3 });
  });

  it('the split day still lists the closed leg under Closed Trades', async () => {
    const day = await tradesByDate(database.db, tables, user, '2026-01-08', today);
    expect(inSection(day, 'closed').map((t) => t.uid)).toEqual(['B1']);
    expect(inSection(day, 'scalp').map((t) => t.uid)).toEqual(['D']);
    // One list: D's scalp before B1's close. By hand: B1's close +70 (fee 1); D's open -300 (debit, fee 1)
    // and close +360 (fee 1); G, opened and deleted that day, is gone. Trades: one close + a scalp as two.
    expect(day.map((t) => [t.uid, t.section])).toEqual([['D', 'scalp'], ['B1', 'closed']]);
    expect(tradeDaySummary(day)).toEqual({ trades: 3, open_count: 0, scalp_count: 1, closed_count: 1, premium: 130, fees: 3, net: 127 });
  });

  it("a split spread's day shows the legs' net premium as they stand, so the total is the day's cash flow", async () => {
    const day = await tradesByDate(database.db, tables, 'user-3', '2026-01-06', today);
    // By hand: the short leg's credit 210 less the long leg's debit 50 = a 160 credit; fees 1.5 + 1.5.
    expect(day.map((t) => [t.uid, t.section, t.pao, t.ot, t.cs])).toEqual([['S', 'open', 160, 1, 1]]);
    expect(tradeDaySummary(day)).toEqual({ trades: 1, open_count: 1, scalp_count: 0, closed_count: 0, premium: 160, fees: 3, net: 157 });
  });

  it("a spread partly closed, then its remainder split, is one position on its day: the day record counts it once", async () => {
    const day = await tradesByDate(database.db, tables, 'user-4', '2026-01-06', today);
    // By hand: the closed part's credit 150 + the short leg's 200 - the long leg's 50 = 300 on 2 contracts
    // (1 closed + the split trade's 1); fees 2 + 1 + 1 = 4. Strikes in leg order from the legs.
    expect(day.map((t) => [t.uid, t.section, t.su, t.sp, t.cs, t.pao, t.ot, t.nfto])).toEqual([['P', 'open', 'bull-put-spread', [400, 395], 2, 300, 1, 4]]);
    expect(tradeDaySummary(day)).toEqual({ trades: 1, open_count: 1, scalp_count: 0, closed_count: 0, premium: 300, fees: 4, net: 296 });
  });

  it('shows nothing of another user', async () => {
    const day = await tradesByDate(database.db, tables, 'user-2', '2026-01-06', today);
    expect(inSection(day, 'open').map((t) => t.uid)).not.toContain('B');
  });
});
});
