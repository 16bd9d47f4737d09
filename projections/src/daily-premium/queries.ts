import { sql, type Kysely } from 'kysely';
import { addDays, isWeekend, minusYears, parseIsoDate, weekdayOnOrBefore } from '@oj/contracts/business-date';
import {
  CHANGE_METRICS,
  DASHBOARD_PERIODS,
  SWITCH_PERIODS,
  type DashboardPeriod,
  type MonthlyIncome,
  type OpenTradesSnapshot,
  type PeriodBreakdown,
  type PeriodSummary,
  type PeriodTotals,
  type PremiumDataDays,
  type PremiumDataResponse,
  premiumWindowStart,
  type SwitchPeriod,
  type TickerIncome,
} from '@oj/contracts/trade-views';
import { exactPeriodFigures, figureChanges, openSign, percentChange, periodFigures, round2 } from '@oj/contracts/formulas';
import type { TradeReadTables } from '../trades/queries.ts';

export { premiumWindowStart } from '@oj/contracts/trade-views';

const firstOfMonth = (d: string) => `${d.slice(0, 7)}-01`;
const lastOfPreviousMonth = (d: string) => addDays(firstOfMonth(d), -1);
/**
 * The first of the month `n` months before `d`'s, by calendar months. (Counting days back, 335 of them,
 * gave 13 months whenever the month a year ago had 31 days: 7 months of 12.)
 */
export const firstOfMonthBefore = (d: string, n: number): string => {
  const months = Number(d.slice(0, 4)) * 12 + Number(d.slice(5, 7)) - 1 - n;
  return `${String(Math.floor(months / 12)).padStart(4, '0')}-${String((months % 12) + 1).padStart(2, '0')}-01`;
};
/** Monday of the ISO week of `d`. */
function mondayOf(d: string): string {
  const dow = parseIsoDate(d)!.getUTCDay(); // 0 Sunday
  return addDays(d, -((dow + 6) % 7));
}
/** The latest weekday before `d` (Monday's is Friday). */
function previousWeekday(d: string): string {
  return weekdayOnOrBefore(addDays(d, -1));
}

/** Inclusive date ranges of the dashboard's periods as of `today` (see DASHBOARD_PERIODS). */
export function dashboardPeriods(today: string): Record<DashboardPeriod, { from: string; to: string }> {
  const year = Number(today.slice(0, 4));
  const monday = mondayOf(today);
  const prevDay = previousWeekday(today);
  const prevMonthEnd = lastOfPreviousMonth(today);
  return {
    today: { from: today, to: today },
    prev_day: { from: prevDay, to: prevDay },
    week: { from: monday, to: today },
    prev_week: { from: addDays(monday, -7), to: addDays(monday, -1) },
    month: { from: firstOfMonth(today), to: today },
    prev_month: { from: firstOfMonth(prevMonthEnd), to: prevMonthEnd },
    year: { from: `${year}-01-01`, to: today },
    prev_year: { from: `${year - 1}-01-01`, to: `${year - 1}-12-31` },
    m: { from: addDays(today, -29), to: today },
    prev_m: { from: addDays(today, -59), to: addDays(today, -30) },
    ytd: { from: `${year}-01-01`, to: today },
    prev_ytd: { from: `${year - 1}-01-01`, to: minusYears(today, 1) },
    y: { from: addDays(minusYears(today, 1), 1), to: today },
  };
}

/** Each compared period and the one it is compared with. */
const PREVIOUS_OF: Partial<Record<DashboardPeriod, DashboardPeriod>> = { today: 'prev_day', week: 'prev_week', month: 'prev_month', year: 'prev_year', m: 'prev_m', ytd: 'prev_ytd' };

const sumFields = ['np', 'nf', 'nd', 'nep', 'otc', 'ctc', 'iw', 'npc', 'cpt', 'cg', 'hp', 'pr', 'ttf', 'incap', 'wdc'] as const satisfies readonly (keyof PeriodTotals)[];
const intFields = new Set<string>(['otc', 'ctc', 'iw']);

function totalsOf(row: Record<string, unknown>): PeriodTotals {
  const t = {} as PeriodTotals;
  for (const f of sumFields) t[f] = intFields.has(f) ? Number(row[f] ?? 0) : round2(Number(row[f] ?? 0));
  return t;
}

const byCountThenKey = <T extends { count: number }>(key: (x: T) => string) => (a: T, b: T) => b.count - a.count || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

