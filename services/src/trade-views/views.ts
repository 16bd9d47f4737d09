import type { Kysely } from 'kysely';
import type { Clock } from '@oj/infra/clock';
import { businessDateOf } from '@oj/infra/clock';
import {
  DATE_FILTER_MESSAGES,
  TRADE_BY_DATE_MESSAGES,
  dateRangeIssues,
  tradeExportFilename,
  type ExpiringListQuery,
  type PulseResponse,
  type RollHistoryResponse,
  type SplitHistoryResponse,
  type TradeFilters,
  type TradeListQuery,
  type TradeListResponse,
  type TradeListStatus,
  type PremiumDataDays,
  type TradesByDateResponse,
  type UpcomingExpirationsResponse,
} from '@oj/contracts/trade-views';
import { parseIsoDate } from '@oj/contracts/business-date';
import { isoDate } from '@oj/contracts/common';
import { ProjectionNotLiveError, liveTables } from '@oj/projections/runtime/registry';
import { TRADES_PROJECTION } from '@oj/projections/trades/projection';
import { allOfStatusList, listExpiring, listTrades, tradesByDate, type TradeReadTables } from '@oj/projections/trades/queries';
import { rollHistory } from '@oj/projections/roll-history/queries';
import { splitHistory } from '@oj/projections/split-history/queries';
import { monthDaysJson, premiumDataJson } from '@oj/projections/daily-premium/queries';
import { pulse } from '@oj/projections/pulse/queries';
import { upcomingExpirations } from '@oj/projections/upcoming-expirations/queries';
import { AppError, invalid } from '../app/errors.ts';
import { listAccountsOfUser } from '../accounts/queries.ts';
import { tradesCsv } from './export.ts';

/**
 * The trade queries as the routes call them: resolve the live version's tables (per request, so a
 * rebuild's switch is seen at once), today's New York date from the injected clock, and turn "not the
 * user's" into 404 without telling whether the uid exists for someone else.
 */
export interface TradeViewsContext {
  db: Kysely<any>;
  clock: Clock;
}

async function tables(db: Kysely<any>): Promise<TradeReadTables> {
  try {
    return (await liveTables(db, TRADES_PROJECTION)) as unknown as TradeReadTables;
  } catch (e) {
    if (e instanceof ProjectionNotLiveError) throw new AppError('unavailable', 'Trade data is being prepared. Please try again shortly.');
    throw e;
  }
}

/** A status list's date range: both dates or neither, checked in the spec's order (part 1 §5 "Date filter"). */
function checkDateRange(q: { sd?: string | undefined; ed?: string | undefined }, today: string): void {
  if (q.sd === undefined && q.ed === undefined) return;
  const issues = dateRangeIssues(q.sd, q.ed, today);
  const listed = (['sd', 'ed'] as const).flatMap((k) => (issues[k] ? [{ field: `querystring.${k}`, message: issues[k] }] : []));
  if (listed.length) throw invalid(listed);
}

/** The expiring list's one date (it has no start): not in the future. */
function checkEndNotFuture(q: { ed?: string | undefined }, today: string): void {
  if (q.ed && q.ed > today) throw invalid([{ field: 'querystring.ed', message: DATE_FILTER_MESSAGES.endInFuture }]);
}

export async function statusList(ctx: TradeViewsContext, userId: string, status: TradeListStatus, q: TradeListQuery): Promise<TradeListResponse> {
  const today = businessDateOf(ctx.clock);
  checkDateRange(q, today);
  return listTrades(ctx.db, await tables(ctx.db), userId, status, q, today);
}

/** A status list whole, with its filters, as a CSV file (the same rules for the range as the list's). */
export async function statusExport(ctx: TradeViewsContext, userId: string, status: TradeListStatus, q: TradeFilters): Promise<{ body: Buffer; filename: string }> {
  const today = businessDateOf(ctx.clock);
  checkDateRange(q, today);
  const [items, accounts] = await Promise.all([allOfStatusList(ctx.db, await tables(ctx.db), userId, status, q, today), listAccountsOfUser(ctx.db, userId)]);
  const names = new Map(accounts.map((a) => [a.uid, a.name]));
  return { body: tradesCsv(items, (uid) => names.get(uid) ?? uid), filename: tradeExportFilename(status, today, q) };
}

export async function expiringList(ctx: TradeViewsContext, userId: string, q: ExpiringListQuery): Promise<TradeListResponse> {
  const today = businessDateOf(ctx.clock);
  checkEndNotFuture(q, today);
  return listExpiring(ctx.db, await tables(ctx.db), userId, q, today);
}

export async function rollHistoryOf(ctx: TradeViewsContext, userId: string, uid: string): Promise<RollHistoryResponse> {
  const history = await rollHistory(ctx.db, await tables(ctx.db), userId, uid);
  if (!history) throw new AppError('not_found', 'Trade not found.');
  return { roll_history: history.items, splits: history.splits };
}

export async function ancestorOf(ctx: TradeViewsContext, userId: string, auid: string): Promise<SplitHistoryResponse> {
  const rec = await splitHistory(ctx.db, await tables(ctx.db), userId, auid, businessDateOf(ctx.clock));
  if (!rec) throw new AppError('not_found', 'Split history not found.');
  return rec;
}

export async function tradesOfDate(ctx: TradeViewsContext, userId: string, date: string): Promise<TradesByDateResponse> {
  if (!isoDate.safeParse(date).success) throw new AppError('invalid', TRADE_BY_DATE_MESSAGES.format);
  if (!parseIsoDate(date)) throw new AppError('invalid', TRADE_BY_DATE_MESSAGES.noSuchDate(date));
  return tradesByDate(ctx.db, await tables(ctx.db), userId, date, businessDateOf(ctx.clock));
}

/** The premium data as JSON text (see `premiumDataJson`: two years of maps are not parsed and re-serialised here). */
export async function premiumDataOf(ctx: TradeViewsContext, userId: string, days: PremiumDataDays = 'full'): Promise<string> {
  return premiumDataJson(ctx.db, await tables(ctx.db), userId, businessDateOf(ctx.clock), days);
}

/** One month's daily records as JSON text (`monthDaysJson`): the calendar's months before the premium data's window. */
export async function monthDaysOf(ctx: TradeViewsContext, userId: string, month: string): Promise<string> {
  return monthDaysJson(ctx.db, await tables(ctx.db), userId, month, businessDateOf(ctx.clock));
}

export async function pulseOf(ctx: TradeViewsContext, userId: string, ticker: string, timeframe: number): Promise<PulseResponse> {
  return pulse(ctx.db, await tables(ctx.db), userId, ticker, timeframe, businessDateOf(ctx.clock));
}

export async function upcomingExpirationsOf(ctx: TradeViewsContext, userId: string): Promise<UpcomingExpirationsResponse> {
  return upcomingExpirations(ctx.db, await tables(ctx.db), userId, businessDateOf(ctx.clock));
}
