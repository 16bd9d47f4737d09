import { sql, type Kysely } from 'kysely';
import type { SplitHistoryResponse } from '@oj/contracts/trade-views';
import { rowToListItem } from '../trades/tables.ts';
import { tradesByUids, type TradeReadTables } from '../trades/queries.ts';
import type { SplitHistoryRow } from './tables.ts';

/** The ancestor record of a split with its legs as they are now (closed leg first); undefined when not the user's. */
export async function splitHistory(db: Kysely<any>, tables: TradeReadTables, userId: string, auid: string, today: string): Promise<SplitHistoryResponse | undefined> {
  const { rows } = await sql<SplitHistoryRow>`select * from ${sql.table(tables.split_history)} where auid = ${auid} and user_id = ${userId}`.execute(db);
  const rec = rows[0];
  if (!rec) return undefined;
  const legs = await tradesByUids(db, tables, userId, rec.trades);
  const order = new Map(rec.trades.map((u, i) => [u, i]));
  legs.sort((a, b) => (order.get(a.uid) ?? 0) - (order.get(b.uid) ?? 0));
  return { auid: rec.auid, trades: legs.map((l) => rowToListItem(l, today)), su: rec.su, gene: rec.gene, created_at: rec.created_at };
}