const mapFields = ['tickers', 'ct', 'sg', 'dg', 'snpc', 'tnpc'] as const;
type RawDay = { income_date: string } & Record<(typeof sumFields)[number], number> & Record<(typeof mapFields)[number], string>;

/**
 * The user's records of the window with their maps as JSON text: the days are answered with the text
 * as stored (never parsed and re-serialised), and only the maps the breakdowns need are parsed, by
 * V8's JSON.parse, several times faster than PostgreSQL's json functions on the heavy user's 1.5 MB.
 */
async function windowDays(db: Kysely<any>, D: ReturnType<typeof sql.table>, userId: string, start: string, today: string): Promise<RawDay[]> {
  const cols = sql.join([...sumFields.map((f) => sql.ref(f)), ...mapFields.map((f) => sql`${sql.ref(f)}::text as ${sql.ref(f)}`)]);
  const { rows } = await sql<RawDay>`select income_date, ${cols} from ${D} where user_id = ${userId} and income_date >= ${start}::date and income_date <= ${today}::date order by income_date`.execute(db);
  return rows;
}

const EMPTY_MAPS = mapFields.map((f) => `"${f}":{}`).join(',');
const ZERO_SUMS = sumFields.map((f) => `"${f}":0`).join(',');
/** Each field's key as a day's JSON writes it, with the comma before it. */
const SUM_KEYS = sumFields.map((f) => `,"${f}":`);
const MAP_KEYS = mapFields.map((f) => `,"${f}":`);

/**
 * `daily_income` as JSON text: every weekday from `start` to today (days without a record as zeros and
 * empty maps; weekend days only when they have a record), each with `net_premium_so_far`, the running
 * total of np over that range (computed here, not stored: a back-dated trade changes one stored day,
 * not every later one).
 */
function dailyIncomeJson(rows: readonly RawDay[], start: string, today: string, maps = true): string {
  // One string appended to (V8 flattens it once, when it is written out), not a list of pieces and
  // of each day's fields joined: a heavy user's two years are 1.6 MB of JSON.
  let out = '[';
  let sep = '';
  let run = 0;
  let i = 0;
  for (const [d, weekend] of windowDates(start, today)) {
    const r = rows[i]?.income_date === d ? rows[i++]! : null;
    if (!r) {
      if (!weekend) {
        out += `${sep}{"id":"${d}","income_date":"${d}",${ZERO_SUMS},"net_premium_so_far":${round2(run)}${maps ? `,${EMPTY_MAPS}` : ''}}`;
        sep = ',';
      }
      continue;
    }
    run += r.np;
    out += `${sep}{"id":"${d}","income_date":"${d}"`;
    for (let k = 0; k < sumFields.length; k++) out += SUM_KEYS[k]! + r[sumFields[k]!];
    out += `,"net_premium_so_far":${round2(run)}`;
    if (maps) for (let k = 0; k < mapFields.length; k++) out += MAP_KEYS[k]! + r[mapFields[k]!];
    out += '}';
    sep = ',';
  }
  return `${out}]`;
}

/**
 * One month's daily records as `GET /metrics/daily-income` answers them (JSON text): every weekday of
 * `month` up to today, as `daily_income` writes them, the running total from the month's first day.
 */
export async function monthDaysJson(db: Kysely<any>, tables: TradeReadTables, userId: string, month: string, today: string): Promise<string> {
  const start = `${month}-01`;
  const end = addDays(firstOfMonthBefore(start, -1), -1);
  const last = end < today ? end : today;
  if (start > last) return `{"month":"${month}","daily_income":[]}`;
  const rows = await windowDays(db, sql.table(tables.daily_premium), userId, start, last);
  return `{"month":"${month}","daily_income":${dailyIncomeJson(rows, start, last)}}`;
}

/** The window's dates with their weekend flag, made once per window (a day's answers share it). */
let dates: { key: string; list: [string, boolean][] } = { key: '', list: [] };
function windowDates(start: string, today: string): [string, boolean][] {
  const key = `${start}/${today}`;
  if (dates.key !== key) {
    const list: [string, boolean][] = [];
    for (let d = start; d <= today; d = addDays(d, 1)) list.push([d, isWeekend(d)]);
    dates = { key, list };
  }
  return dates.list;
}

