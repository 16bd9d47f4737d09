import { z } from 'zod';
import { minusYears, parseIsoDate } from './business-date.ts';
import { calendarDate, isoDate, paginated, paginationQuery } from './common.ts';
import { closeSign, openSign, round2 } from './formulas.ts';
import { tradeListItem } from './trade-list-item.ts';
import { tradeUid } from './trades.ts';

/**
 * Queries of the trade read models (part 1 §7, part 2 §2/§3/§7): the status lists, expiring, histories,
 * trades by date, premium data and pulse. Request and answer schemas, shared by the gateway and console.
 */

/** Part 1 §5 "Date filter", in the spec's order. */
export const DATE_FILTER_MESSAGES = {
  startRequired: 'Start Date is required',
  startInFuture: 'Start Date cannot be in the future',
  endRequired: 'End Date is required',
  endInFuture: 'End Date cannot be in the future',
  endBeforeStart: 'End Date must be on or after Start Date',
  rangeTooLong: 'Date range cannot exceed one year',
} as const;

/**
 * Part 1 §5 "Date filter": each field's first failing rule (none: the range may be applied). The custom
 * range form shows these beside its fields, and the status lists refuse a range with the first of them.
 */
export function dateRangeIssues(sd: string | undefined, ed: string | undefined, today: string): { sd?: string; ed?: string } {
  const issues: { sd?: string; ed?: string } = {};
  const start = sd ? parseIsoDate(sd) : null;
  const end = ed ? parseIsoDate(ed) : null;
  if (!start) issues.sd = DATE_FILTER_MESSAGES.startRequired;
  else if (sd! > today) issues.sd = DATE_FILTER_MESSAGES.startInFuture;
  if (!end) issues.ed = DATE_FILTER_MESSAGES.endRequired;
  else if (ed! > today) issues.ed = DATE_FILTER_MESSAGES.endInFuture;
  else if (start && ed! < sd!) issues.ed = DATE_FILTER_MESSAGES.endBeforeStart;
  else if (start && sd! < minusYears(ed!, 1)) issues.ed = DATE_FILTER_MESSAGES.rangeTooLong;
  return issues;
}

export const PULSE_INVALID = 'Invalid ticker or timeframe';

/** A filter naming one record by its uid: named in its messages (QA: `au=` answered "Too small: expected string to have >=1 characters"). */
const filterUid = (name: string, what: string) =>
  z
    .string({ error: (issue) => (Array.isArray(issue.input) ? `${name} must be given once.` : `${name} must be the uid of ${what}.`) })
    .min(1, `${name} must be the uid of ${what}: leave it out for all of them.`)
    .max(64, `${name} must be the uid of ${what} (at most 64 characters).`);

/** The list filters of part 2 §3: ticker, account, strategy, start and end date (an inclusive range). */
export const tradeFilters = z.object({
  ticker: z
    .string()
    .trim()
    .transform((s) => s.toUpperCase())
    .pipe(z.string().max(6))
    .optional(),
  au: filterUid('au', 'an account').optional(),
  su: filterUid('su', 'a strategy').optional(),
  sd: calendarDate.optional(),
  ed: calendarDate.optional(),
});

export type TradeFilters = z.infer<typeof tradeFilters>;

/** The range's rules need today, so the view checks them (`dateRangeIssues`). */
export const tradeListQuery = paginationQuery.extend(tradeFilters.shape);
export type TradeListQuery = z.infer<typeof tradeListQuery>;
/** The expiring list has no start date (part 1 §7). */
export const expiringListQuery = paginationQuery.extend(tradeFilters.omit({ sd: true }).shape);
export type ExpiringListQuery = z.infer<typeof expiringListQuery>;

export const tradeListStatus = z.enum(['open', 'closed', 'rolled']);
export type TradeListStatus = z.infer<typeof tradeListStatus>;
export const tradeStatusParams = z.object({ status: tradeListStatus });

export const tradeListResponse = paginated(tradeListItem);
export type TradeListResponse = z.infer<typeof tradeListResponse>;

