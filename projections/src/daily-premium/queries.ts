import { sql, type Kysely } from 'kysely';
import { addDays, isWeekend, minusYears, parseIsoDate } from '@oj/contracts/business-date';
import {
  DASHBOARD_PERIODS,
  type DailyIncome,
  type DashboardPeriod,
  type MonthlyIncome,
  type OpenTradesSnapshot,
  type PeriodBreakdown,
  type PeriodSummary,
  type PeriodTotals,
  type PremiumDataResponse,
  type SwitchPeriod,
  type TickerIncome,
} from '@oj/contracts/trade-views';
import { openSign, percentChange, periodFigures, round2 } from '../formulas/formulas.ts';
import type { TradeReadTables } from '../trades/queries.ts';
import type { DailyPremiumRow } from './tables.ts';

/** Part 2 §3: the daily records run from 1 January two years before today (New York). */
export const premiumWindowStart = (today: string): string => `${Number(today.slice(0, 4)) - 2}-01-01`;

const firstOfMonth = (d: string) => `${d.slice(0, 7)}-01`;
const lastOfPreviousMonth = (d: string) => addDays(firstOfMonth(d), -1);
/** Monday of the ISO week of `d`. */
function mondayOf(d: string): string {
  const dow = parseIsoDate(d)!.getUTCDay(); // 0 Sunday
  return addDays(d, -((dow + 6) % 7));
}
/** The latest weekday before `d` (Monday's is Friday). */
function previousWeekday(d: string): string {
  let p = addDays(d, -1);
  while (isWeekend(p)) p = addDays(p, -1);
  return p;
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

const sumFields = ['np', 'nf', 'nd', 'nep', 'otc', 'ctc', 'iw', 'npc', 'cpt', 'cg', 'hp', 'pr', 'ttf', 'incap', 'wdc'] as const satisfies readonly (keyof PeriodTotals)[];
const intFields = new Set<string>(['otc', 'ctc', 'iw']);

function totalsOf(row: Record<string, unknown>): PeriodTotals {
  const t = {} as PeriodTotals;
  for (const f of sumFields) t[f] = intFields.has(f) ? Number(row[f] ?? 0) : round2(Number(row[f] ?? 0));
  return t;
}

const byCountThenKey = <T extends { count: number }>(key: (x: T) => string) => (a: T, b: T) => b.count - a.count || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

/**
 * Everything the dashboard draws, in one answer (part 2 §2, §3, §9):
 * - `daily_income`: every weekday from 1 January two years ago to today (days without a record as
 *   zeros, weekend days only when they have one), each with `net_premium_so_far`, the running total of
 *   np over that range (computed here, not stored: a back-dated trade changes one stored day, not every
 *   later one). The spec's map fields are answered only for days with a record.
 * - the period sums and figures, the M / YTD / Y breakdowns, 12 months, top tickers per year and the
 *   open trades snapshot, each aggregated in SQL from the records (or the open trades) of the user, so
 *   the browser never sums two years of days.
 * All queries are scoped to `userId`; they run in parallel on the pool.
 */
export async function premiumData(db: Kysely<any>, tables: TradeReadTables, userId: string, today: string): Promise<PremiumDataResponse> {
  const D = sql.table(tables.daily_premium);
  const T = sql.table(tables.trades);
  const start = premiumWindowStart(today);
  const periods = dashboardPeriods(today);
  const periodValues = sql.join(DASHBOARD_PERIODS.map((k) => sql`(${k}, ${periods[k].from}::date, ${periods[k].to}::date)`));
  const earliest = DASHBOARD_PERIODS.map((k) => periods[k].from).reduce((a, b) => (a < b ? a : b));
  const monthsFrom = firstOfMonth(addDays(firstOfMonth(today), -335)); // 11 months before this one
  const topFrom = `${Number(today.slice(0, 4)) - 2}-01-01`;
  const sums = sql.join(sumFields.map((f) => sql`coalesce(sum(d.${sql.ref(f)}), 0) as ${sql.ref(f)}`));

  const [days, years, lifetime, periodRows, mapRows, months, topRows, open, openNext, uniqueTickers] = await Promise.all([
    sql<DailyPremiumRow & { day: string; present: boolean; net_premium_so_far: number }>`
      select g.day::date::text as day, d.income_date is not null as present, d.*,
        sum(coalesce(d.np, 0)) over (order by g.day rows between unbounded preceding and current row) as net_premium_so_far
      from generate_series(${start}::date, ${today}::date, interval '1 day') as g(day)
      left join ${D} d on d.user_id = ${userId} and d.income_date = g.day::date
      where extract(isodow from g.day) < 6 or d.income_date is not null
      order by g.day`.execute(db),
    sql<{ year: number; income: number; realized: number; fees: number }>`
      select extract(year from income_date)::int as year, sum(np) as income, sum(npc) as realized, sum(nf) as fees
      from ${D} where user_id = ${userId} group by 1 order by 1`.execute(db),
    sql<{ premium: number; realized: number; fees: number; opened: number; closed: number; wins: number }>`
      select coalesce(sum(np), 0) as premium, coalesce(sum(npc), 0) as realized, coalesce(sum(nf), 0) as fees,
        coalesce(sum(otc), 0)::int as opened, coalesce(sum(ctc), 0)::int as closed, coalesce(sum(iw), 0)::int as wins
      from ${D} where user_id = ${userId}`.execute(db),
    sql<Record<string, unknown> & { key: DashboardPeriod }>`
      select p.key, ${sums}
      from (values ${periodValues}) as p(key, f, t)
      left join ${D} d on d.user_id = ${userId} and d.income_date between p.f and p.t and d.income_date >= ${earliest}::date
      group by p.key`.execute(db),
    // Each map of the last 12 months' records expanded once; the three periods are filters of the same rows.
    sql<{ kind: string; a: string; b: string | null; m: number | null; ytd: number | null; y: number | null; m_npc: number | null; ytd_npc: number | null; y_npc: number | null; m_iw: number | null; ytd_iw: number | null; y_iw: number | null }>`
      with d as materialized (select income_date, tnpc, sg, dg, snpc from ${D} where user_id = ${userId} and income_date >= ${periods.y.from}::date and income_date <= ${today}::date),
      e as (
        select 'ticker' as kind, k.key as a, null::text as b, d.income_date, (k.value->>'count')::float8 as n, (k.value->>'npc')::float8 as npc, (k.value->>'iw')::float8 as iw
          from d cross join json_each(d.tnpc) k
        union all
        select 'strategy', k.key, null, d.income_date, k.value::float8, 0, 0 from d cross join json_each_text(d.sg) k
        union all
        select 'disposition', k.key, null, d.income_date, k.value::float8, 0, 0 from d cross join json_each_text(d.dg) k
        union all
        select 'flow', s.key, x.key, d.income_date, x.value::float8, 0, 0 from d cross join json_each(d.snpc) s cross join json_each_text(s.value->'dis') x
      )
      select kind, a, b,
        sum(n) filter (where income_date >= ${periods.m.from}::date) as m,
        sum(n) filter (where income_date >= ${periods.ytd.from}::date) as ytd,
        sum(n) as y,
        sum(npc) filter (where income_date >= ${periods.m.from}::date) as m_npc,
        sum(npc) filter (where income_date >= ${periods.ytd.from}::date) as ytd_npc,
        sum(npc) as y_npc,
        sum(iw) filter (where income_date >= ${periods.m.from}::date) as m_iw,
        sum(iw) filter (where income_date >= ${periods.ytd.from}::date) as ytd_iw,
        sum(iw) as y_iw
      from e group by kind, a, b`.execute(db),
    sql<MonthlyIncome>`
      select to_char(g.m, 'YYYY-MM') as month, coalesce(sum(d.np), 0) as np, coalesce(sum(d.npc), 0) as npc, coalesce(sum(d.nf), 0) as nf,
        coalesce(sum(d.otc), 0)::int as otc, coalesce(sum(d.ctc), 0)::int as ctc, coalesce(sum(d.iw), 0)::int as iw
      from generate_series(${monthsFrom}::date, ${firstOfMonth(today)}::date, interval '1 month') as g(m)
      left join ${D} d on d.user_id = ${userId} and d.income_date >= g.m::date and d.income_date < (g.m + interval '1 month')::date and d.income_date <= ${today}::date
      group by g.m order by g.m`.execute(db),
    sql<{ year: number; ticker: string; npc: number; count: number; iw: number; cg: number }>`
      select extract(year from d.income_date)::int as year, k.key as ticker, sum((k.value->>'npc')::float8) as npc,
        sum((k.value->>'count')::int)::int as count, sum((k.value->>'iw')::int)::int as iw, sum((k.value->>'cg')::float8) as cg
      from ${D} d cross join json_each(d.tnpc) k
      where d.user_id = ${userId} and d.income_date >= ${topFrom}::date and d.income_date <= ${today}::date
      group by 1, 2`.execute(db),
    sql<{ count: number; premium: number; collateral: number; expiring: number; tickers: number }>`
      select count(*)::int as count, count(distinct ticker)::int as tickers, coalesce(sum(case when ot = 1 then pao else -pao end), 0) as premium, coalesce(sum(c), 0) as collateral,
        (count(*) filter (where ed <= ${addDays(today, 7)}::date))::int as expiring
      from ${T} where user_id = ${userId} and list = 1`.execute(db),
    sql<{ uid: string; ticker: string; su: string; ed: string; tod: string; pao: number; ot: number; cs: number }>`
      select uid, ticker, su, ed::text as ed, tod::text as tod, pao, ot, cs from ${T}
      where user_id = ${userId} and list = 1 and ed >= ${today}::date order by ed, uid limit 5`.execute(db),
    // Distinct tickers by skipping through the (user_id, ticker, ...) index: one probe per ticker, not a scan of every trade.
    sql<{ n: number }>`
      with recursive t(ticker) as (
        (select ticker from ${T} where user_id = ${userId} order by ticker limit 1)
        union all
        select (select ticker from ${T} where user_id = ${userId} and ticker > t.ticker order by ticker limit 1) from t where t.ticker is not null
      ) select count(ticker)::int as n from t`.execute(db),
  ]);

  const daily_income: DailyIncome[] = days.rows.map((r) => {
    const date = r.day;
    const base = { id: date, income_date: date, net_premium_so_far: round2(Number(r.net_premium_so_far)) };
    if (!r.present) {
      return { ...base, np: 0, nf: 0, nd: 0, nep: 0, otc: 0, ctc: 0, iw: 0, npc: 0, cpt: 0, cg: 0, hp: 0, pr: 0, ttf: 0, incap: 0, wdc: 0, tickers: {}, ct: {}, sg: {}, dg: {}, snpc: {}, tnpc: {} };
    }
    return {
      ...base,
      np: r.np, nf: r.nf, nd: r.nd, nep: r.nep, otc: r.otc, ctc: r.ctc, iw: r.iw, npc: r.npc, cpt: r.cpt, cg: r.cg, hp: r.hp, pr: r.pr, ttf: r.ttf, incap: r.incap, wdc: r.wdc,
      tickers: r.tickers, ct: r.ct, sg: r.sg, dg: r.dg, snpc: r.snpc, tnpc: r.tnpc,
    };
  });

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
    periodSummaries[row.key] = { ...periods[row.key], totals, metrics: periodFigures(totals) };
  }

  const breakdowns = {} as Record<SwitchPeriod, PeriodBreakdown>;
  for (const p of ['m', 'ytd', 'y'] as const) {
    const b: PeriodBreakdown = { tickers: [], strategies: [], dispositions: [], flows: [] };
    for (const r of mapRows.rows) {
      const n = Number(r[p] ?? 0);
      if (!(n > 0)) continue;
      if (r.kind === 'ticker') b.tickers.push({ ticker: r.a, count: n, npc: round2(Number(r[`${p}_npc`] ?? 0)), iw: Number(r[`${p}_iw`] ?? 0) });
      else if (r.kind === 'strategy') b.strategies.push({ key: r.a, count: n });
      else if (r.kind === 'disposition') b.dispositions.push({ key: r.a, count: n });
      else if (r.kind === 'flow' && r.b !== null) b.flows.push({ su: r.a, disposition: r.b, count: n });
    }
    // Fixed orders, so the same records always give the same answer (and the charts do not reshuffle).
    b.tickers.sort(byCountThenKey((x) => x.ticker));
    b.strategies.sort(byCountThenKey((x) => x.key));
    b.dispositions.sort(byCountThenKey((x) => x.key));
    b.flows.sort(byCountThenKey((x) => `${x.su}\u0000${x.disposition}`));
    breakdowns[p] = b;
  }

  const thisYear = Number(today.slice(0, 4));
  const top_tickers = [thisYear, thisYear - 1, thisYear - 2].map((year) => ({
    year,
    tickers: topRows.rows
      .filter((r) => r.year === year)
      .map((r): TickerIncome => ({ ticker: r.ticker, npc: round2(r.npc), count: r.count, iw: r.iw, cg: round2(r.cg) }))
      .sort((a, b) => b.npc - a.npc || (a.ticker < b.ticker ? -1 : 1))
      .slice(0, 5),
  }));

  const o = open.rows[0]!;
  const open_trades: OpenTradesSnapshot = {
    count: o.count,
    premium: round2(o.premium),
    collateral: round2(o.collateral),
    expiring_in_7_days: o.expiring,
    tickers: o.tickers,
    next: openNext.rows.map((t) => ({ uid: t.uid, ticker: t.ticker, su: t.su, ed: t.ed, tod: t.tod, premium: round2(openSign(t.ot) * t.pao), cs: t.cs })),
  };
  const l = lifetime.rows[0]!;

  return {
    daily_income,
    yearly_income,
    as_of: today,
    lifetime: {
      premium: round2(l.premium),
      realized: round2(l.realized),
      fees: round2(l.fees),
      opened: l.opened,
      closed: l.closed,
      wins: l.wins,
      unique_tickers: uniqueTickers.rows[0]?.n ?? 0,
    },
    periods: periodSummaries,
    breakdowns,
    monthly_income: months.rows.map((m) => ({ ...m, np: round2(m.np), npc: round2(m.npc), nf: round2(m.nf) })),
    top_tickers,
    open_trades,
  };
}
