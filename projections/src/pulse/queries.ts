import { sql, type Kysely } from 'kysely';
import { addDays, daysBetween, parseIsoDate } from '@oj/contracts/business-date';
import { strategyByUid } from '@oj/contracts/strategies';
import type { PulseResponse } from '@oj/contracts/trade-views';
import {
  aggregateArr,
  aggregateRor,
  averageDaysToExpiry,
  averageDelta,
  captureRateOfWins,
  holdPeriod,
  round2,
  winRate,
} from '@oj/contracts/formulas';
import { computeDailyRecords, dayKey, type DailyPremiumRecord, type DayTrade } from '../daily-premium/compute.ts';
import { splitPositionColumn } from '../daily-premium/tables.ts';
import { rowToListItem, type TradeRow } from '../trades/tables.ts';
import type { TradeReadTables } from '../trades/queries.ts';

/** Part 2 §9 for pulse: DAY today, WEEK from Monday, MONTH last 30 days, QUARTER last 90 days, YEAR year to date. */
export function pulseWindow(timeframe: number, today: string): { from: string; to: string } {
  switch (timeframe) {
    case 1:
      return { from: today, to: today };
    case 2: {
      const dow = parseIsoDate(today)!.getUTCDay();
      return { from: addDays(today, -((dow + 6) % 7)), to: today };
    }
    case 3:
      return { from: addDays(today, -29), to: today };
    case 4:
      return { from: addDays(today, -89), to: today };
    default:
      return { from: `${today.slice(0, 4)}-01-01`, to: today };
  }
}

const TOP_STRATEGIES = 5;
const PULSE_TIMEFRAMES = [1, 2, 3, 4, 5] as const;

type PulseFigures = Omit<PulseResponse, 'ticker' | 'timeframe' | 'open_trades' | 'closed_trades' | 'covered'>;

/** The figures of one window: the sums of its days' records (a day's record depends on that day alone). */
function figuresOf(all: readonly DailyPremiumRecord[], from: string, to: string): PulseFigures {
  const records = all.filter((r) => r.income_date >= from && r.income_date <= to);
  const sum = (f: (r: (typeof records)[number]) => number) => records.reduce((s, r) => s + f(r), 0);
  const t = {
    np: sum((r) => r.np),
    nf: sum((r) => r.nf),
    nd: sum((r) => r.nd),
    nep: sum((r) => r.nep),
    otc: sum((r) => r.otc),
    ctc: sum((r) => r.ctc),
    iw: sum((r) => r.iw),
    npc: sum((r) => r.npc),
    cg: sum((r) => r.cg),
    hp: sum((r) => r.hp),
    pr: sum((r) => r.pr),
    ttf: sum((r) => r.ttf),
    incap: sum((r) => r.incap),
    wdc: sum((r) => r.wdc),
  };
  const byStrategy = new Map<string, { npc: number; count: number }>();
  const dispositions = new Map<string, number>();
  for (const r of records) {
    for (const [su, s] of Object.entries(r.snpc)) {
      const e = byStrategy.get(su) ?? { npc: 0, count: 0 };
      e.npc += s.npc;
      e.count += s.count;
      byStrategy.set(su, e);
    }
    for (const [d, n] of Object.entries(r.dg)) dispositions.set(d, (dispositions.get(d) ?? 0) + n);
  }
  const strategies = [...byStrategy].map(([su, e]) => ({ su, name: strategyByUid(su)?.name ?? su, npc: round2(e.npc), count: e.count }));
  strategies.sort((a, b) => b.npc - a.npc || a.su.localeCompare(b.su));
  const top = strategies.slice(0, TOP_STRATEGIES);
  const rest = strategies.slice(TOP_STRATEGIES);
  if (rest.length) top.push({ su: 'other', name: 'Other', npc: round2(rest.reduce((s, e) => s + e.npc, 0)), count: rest.reduce((s, e) => s + e.count, 0) });
  return {
    from,
    to,
    premium: round2(t.np),
    gauges: {
      win_rate: winRate(t.iw, t.ctc),
      ror: aggregateRor(t.npc, t.ttf, t.incap),
      arr: aggregateArr(t.npc, t.ttf, t.wdc, t.incap),
      capture_rate: captureRateOfWins(t.pr, t.iw),
      delta: averageDelta(t.nd, t.otc),
      avg_days_to_expiry: averageDaysToExpiry(t.nep, t.otc),
      avg_days_held: holdPeriod(t.hp, t.ctc),
    },
    quadrant: {
      net_premium: round2(t.np),
      net_profit_loss: round2(t.npc - t.ttf),
      fees: round2(t.nf),
      capital_gain: round2(t.cg),
      opened: t.otc,
      closed: t.ctc,
      wins: t.iw,
    },
    income_by_strategy: top,
    disposition: [...dispositions].sort(([a], [b]) => a.localeCompare(b)).map(([disposition, count]) => ({ disposition, count })),
  };
}

/**
 * What the Pulse page shows for one ticker and timeframe. Computed from the ticker's trade rows with
 * the same daily record function the dashboard's records come from, so both agree to the cent.
 *
 * `covered` carries the figures of every timeframe whose window lies inside the requested one (part 2
 * §4: choosing such a timeframe only re-filters what is loaded). They are computed here, from the same
 * rows and formulas, so the console never re-implements the aggregates; it only filters the trade
 * lists by date. Windows compare by dates, not by code: early in January YTD is narrower than 90 days.
 */
export async function pulse(db: Kysely<any>, tables: TradeReadTables, userId: string, ticker: string, timeframe: number, today: string): Promise<PulseResponse> {
  const { from, to } = pulseWindow(timeframe, today);
  // Each split leg with its position as entered, as the day records read them (a split's legs keep its ticker).
  const { rows } = await sql<TradeRow & Pick<DayTrade, 'split'>>`
    select t.*, ${splitPositionColumn} as split from ${sql.table(tables.trades)} t
      left join ${sql.table(tables.split_history)} s on t.auid is not null and s.user_id = t.user_id and s.auid = t.auid
    where t.user_id = ${userId} and t.ticker = ${ticker}
      and ((t.tod >= ${from} and t.tod <= ${to}) or (t.tcd >= ${from} and t.tcd <= ${to}))
    order by t.sort_date desc, t.uid desc`.execute(db);
  // The day records of the asked window, computed once; each covered window sums its own days.
  const keys: string[] = [];
  for (let d = from, i = 0; i <= daysBetween(from, to); i++, d = addDays(d, 1)) keys.push(dayKey(userId, d));
  const records = [...computeDailyRecords(keys, rows).values()];
  const covered: PulseResponse['covered'] = [];
  let own: PulseFigures | null = null;
  for (const tf of PULSE_TIMEFRAMES) {
    const w = pulseWindow(tf, today);
    if (w.from < from) continue;
    const f = figuresOf(records, w.from, w.to);
    if (tf === timeframe) own = f;
    covered.push({ timeframe: tf, ...f });
  }
  const inWindow = (d: string | null) => d !== null && d >= from && d <= to;
  return {
    ticker,
    timeframe,
    ...own!,
    open_trades: rows.filter((r) => r.status === 1 && inWindow(r.tod)).map((r) => rowToListItem(r, today)),
    closed_trades: rows.filter((r) => r.status !== 1 && inWindow(r.tcd)).map((r) => rowToListItem(r, today)),
    covered,
  };
}
