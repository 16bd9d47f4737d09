import { sql, type Kysely } from 'kysely';
import { addDays } from '@oj/contracts/business-date';
import type { UpcomingExpirationsResponse } from '@oj/contracts/trade-views';
import { openSign, round2 } from '@oj/contracts/formulas';
import { rowToListItem, type TradeRow } from '../trades/tables.ts';
import type { TradeReadTables } from '../trades/queries.ts';

/** The events calendar looks this far ahead (issue 12: the spec leaves /calendar/events open). */
export const UPCOMING_WINDOW_DAYS = 60;

/**
 * The user's open trades expiring from today to today + 60 days (New York dates), grouped by
 * expiration date, soonest first. Reads the expiring index (user_id, ed, uid) where list = 1, so it is
 * a range scan of only this user's open trades. Trades already past expiration are not "upcoming":
 * they are on the Expiring Soon list.
 */
export async function upcomingExpirations(db: Kysely<any>, tables: TradeReadTables, userId: string, today: string): Promise<UpcomingExpirationsResponse> {
  const to = addDays(today, UPCOMING_WINDOW_DAYS);
  const { rows } = await sql<TradeRow>`
    select * from ${sql.table(tables.trades)}
    where user_id = ${userId} and list = 1 and ed >= ${today} and ed <= ${to}
    order by ed asc, uid asc`.execute(db);
  const days: UpcomingExpirationsResponse['days'] = [];
  for (const r of rows) {
    let day = days.at(-1);
    if (!day || day.date !== r.ed) {
      day = { date: r.ed, count: 0, contracts: 0, premium: 0, trades: [] };
      days.push(day);
    }
    day.count += 1;
    day.contracts += r.cs;
    // The premium still at stake: what was collected (credit) or paid (debit) to open.
    day.premium = round2(day.premium + openSign(r.ot) * r.pao);
    day.trades.push(rowToListItem(r, today));
  }
  return { from: today, to, days };
}