/**
 * A status list exported whole as CSV (`GET /trades/status/{status}/export`): the list's filters, no pages.
 * Its columns, in order: premiums and fees as entered (totals for all contracts) beside their transaction,
 * Net Premium signed as the lists show it (a loss negative), plain numbers a spreadsheet adds up, dates
 * YYYY-MM-DD; an empty field is a figure the trade does not have (yet): an open trade's close.
 */
export const tradeExportQuery = tradeFilters;
/** The file's name: the list and the day it was taken, with the filters' date range when there is one. */
export function tradeExportFilename(status: TradeListStatus, today: string, range: { sd?: string | undefined; ed?: string | undefined }): string {
  const span = range.sd && range.ed ? `-${range.sd}-to-${range.ed}` : '';
  return `${status}-trades${span}-${today}.csv`;
}
export const TRADE_EXPORT_COLUMNS = [
  'Ticker',
  'Strategy',
  'Account',
  'Status',
  'Disposition',
  'Open Date',
  'Expiration Date',
  'Close Date',
  'Strikes',
  'Contracts',
  'Open Transaction',
  'Premium at Open',
  'Fee to Open',
  'Close Transaction',
  'Premium at Close',
  'Fee to Close',
  'Net Premium',
  'Collateral',
  'ROR %',
  'ARR %',
  'Capital Gain',
  'Days Held',
  'Delta',
  'Stock Price at Open',
  'Cost Basis',
  'Tags',
  'Notes',
  'Trade ID',
] as const;

// One rule for a trade's uid in a path, the commands' (they had each written their own; the views' took any text).
export { tradeUidParams } from './trades.ts';
export const ancestorParams = z.object({ auid: tradeUid });

/** Roll history item (part 1 §3). `rolled_from_uid` is the previous trade: rolled from, or the remainder's parent. */
export const rollHistoryItem = z.object({
  uid: z.string(),
  rolled_from_uid: z.string().nullable(),
  strike_prices: z.array(z.number()),
  premium_at_open: z.number(),
  premium_at_close: z.number().nullable(),
  expiration_date: isoDate,
  trade_open_date: isoDate,
  trade_close_date: isoDate.nullable(),
  status: z.number().int(),
  contract_size: z.number().int(),
  /** The trade this one is the remainder of (a partial close or roll left it), else null: the two are parts of one position. */
  partial_of_uid: z.string().nullable(),
  /** The split two-leg trade this one is a leg of (its `auid`), else null: the leg hangs under that split in the tree. */
  split_of_uid: z.string().nullable(),
});
export type RollHistoryItem = z.infer<typeof rollHistoryItem>;

/**
 * A two-leg trade of the chain that was split: it left the lists (its legs replaced it), so it is not an
 * item, but the tree goes through it: its legs hang under it, and it hangs under the trade it was rolled
 * from (or left from by a partial close), as it did before the split.
 */
export const rollHistorySplit = z.object({
  uid: z.string(),
  rolled_from_uid: z.string().nullable(),
  partial_of_uid: z.string().nullable(),
  strike_prices: z.array(z.number()),
  premium_at_open: z.number(),
  expiration_date: isoDate,
  trade_open_date: isoDate,
  contract_size: z.number().int(),
  /** The split's date: its closed leg's close date. */
  split_date: isoDate.nullable(),
});
export type RollHistorySplit = z.infer<typeof rollHistorySplit>;
export const rollHistoryResponse = z.object({ roll_history: z.array(rollHistoryItem), splits: z.array(rollHistorySplit) });
export type RollHistoryResponse = z.infer<typeof rollHistoryResponse>;

/** Split history record (part 1 §3): the broken trade's genes and its legs as they are now. */
export const splitHistoryResponse = z.object({
  auid: z.string(),
  trades: z.array(tradeListItem),
  su: z.string(),
  gene: z.object({ tod: isoDate, ed: isoDate, cs: z.number().int(), pao: z.number(), cause: z.string() }),
  created_at: z.string(),
});
export type SplitHistoryResponse = z.infer<typeof splitHistoryResponse>;

