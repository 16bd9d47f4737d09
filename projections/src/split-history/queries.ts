import { sql, type Kysely } from 'kysely';
import type { SplitHistoryResponse } from '@oj/contracts/trade-views';
import { rowToListItem, type TradeRow } from '../trades/tables.ts';
import type { TradeReadTables } from '../trades/queries.ts';
import type { SplitHistoryRow } from './tables.ts';

/**
 * The ancestor record of a split with its legs as they are now: the closed leg, the leg that stayed open,
 * then what partial closes of a leg left (the remainders keep the leg's `auid`; without them the record
 * said a position with a contract still open was all closed: QA). Undefined when not the user's.
 */
export async function splitHistory(db: Kysely<any>, tables: TradeReadTables, userId: string, auid: string, today: string): Promise<SplitHistoryResponse | undefined> {
  const { rows } = await sql<SplitHistoryRow>`select * from ${sql.table(tables.split_history)} where auid = ${auid} and user_id = ${userId}`.execute(db);
  const rec = rows[0];
  if (!rec) return undefined;
  const { rows: lineage } = await sql<TradeRow>`select * from ${sql.table(tables.trades)} where user_id = ${userId} and lid = ${rec.lid} and auid = ${rec.auid}`.execute(db);
  return { auid: rec.auid, trades: splitLegs(rec, lineage).map((l) => rowToListItem(l, today)), su: rec.su, gene: rec.gene, created_at: rec.created_at };
}

/**
 * A split record's legs among its lineage's trade rows, in the split history's order: the trades that
 * carry its uid as their `auid` (both legs and what partial closes of a leg left), the legs in the
 * record's order (closed leg first), then the rest by creation and uid. Pure: the split history query
 * and the audit's as-of view (services/src/audit/journal-views.ts) both list legs with it.
 */
export function splitLegs<R extends Pick<TradeRow, 'uid' | 'auid' | 'created_at'>>(rec: Pick<SplitHistoryRow, 'auid' | 'trades'>, rows: Iterable<R>): R[] {
  const order = new Map(rec.trades.map((u, i) => [u, i]));
  const rank = (l: R) => order.get(l.uid) ?? rec.trades.length;
  return [...rows].filter((r) => r.auid === rec.auid).sort((a, b) => rank(a) - rank(b) || a.created_at.localeCompare(b.created_at) || a.uid.localeCompare(b.uid));
}
