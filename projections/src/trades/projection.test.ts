import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createPGliteDatabase, createTestDatabase } from '@oj/infra/testing/postgres';
import type { Database } from '@oj/infra/db/database';
import type { StoredEvent } from '@oj/infra/eventstore/port';
import { physicalTables } from '../runtime/projection.ts';
import { tradesProjection } from './projection.ts';
import { smallJournal } from './testing.ts';

describe.each(['postgres', 'pglite'] as const)('trades projection on %s', (mode) => {
let database: Database;

beforeAll(async () => {
  database = mode === 'postgres' ? await createTestDatabase('trades_projection') : await createPGliteDatabase();
});
afterAll(async () => {
  if (database && 'drop' in database) await (database as { drop(): Promise<void> }).drop();
  else await database?.close();
});

async function project(version: number, events: readonly StoredEvent[], batch: number): Promise<Record<string, string>> {
  const tables = physicalTables(tradesProjection, version);
  await tradesProjection.createTables(database.db, tables);
  for (let i = 0; i < events.length; i += batch) {
    await database.db.transaction().execute((trx) => tradesProjection.apply({ trx, tables, mode: 'live' }, events.slice(i, i + batch)));
  }
  return tables;
}

const byUid = async (table: string) => {
  const { rows } = await sql<any>`select * from ${sql.table(table)} order by uid`.execute(database.db);
  return Object.fromEntries(rows.map((r) => [r.uid, r]));
};

describe('folding the small journal', () => {
  const log = smallJournal();
  let tables: Record<string, string>;

  beforeAll(async () => {
    tables = await project(1, log.events, 3);
  });

  it('folds partial close, roll of a roll, split, assignment, call-away, scalp, expiry, edit and delete into trade rows with their figures', async () => {
    const t = await byUid(tables.trades!);
    expect(Object.keys(t)).toEqual(['A', 'A2', 'A3', 'A4', 'B1', 'B2', 'C', 'D', 'E', 'F', 'X']);
    expect(t.A).toMatchObject({ status: 2, cs: 1, pao: 200, pac: 50, ct: 2, npc: 150, nfto: 1, nftc: 1, c: 10000, ror: 1.48, aroc: 270.1, held: 2, rh: true, tcd: '2026-01-07', list: 2 });
    expect(t.A2).toMatchObject({ status: 3, cs: 2, pao: 400, pac: 100, npc: 300, c: 20000, ror: 1.48, aroc: 135.05, held: 4, pf: 'A', rf: null, list: 3 });
    expect(t.A3).toMatchObject({ status: 3, rf: 'A2', npc: 260, c: 19000, ror: 1.35, aroc: 98.36, held: 5 });
    expect(t.A4).toMatchObject({ status: 6, rf: 'A3', npc: 250, c: 18000, ror: 1.38, aroc: 31.43, held: 16, cg: null, close_action: 'expireWorthless' });
    expect(t.B1).toMatchObject({ su: 'long-put', sp: [395], ot: 2, pao: 50, pac: 70, ct: 1, npc: 20, nfto: 1.5, nftc: 1, c: 50, ror: 35, aroc: 6387.5, held: 2, auid: 'B', tod: '2026-01-06' });
    expect(t.B2).toMatchObject({ su: 'naked-put', sp: [400], npc: 200, c: 40000, ror: 0.5, aroc: 18.11, status: 4, cg: 0, held: 10, auid: 'B' });
    expect(t.C).toMatchObject({ c: 30000, npc: 500, ror: 1.66, aroc: 67.46, cg: 2000, status: 5, held: 9 });
    expect(t.D).toMatchObject({ c: 300, npc: 60, ror: 19.33, aroc: 7056.67, held: 0, tcd: '2026-01-08' });
    expect(t.E).toMatchObject({ status: 1, pao: 120, notes: 'earnings', c: 5000, npc: null, held: null, list: 1, sort_date: '2026-01-12' });
    expect(t.X).toMatchObject({ user_id: 'user-2', pao: 999 });
  });

  it('keeps per-list counts equal to the rows', async () => {
    const counted = await sql<any>`select user_id, list, count(*)::int as n from ${sql.table(tables.trades!)} group by 1, 2 order by 1, 2`.execute(database.db);
    const kept = await sql<any>`select user_id, list, n from ${sql.table(tables.trade_counts!)} order by 1, 2`.execute(database.db);
    expect(kept.rows).toEqual(counted.rows);
    expect(counted.rows).toEqual([
      { user_id: 'user-1', list: 1, n: 2 },
      { user_id: 'user-1', list: 2, n: 6 },
      { user_id: 'user-1', list: 3, n: 2 },
      { user_id: 'user-2', list: 1, n: 1 },
    ]);
  });

  it('keeps the split ancestor record', async () => {
    const { rows } = await sql<any>`select * from ${sql.table(tables.split_history!)}`.execute(database.db);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      auid: 'B',
      user_id: 'user-1',
      trades: ['B1', 'B2'],
      su: 'bull-put-spread',
      gene: { tod: '2026-01-06', ed: '2026-01-16', cs: 1, pao: 150, cause: 'Leg 2 closed, Leg 1 remains open.' },
    });
  });

  it('recomputes daily premium records per user and New York date', async () => {
    const { rows } = await sql<any>`select * from ${sql.table(tables.daily_premium!)} where user_id = 'user-1' order by income_date`.execute(database.db);
    const d = Object.fromEntries(rows.map((r) => [r.income_date, r]));
    expect(Object.keys(d)).toEqual(['2026-01-05', '2026-01-06', '2026-01-07', '2026-01-08', '2026-01-09', '2026-01-12', '2026-01-14', '2026-01-16', '2026-01-20', '2026-01-30']);
    expect(d['2026-01-05']).toMatchObject({ np: 600, nf: 3, otc: 1, ctc: 0, nd: 0.3, nep: 11, sg: { 'cash-secured-put': 1 }, tickers: { AAPL: 600 } });
    // B, split 8 January into a long put and a naked put, is one trade opened on 6 January: the bull put
    // spread as entered (delta 0.15, 10 days to 16 January); its premium is its legs' (200 - 50).
    expect(d['2026-01-06']).toMatchObject({ np: 150, nf: 3, otc: 1, nd: 0.15, nep: 10 });
    expect(d['2026-01-06'].sg).toEqual({ 'bull-put-spread': 1 });
    expect(d['2026-01-07']).toMatchObject({ np: 450, nf: 2, otc: 1, ctc: 1, iw: 1, npc: 150, cpt: -50, hp: 2, pr: 75, ttf: 2, incap: 10000, wdc: 20000, dg: { 'Early Exit': 1 } });
    expect(d['2026-01-08']).toMatchObject({
      np: 130, nf: 3, otc: 1, ctc: 2, iw: 2, npc: 80, cpt: 430, cg: 0, hp: 2, pr: 45.24, ttf: 4.5, incap: 350, wdc: 100, nd: 0.5, nep: 43,
      tickers: { SPY: 70, TSLA: 60 }, ct: { SPY: 1, TSLA: 1 }, sg: { 'long-call': 1 }, dg: { 'Early Exit': 2 },
      snpc: { 'long-call': { npc: 60, count: 1, iw: 1, dis: { 'Early Exit': 1 } }, 'long-put': { npc: 20, count: 1, iw: 1, dis: { 'Early Exit': 1 } } },
      tnpc: { SPY: { npc: 20, count: 1, iw: 1, pr: 28.57, cg: 0, hp: 2, cs: 1 }, TSLA: { npc: 60, count: 1, iw: 1, pr: 16.67, cg: 0, hp: 0, cs: 1 } },
    });
    expect(d['2026-01-16']).toMatchObject({ np: 0, nf: 0, otc: 0, ctc: 2, iw: 2, npc: 700, cg: 2000, hp: 19, pr: 200, ttf: 2.5, incap: 70000, wdc: 670000, dg: { Assigned: 1, 'Called Away': 1 } });
    // Lifetime premium: the day flows add up to realized npc plus open premium.
    const total = rows.reduce((s, r) => s + r.np, 0);
    expect(Math.round(total * 100) / 100).toBe(150 + 300 + 260 + 250 + 20 + 200 + 500 + 60 + 120 + 400);
  });

  it('is idempotent and independent of batch size: replaying and one-event batches give identical tables', async () => {
    const replayed = await project(2, [...log.events, ...log.events.slice(4, 12)], 1);
    const whole = await project(3, log.events, 1000);
    for (const name of ['trades', 'trade_lineages', 'split_history', 'daily_premium', 'trade_counts'] as const) {
      const dump = async (t: string) => (await sql<any>`select * from ${sql.table(t)} order by 1, 2`.execute(database.db)).rows;
      const a = await dump(tables[name]!);
      expect(await dump(replayed[name]!)).toEqual(a);
      expect(await dump(whole[name]!)).toEqual(a);
    }
  });

  it('deletes one user', async () => {
    const t = physicalTables(tradesProjection, 3);
    await database.db.transaction().execute((trx) => tradesProjection.deleteUser({ trx, tables: t, mode: 'rebuild' }, 'user-1'));
    expect(await tradesProjection.countRows!(database.db, t)).toEqual({ trades: 1, trade_lineages: 1, split_history: 0, daily_premium: 1, trade_counts: 1 });
  });
});
});