/**
 * The date is checked by the view, not here: the spec's client reads this call's error from `detail` as
 * text, and a schema failure would list field issues there instead.
 */
export const tradeByDateParams = z.object({ date: z.string().describe('A New York date, YYYY-MM-DD.') });
/** The trades-by-date refusals: the shape, then the calendar (QA: 2026-02-30 was told its format was wrong). */
export const TRADE_BY_DATE_MESSAGES = {
  format: 'Date must be in YYYY-MM-DD format.',
  noSuchDate: (date: string) => `Date ${date} does not exist on the calendar.`,
} as const;
/**
 * The sections of the trades-by-date dialog (part 1 §2): a trade opened on the date and still open (or a
 * position entered that day, shown once as entered), a scalp (opened and closed that day), a close of an
 * earlier trade (or of part of a position entered that day).
 */
export const TRADE_DAY_SECTIONS = ['open', 'scalp', 'closed'] as const;
export type TradeDaySection = (typeof TRADE_DAY_SECTIONS)[number];

/** One trade of a date: a list item with the dialog section it belongs to. */
export const tradeOfDay = tradeListItem.extend({ section: z.enum(TRADE_DAY_SECTIONS) });
export type TradeOfDay = z.infer<typeof tradeOfDay>;

/** Trades of one New York date (part 1 §7 "list of trades"), open first, then scalps, then closes. */
export const tradesByDateResponse = z.array(tradeOfDay);
export type TradesByDateResponse = z.infer<typeof tradesByDateResponse>;

export interface TradeDaySummary {
  trades: number;
  open_count: number;
  scalp_count: number;
  closed_count: number;
  premium: number;
  fees: number;
  net: number;
}

/**
 * The dialog's Summary from the trades it lists (part 1 §9): a scalp counts as two trades; a credit adds
 * and a debit subtracts. An opening counts its open premium and fee, a scalp its open and its close, a close
 * its close only (the open of a part closed on its own open date is in the position listed as opened).
 */
export function tradeDaySummary(trades: readonly TradeOfDay[]): TradeDaySummary {
  let premium = 0;
  let fees = 0;
  const count = { open: 0, scalp: 0, closed: 0 };
  for (const t of trades) {
    count[t.section] += 1;
    if (t.section !== 'closed') {
      premium += openSign(t.ot) * t.pao;
      fees += t.nfto;
    }
    if (t.section !== 'open') {
      premium += closeSign(t.ct) * (t.pac ?? 0);
      fees += t.nftc ?? 0;
    }
  }
  return {
    trades: count.open + count.closed + 2 * count.scalp,
    open_count: count.open,
    scalp_count: count.scalp,
    closed_count: count.closed,
    premium: round2(premium),
    fees: round2(fees),
    net: round2(premium - fees),
  };
}

/** Sums of the daily premium records of a date range (inclusive), the inputs of every period figure. */
export const periodTotals = z.object({
  np: z.number(),
  nf: z.number(),
  nd: z.number(),
  nep: z.number(),
  otc: z.number().int(),
  ctc: z.number().int(),
  iw: z.number().int(),
  npc: z.number(),
  cpt: z.number(),
  cg: z.number(),
  hp: z.number(),
  pr: z.number(),
  ttf: z.number(),
  incap: z.number(),
  wdc: z.number(),
});
export type PeriodTotals = z.infer<typeof periodTotals>;