/**
 * Parsed maps of stored days, kept between requests: a day's record changes only when a trade of that
 * day does, so a dashboard reload parses nothing but the days that changed. Keyed by user, date and
 * field, and valid only while the stored text is the same (compared in full), so a changed day is parsed
 * again and never answered stale. Bounded by the stored text it holds (8 million characters; a parsed map
 * takes a few times its text), not by a count of entries, whose size depends on how many tickers and
 * strategies a day has. The least recently used entries go first.
 */
const PARSED_TEXT_LIMIT = 8_000_000;
let parsedText = 0;
const parsed = new Map<string, { text: string; value: unknown }>();
/** The day's map `field`, parsed and shaped by `prepare` (entries ready to add up), from the cache when its text is unchanged. */
function parseDay<T>(userId: string, date: string, field: string, text: string, prepare: (parsed: any) => T): T {
  const key = `${userId}\u0000${date}\u0000${field}`;
  const hit = parsed.get(key);
  if (hit && hit.text === text) {
    parsed.delete(key);
    parsed.set(key, hit);
    return hit.value as T;
  }
  const value = prepare(JSON.parse(text));
  if (hit) {
    parsed.delete(key);
    parsedText -= hit.text.length;
  }
  parsed.set(key, { text, value });
  parsedText += text.length;
  for (const [oldest, entry] of parsed) {
    if (parsedText <= PARSED_TEXT_LIMIT) break;
    parsed.delete(oldest);
    parsedText -= entry.text.length;
  }
  return value;
}

type TickerSums = { count: number; npc: number; iw: number; cg: number };
const addTo = <K>(m: Map<K, TickerSums>, k: K, v: { count: number; npc: number; iw: number; cg: number }) => {
  const at = m.get(k);
  if (at) {
    at.count += v.count;
    at.npc += v.npc;
    at.iw += v.iw;
    at.cg += v.cg;
  } else m.set(k, { count: v.count, npc: v.npc, iw: v.iw, cg: v.cg });
};

/**
 * The M / YTD / Y breakdowns (closed trades per ticker for the heat map; opened per strategy; closed per
 * strategy and disposition for the Trade Flow, whose sums are the dispositions) and the top five tickers
 * by npc of this year and the two before (Realized Income), from the window's records.
 */
function breakdownsOf(userId: string, rows: readonly RawDay[], periods: Record<DashboardPeriod, { from: string; to: string }>, thisYear: number) {
  const tickersBy = { m: new Map<string, TickerSums>(), ytd: new Map<string, TickerSums>(), y: new Map<string, TickerSums>() };
  const strategiesBy = { m: new Map<string, number>(), ytd: new Map<string, number>(), y: new Map<string, number>() };
  const flowsBy = { m: new Map<string, number>(), ytd: new Map<string, number>(), y: new Map<string, number>() };
  const years = new Map<number, Map<string, TickerSums>>([thisYear, thisYear - 1, thisYear - 2].map((y) => [y, new Map()]));
  const bump = (m: Map<string, number>, k: string, n: number) => m.set(k, (m.get(k) ?? 0) + n);
  for (const r of rows) {
    const d = r.income_date;
    const inP = SWITCH_PERIODS.filter((p) => d >= periods[p].from);
    const year = years.get(Number(d.slice(0, 4)));
    if (r.ctc > 0 && (year || inP.length)) {
      const tnpc = parseDay(userId, d, 'tnpc', r.tnpc, (m: Record<string, TickerSums>) => Object.entries(m));
      for (const [ticker, v] of tnpc) {
        if (year) addTo(year, ticker, v);
        for (const p of inP) addTo(tickersBy[p], ticker, v);
      }
    }
    if (!inP.length) continue;
    if (r.otc > 0) {
      for (const [su, n] of parseDay(userId, d, 'sg', r.sg, (m: Record<string, number>) => Object.entries(m))) for (const p of inP) bump(strategiesBy[p], su, n);
    }
    if (r.ctc > 0) {
      const flows = parseDay(userId, d, 'snpc', r.snpc, (m: Record<string, { dis: Record<string, number> }>) =>
        Object.entries(m).flatMap(([su, x]) => Object.entries(x.dis).map(([dis, n]): [string, number] => [`${su}\u0000${dis}`, n])),
      );
      for (const [k, n] of flows) for (const p of inP) bump(flowsBy[p], k, n);
    }
  }
  const breakdowns = {} as Record<SwitchPeriod, PeriodBreakdown>;
  for (const p of SWITCH_PERIODS) {
    const dispositions = new Map<string, number>();
    const flows = [...flowsBy[p]].map(([k, count]) => {
      const [su, disposition] = k.split('\u0000') as [string, string];
      bump(dispositions, disposition, count);
      return { su, disposition, count };
    });
    // Fixed orders, so the same records always give the same answer (and the charts do not reshuffle).
    breakdowns[p] = {
      tickers: [...tickersBy[p]].map(([ticker, v]) => ({ ticker, count: v.count, npc: round2(v.npc), iw: v.iw })).sort(byCountThenKey((x) => x.ticker)),
      strategies: [...strategiesBy[p]].map(([key, count]) => ({ key, count })).sort(byCountThenKey((x) => x.key)),
      dispositions: [...dispositions].map(([key, count]) => ({ key, count })).sort(byCountThenKey((x) => x.key)),
      flows: flows.sort(byCountThenKey((x) => `${x.su}\u0000${x.disposition}`)),
    };
  }
  const top_tickers = [...years].map(([year, m]) => ({
    year,
    tickers: [...m]
      .map(([ticker, v]): TickerIncome => ({ ticker, npc: round2(v.npc), count: v.count, iw: v.iw, cg: round2(v.cg) }))
      .sort((a, b) => b.npc - a.npc || (a.ticker < b.ticker ? -1 : 1))
      .slice(0, 5),
  }));
  return { breakdowns, top_tickers };
}

