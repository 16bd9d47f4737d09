import { sql, type Kysely } from 'kysely';
import type { DailyIncome, PremiumDataResponse } from '@oj/contracts/trade-views';
import { percentChange, round2 } from '../formulas/formulas.ts';
import type { TradeReadTables } from '../trades/queries.ts';
import type { DailyPremiumRow } from './tables.ts';

/** Part 2 §3: the daily records run from 1 January two years before today (New York). */
export const premiumWindowStart = (today: string): string => `${Number(today.slice(0, 4)) - 2}-01-01`;

/**
 * Daily income from 1 January two years ago to today, each with the running total of premium since
 * the window's start (computed here, not stored: a back-dated trade then changes one stored day, not
 * every later one), and the yearly income list over all years.
 */
export async function premiumData(db: Kysely<any>, tables: TradeReadTables, userId: string, today: string): Promise<PremiumDataResponse> {
  const D = sql.table(tables.daily_premium);
  const [days, years] = await Promise.all([
    sql<DailyPremiumRow & { net_premium_so_far: number }>`
      select *, sum(np) over (order by income_date rows between unbounded preceding and current row) as net_premium_so_far
      from ${D} where user_id = ${userId} and income_date >= ${premiumWindowStart(today)} and income_date <= ${today}
      order by income_date`.execute(db),
    sql<{ year: number; income: number; realized: number; fees: number }>`
      select extract(year from income_date)::int as year, sum(np) as income, sum(npc) as realized, sum(nf) as fees
      from ${D} where user_id = ${userId} group by 1 order by 1`.execute(db),
  ]);
  const daily_income: DailyIncome[] = days.rows.map(({ user_id: _u, ...r }) => ({ id: r.income_date, ...r, net_premium_so_far: round2(r.net_premium_so_far) }));
  const yearly_income = years.rows.map((y, i) => {
    const prev = years.rows[i - 1];
    const income = round2(y.income);
    return {
      year: y.year,
      income,
      realized: round2(y.realized),
      fees: round2(y.fees),
      change: prev && prev.year === y.year - 1 ? percentChange(income, round2(prev.income)) : null,
    };
  });
  return { daily_income, yearly_income };
}