const countMap = z.record(z.string(), z.number());
/** A daily premium record (part 2 §3) without its maps: what `GET /metrics/premium-data?days=sums` answers per day. */
export const dailyIncomeSums = z.object({
  id: isoDate,
  income_date: isoDate,
  // A day's sums are those of a range of one day.
  ...periodTotals.shape,
  net_premium_so_far: z.number(),
});
export type DailyIncomeSums = z.infer<typeof dailyIncomeSums>;
/** A daily premium record (part 2 §3) whole: its sums and its maps (per ticker, strategy and disposition). */
export const dailyIncome = dailyIncomeSums.extend({
  tickers: countMap,
  ct: countMap,
  sg: countMap,
  dg: countMap,
  snpc: z.record(z.string(), z.object({ npc: z.number(), count: z.number(), iw: z.number(), dis: countMap })),
  tnpc: z.record(z.string(), z.object({ npc: z.number(), count: z.number(), iw: z.number(), pr: z.number(), cg: z.number(), hp: z.number(), cs: z.number() })),
});
export type DailyIncome = z.infer<typeof dailyIncome>;
export const yearlyIncome = z.object({
  year: z.number().int(),
  /** Premium collected that year (the sum of the days' np). */
  income: z.number(),
  /** Net premium captured by trades closed that year. */
  realized: z.number(),
  fees: z.number(),
  /** Percent change of income against the previous year (part 2 §9 rule). */
  change: z.number().nullable(),
});

/** The dashboard's figures of a period (docs/formulas.md, "Dashboard"); null where the spec's ratio has no denominator. */
export const periodMetrics = z.object({
  premium: z.number(),
  realized: z.number(),
  fees: z.number(),
  net_profit_loss: z.number(),
  capital_gain: z.number(),
  opened: z.number().int(),
  closed: z.number().int(),
  wins: z.number().int(),
  win_rate: z.number().nullable(),
  ror: z.number().nullable(),
  arr: z.number().nullable(),
  delta: z.number().nullable(),
  retention: z.number().nullable(),
  hold_days: z.number().nullable(),
  avg_days_to_expiry: z.number().nullable(),
});
export type PeriodMetrics = z.infer<typeof periodMetrics>;
/** Percent change of each figure against the previous period (part 2 §9 rule); null where either side has none. */
export const CHANGE_METRICS = ['premium', 'realized', 'net_profit_loss', 'win_rate', 'ror', 'arr', 'delta', 'retention', 'hold_days'] as const;
export const metricChanges = z.object(Object.fromEntries(CHANGE_METRICS.map((k) => [k, z.number().nullable()])) as Record<(typeof CHANGE_METRICS)[number], z.ZodNullable<z.ZodNumber>>);
export type MetricChanges = z.infer<typeof metricChanges>;
export const periodSummary = z.object({
  from: isoDate,
  to: isoDate,
  totals: periodTotals,
  metrics: periodMetrics,
  /** Against the previous period (today: the previous weekday; week, month, year: the whole previous one; M: the 30 days before; YTD: last year to the same date); null on the previous periods themselves. */
  changes: metricChanges.nullable(),
});
export type PeriodSummary = z.infer<typeof periodSummary>;

/**
 * The dashboard's periods (part 2 §2, §9). Calendar periods for the Income Quadrant (today, this week from
 * Monday, this month, this year, each against the whole previous one; today against the previous weekday);
 * rolling ones for the M / YTD / Y switches (M the last 30 days, YTD from 1 January, Y the last 12 months),
 * with the previous 30 days and last year's same span for Performance Metrics.
 */
export const DASHBOARD_PERIODS = ['today', 'prev_day', 'week', 'prev_week', 'month', 'prev_month', 'year', 'prev_year', 'm', 'prev_m', 'ytd', 'prev_ytd', 'y'] as const;
export type DashboardPeriod = (typeof DASHBOARD_PERIODS)[number];
export const SWITCH_PERIODS = ['m', 'ytd', 'y'] as const;
export type SwitchPeriod = (typeof SWITCH_PERIODS)[number];

const namedCount = z.object({ key: z.string(), count: z.number().int() });
/** What the M / YTD / Y widgets draw for one period (heat map, strategies, disposition, trade flow). */
export const periodBreakdown = z.object({
  /** Ticker -> trades closed, their npc and wins (heat map: size by count, colour by npc). */
  tickers: z.array(z.object({ ticker: z.string(), count: z.number().int(), npc: z.number(), iw: z.number().int() })),
  /** Strategy uid -> trades opened, most first. */
  strategies: z.array(namedCount),
  /** Disposition -> trades closed, most first. */
  dispositions: z.array(namedCount),
  /** Strategy uid -> disposition -> trades closed (the Trade Flow's edges). */
  flows: z.array(z.object({ su: z.string(), disposition: z.string(), count: z.number().int() })),
});
export type PeriodBreakdown = z.infer<typeof periodBreakdown>;