/**
 * GET /metrics/premium-data's body as JSON text (part 2 §2, §3, §9): the days of the window with the
 * running total, yearly income, lifetime totals, the period sums and figures, the M / YTD / Y
 * breakdowns, 12 months, the top tickers of three years and the open trades snapshot. Sums over days
 * are SQL aggregates; the maps are summed from the window's rows (one read); the open trades come from
 * the partial index of open trades. Every query is scoped to `userId`; they run in parallel on the pool.
 * The days' maps are answered as stored, so the answer is built as text (shaped by
 * `premiumDataResponse`; the route tests parse every answer with it). With `days: 'sums'` each day is
 * written without its maps (`premiumDataSumsResponse`): the breakdowns are still summed from them.
 */
export async function premiumDataJson(db: Kysely<any>, tables: TradeReadTables, userId: string, today: string, days: PremiumDataDays = 'full'): Promise<string> {
  const D = sql.table(tables.daily_premium);
  const T = sql.table(tables.trades);
  const start = premiumWindowStart(today);
  const periods = dashboardPeriods(today);
  const periodValues = sql.join(DASHBOARD_PERIODS.map((k) => sql`(${k}, ${periods[k].from}::date, ${periods[k].to}::date)`));
  const earliest = DASHBOARD_PERIODS.map((k) => periods[k].from).reduce((a, b) => (a < b ? a : b));
  const monthsFrom = firstOfMonthBefore(today, 11); // this month and the 11 before it
  const thisYear = Number(today.slice(0, 4));
  const sums = sql.join(sumFields.map((f) => sql`coalesce(sum(d.${sql.ref(f)}), 0) as ${sql.ref(f)}`));

  const [rows, years, lifetime, periodRows, months, open, openNext, tickers] = await Promise.all([
    windowDays(db, D, userId, start, today),
    sql<{ year: number; income: number; realized: number; fees: number }>`
      select extract(year from income_date)::int as year, sum(np) as income, sum(npc) as realized, sum(nf) as fees
      from ${D} where user_id = ${userId} group by 1 order by 1`.execute(db),
    sql<{ premium: number; realized: number; fees: number; delta: number; opened: number; closed: number; wins: number }>`
      select coalesce(sum(np), 0) as premium, coalesce(sum(npc), 0) as realized, coalesce(sum(nf), 0) as fees, coalesce(sum(nd), 0) as delta,
        coalesce(sum(otc), 0)::int as opened, coalesce(sum(ctc), 0)::int as closed, coalesce(sum(iw), 0)::int as wins
      from ${D} where user_id = ${userId}`.execute(db),
    sql<Record<string, unknown> & { key: DashboardPeriod }>`
      select p.key, ${sums}
      from (values ${periodValues}) as p(key, f, t)
      left join ${D} d on d.user_id = ${userId} and d.income_date between p.f and p.t and d.income_date >= ${earliest}::date
      group by p.key`.execute(db),
    sql<MonthlyIncome>`
      select to_char(g.m, 'YYYY-MM') as month, coalesce(sum(d.np), 0) as np, coalesce(sum(d.npc), 0) as npc, coalesce(sum(d.nf), 0) as nf,
        coalesce(sum(d.otc), 0)::int as otc, coalesce(sum(d.ctc), 0)::int as ctc, coalesce(sum(d.iw), 0)::int as iw
      from generate_series(${monthsFrom}::date, ${firstOfMonth(today)}::date, interval '1 month') as g(m)
      left join ${D} d on d.user_id = ${userId} and d.income_date >= g.m::date and d.income_date < (g.m + interval '1 month')::date and d.income_date <= ${today}::date
      group by g.m order by g.m`.execute(db),
    // The open trades from the partial index of open trades (user_id, ed, uid) alone: no table rows read.
    sql<{ count: number; expiring: number }>`
      select count(*)::int as count, (count(*) filter (where ed <= ${addDays(today, 7)}::date))::int as expiring
      from ${T} where user_id = ${userId} and list = 1`.execute(db),
    sql<{ uid: string; ticker: string; su: string; ed: string; tod: string; pao: number; ot: number; cs: number }>`
      select uid, ticker, su, ed, tod, pao, ot, cs from ${T}
      where user_id = ${userId} and list = 1 and ed >= ${today}::date order by ed, uid limit 5`.execute(db),
    // Distinct tickers (all, and with an open trade) by skipping through the (user_id, ticker, list, ...)
    // index: one probe per ticker, not a scan of every trade.
    sql<{ ticker: string; open: boolean }>`
      with recursive t(ticker) as (
        (select ticker from ${T} where user_id = ${userId} order by ticker limit 1)
        union all
        select (select ticker from ${T} where user_id = ${userId} and ticker > t.ticker order by ticker limit 1) from t where t.ticker is not null
      )
      select t.ticker, exists (select 1 from ${T} o where o.user_id = ${userId} and o.ticker = t.ticker and o.list = 1) as open
      from t where t.ticker is not null`.execute(db),
  ]);

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

  const periodSummaries = {} as Record<DashboardPeriod, PeriodSummary>;
  for (const row of periodRows.rows) {
    const totals = totalsOf(row);
    periodSummaries[row.key] = { ...periods[row.key], totals, metrics: periodFigures(totals), changes: null };
  }
  for (const [current, previous] of Object.entries(PREVIOUS_OF) as [DashboardPeriod, DashboardPeriod][]) {
    // From the exact figures: rounded once, at the end (docs/formulas.md).
    periodSummaries[current].changes = figureChanges(CHANGE_METRICS, exactPeriodFigures(periodSummaries[current].totals), exactPeriodFigures(periodSummaries[previous].totals));
  }

  const l = lifetime.rows[0]!;
  const o = open.rows[0]!;
  const open_trades: OpenTradesSnapshot = {
    count: o.count,
    // Every day's np summed is the closed trades' npc plus the open trades' signed premium at open.
    premium: round2(l.premium - l.realized),
    expiring_in_7_days: o.expiring,
    tickers: tickers.rows.filter((t) => t.open).length,
    next: openNext.rows.map((t) => ({ uid: t.uid, ticker: t.ticker, su: t.su, ed: t.ed, tod: t.tod, premium: round2(openSign(t.ot) * t.pao), cs: t.cs })),
  };

  const rest: PremiumDataRest = {
    yearly_income,
    as_of: today,
    lifetime: {
      premium: round2(l.premium),
      realized: round2(l.realized),
      fees: round2(l.fees),
      delta: round2(l.delta),
      opened: l.opened,
      closed: l.closed,
      wins: l.wins,
      unique_tickers: tickers.rows.length,
    },
    periods: periodSummaries,
    ...breakdownsOf(userId, rows, periods, thisYear),
    monthly_income: months.rows.map((m) => ({ ...m, np: round2(m.np), npc: round2(m.npc), nf: round2(m.nf) })),
    open_trades,
  };
  return `{"daily_income":${dailyIncomeJson(rows, start, today, days === 'full')},${JSON.stringify(rest).slice(1)}`;
}

/** The premium data without `daily_income`. */
export type PremiumDataRest = Omit<PremiumDataResponse, 'daily_income'>;

/** The premium data as an object (tests, tools): the same answer as `premiumDataJson`, parsed. */
export async function premiumData(db: Kysely<any>, tables: TradeReadTables, userId: string, today: string): Promise<PremiumDataResponse> {
  return JSON.parse(await premiumDataJson(db, tables, userId, today)) as PremiumDataResponse;
}
