import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPGliteDatabase, createTestDatabase } from '@oj/infra/testing/postgres';
import type { Database } from '@oj/infra/db/database';
import { physicalTables } from '../runtime/projection.ts';
import { tradesProjection } from './projection.ts';
import { tradesByDate, type TradeReadTables } from './queries.ts';
import { smallJournal } from './testing.ts';

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
});
afterAll(async () => {
  if (database && 'drop' in database) await (database as { drop(): Promise<void> }).drop();
  else await database?.close();
});

const today = '2026-02-02';

describe('trades by date (issue 14)', () => {
  it('the day a bull put spread was opened lists the spread, not its split legs', async () => {
    const day = await tradesByDate(database.db, tables, user, '2026-01-06', today);
    expect(day.open_trades.map((t) => t.uid)).toEqual(['B']);
    // Strikes in leg order (short 400, long 395), the gene's contract and credit, both legs' fees (1.5 + 1.5).
    expect(day.open_trades[0]).toMatchObject({ ticker: 'SPY', su: 'bull-put-spread', sp: [400, 395], cs: 1, pao: 150, ot: 1, nfto: 3, status: 1, tcd: null, auid: null });
    // Collateral of a credit vertical: width 5 x 100 x 1 - 150 = 350.
    expect(day.open_trades[0]?.c).toBe(350);
    expect(day.scalp_trades).toEqual([]);
    expect(day.closed_trades).toEqual([]);
    // The day's premium is the spread's credit: -50 (long leg, debit) + 200 (short leg, credit).
    expect(day.summary).toEqual({ trades: 1, open_count: 1, scalp_count: 0, closed_count: 0, premium: 150, fees: 3, net: 147 });
  });

  it('the day a position was opened shows it whole after a partial close (3 contracts, 600)', async () => {
    const day = await tradesByDate(database.db, tables, user, '2026-01-05', today);
    expect(day.open_trades.map((t) => t.uid)).toEqual(['A']);
    expect(day.open_trades[0]).toMatchObject({ cs: 3, pao: 600, nfto: 3, status: 1, pf: null });
    expect(day.summary).toMatchObject({ trades: 1, open_count: 1, premium: 600, fees: 3 });
  });

  it('the split day still lists the closed leg under Closed Trades', async () => {
    const day = await tradesByDate(database.db, tables, user, '2026-01-08', today);
    expect(day.closed_trades.map((t) => t.uid)).toEqual(['B1']);
    expect(day.scalp_trades.map((t) => t.uid)).toEqual(['D']);
  });

  it('shows nothing of another user', async () => {
    const day = await tradesByDate(database.db, tables, 'user-2', '2026-01-06', today);
    expect(day.open_trades.map((t) => t.uid)).not.toContain('B');
  });
});
});