export const monthlyIncome = z.object({ month: z.string(), np: z.number(), npc: z.number(), nf: z.number(), otc: z.number().int(), ctc: z.number().int(), iw: z.number().int() });
export type MonthlyIncome = z.infer<typeof monthlyIncome>;
export const tickerIncome = z.object({ ticker: z.string(), npc: z.number(), count: z.number().int(), iw: z.number().int(), cg: z.number() });
export type TickerIncome = z.infer<typeof tickerIncome>;

/** The Open Trades snapshot: open trades now, their premium and collateral, the next to expire. */
export const openTradesSnapshot = z.object({
  count: z.number().int(),
  /** Signed premium at open of the open trades. */
  premium: z.number(),
  expiring_in_7_days: z.number().int(),
  tickers: z.number().int(),
  next: z.array(z.object({ uid: z.string(), ticker: z.string(), su: z.string(), ed: isoDate, tod: isoDate, premium: z.number(), cs: z.number().int() })),
});
export type OpenTradesSnapshot = z.infer<typeof openTradesSnapshot>;

/** Part 2 §3: the premium data's daily records run from 1 January two years before today (New York). */
export const premiumWindowStart = (today: string): string => `${Number(today.slice(0, 4)) - 2}-01-01`;

/**
 * `GET /metrics/daily-income?month=YYYY-MM`: one month's daily premium records, for a month before the
 * premium data's window (1 January two years back), which a journal kept for years has (QA 74: the
 * calendar showed those months empty). `net_premium_so_far` runs from the month's first day.
 */
export const DAILY_INCOME_MONTH_MESSAGE = 'month must be a month as YYYY-MM (e.g. 2022-12).';
export const dailyIncomeMonthQuery = z.object({
  month: z
    .string({ error: DAILY_INCOME_MONTH_MESSAGE })
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, DAILY_INCOME_MONTH_MESSAGE)
    .refine((m) => m >= '1900-01', DAILY_INCOME_MONTH_MESSAGE)
    .describe('The month, YYYY-MM.'),
});
export const dailyIncomeMonthResponse = z.object({ month: z.string(), daily_income: z.array(dailyIncome) });
export type DailyIncomeMonthResponse = z.infer<typeof dailyIncomeMonthResponse>;

export const premiumDataResponse = z.object({
  daily_income: z.array(dailyIncome),
  yearly_income: z.array(yearlyIncome),
  /** Today, New York: every period below ends on it. */
  as_of: isoDate,
  /**
   * Lifetime: premium is every day's np (realized plus open premium, no capital gains or fees); delta the
   * net delta of every trade opened (part 2 §3 "Derived": totals of wins, delta, open and closed counts).
   */
  lifetime: z.object({
    premium: z.number(),
    realized: z.number(),
    fees: z.number(),
    delta: z.number(),
    opened: z.number().int(),
    closed: z.number().int(),
    wins: z.number().int(),
    unique_tickers: z.number().int(),
  }),
  periods: z.record(z.enum(DASHBOARD_PERIODS), periodSummary),
  breakdowns: z.record(z.enum(SWITCH_PERIODS), periodBreakdown),
  /** The last 12 months, oldest first, months without activity included. */
  monthly_income: z.array(monthlyIncome),
  /** Realized Income: the top 5 tickers by npc of the current year and the two before, newest year first. */
  top_tickers: z.array(z.object({ year: z.number().int(), tickers: z.array(tickerIncome) })),
  open_trades: openTradesSnapshot,
});
export type PremiumDataResponse = z.infer<typeof premiumDataResponse>;

/**
 * `GET /metrics/premium-data?days=sums`: the same answer with each day's sums only. The console's screens
 * (the dashboard draws every breakdown from the server's aggregates, the income calendar colours and sums
 * days) never read a day's maps, which are most of a heavy journal's answer (1.6 MB of 1.7 at 97,000
 * trades); `full`, the default, answers each day whole.
 */
export const PREMIUM_DATA_DAYS = ['full', 'sums'] as const;
export type PremiumDataDays = (typeof PREMIUM_DATA_DAYS)[number];
export const PREMIUM_DATA_DAYS_MESSAGE = 'days must be full or sums.';
export const premiumDataQuery = z.object({
  days: z.enum(PREMIUM_DATA_DAYS, { error: PREMIUM_DATA_DAYS_MESSAGE }).default('full').describe('full: each day with its maps (the default); sums: each day without them.'),
});
export const premiumDataSumsResponse = premiumDataResponse.omit({ daily_income: true }).extend({ daily_income: z.array(dailyIncomeSums) });
export type PremiumDataSumsResponse = z.infer<typeof premiumDataSumsResponse>;

/** Pulse timeframes: DAY 1, WEEK 2 (from Monday), MONTH 3 (30 days), QUARTER 4 (90 days), YEAR 5 (year to date). */
export const pulseTimeframe = z.coerce.number({ error: PULSE_INVALID }).int({ error: PULSE_INVALID }).min(1, { error: PULSE_INVALID }).max(5, { error: PULSE_INVALID });
export const pulseParams = z.object({
  ticker: z
    .string()
    .transform((s) => s.trim().toUpperCase())
    // 1 to 5 letters or digits, the pulse form's rule (part 2 §5), so the server refuses what the form refuses.
    .pipe(z.string().regex(/^[A-Z0-9]{1,5}$/, { error: PULSE_INVALID })),
});
export const pulseQuery = z.object({ timeframe: pulseTimeframe });
const pulseFigures = z.object({
  from: isoDate,
  to: isoDate,
  /** Headline: premium collected in the timeframe (opened and closed premiums, signed). */
  premium: z.number(),
  gauges: z.object({
    win_rate: z.number().nullable(),
    ror: z.number().nullable(),
    arr: z.number().nullable(),
    capture_rate: z.number().nullable(),
    delta: z.number().nullable(),
    avg_days_to_expiry: z.number().nullable(),
    avg_days_held: z.number().nullable(),
  }),
  quadrant: z.object({
    net_premium: z.number(),
    net_profit_loss: z.number(),
    fees: z.number(),
    capital_gain: z.number(),
    opened: z.number().int(),
    closed: z.number().int(),
    wins: z.number().int(),
  }),
  income_by_strategy: z.array(z.object({ su: z.string(), name: z.string(), npc: z.number(), count: z.number().int() })),
  disposition: z.array(z.object({ disposition: z.string(), count: z.number().int() })),
});
export type PulseFigures = z.infer<typeof pulseFigures>;
export const pulseResponse = pulseFigures.extend({
  ticker: z.string(),
  timeframe: z.number().int(),
  open_trades: z.array(tradeListItem),
  closed_trades: z.array(tradeListItem),
  /**
   * The figures of every timeframe whose window lies inside this one (itself included), so the
   * console re-filters without a fetch (part 2 §4); it filters the trade lists by open / close date.
   */
  covered: z.array(pulseFigures.extend({ timeframe: z.number().int() })),
});
export type PulseResponse = z.infer<typeof pulseResponse>;

/** /calendar/events: the user's open trades by expiration date, from today to 60 days ahead (New York dates). */
export const upcomingExpirationsResponse = z.object({
  from: isoDate,
  to: isoDate,
  days: z.array(
    z.object({
      date: isoDate,
      count: z.number().int(),
      contracts: z.number().int(),
      /** Signed premium at open of the trades expiring that day (credits add, debits subtract). */
      premium: z.number(),
      trades: z.array(tradeListItem),
    }),
  ),
});
export type UpcomingExpirationsResponse = z.infer<typeof upcomingExpirationsResponse>;
