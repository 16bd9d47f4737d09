import type { Kysely } from 'kysely';
import { addDays, isWeekend, minusYears, newYorkDate } from '@oj/contracts/business-date';
import { BREAKABLE_STRATEGY_TYPE, strategyCatalogue, type Strategy } from '@oj/contracts/strategies';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import type { TradeData } from '@oj/contracts/trades';
import { FixedClock } from '@oj/infra/clock';
import { mulberry32 } from '@oj/infra/prng';
import type { EventStore } from '@oj/infra/eventstore/port';
import type { Config } from '@oj/infra/config';
import { AppError } from '../../app/errors.ts';
import type { Principal } from '../../app/principal.ts';
import { addAccount } from '../../accounts/commands.ts';
import { findDefaultAccountOfUser } from '../../accounts/queries.ts';
import { createUser } from '../../identity/commands.ts';
import { findUserByEmail } from '../../identity/users.ts';
import { runJournalCommand, type JournalContext, type JournalRequest } from '../commands.ts';

/**
 * Synthetic journals written through the same command handler the API uses, so every rule holds.
 * Deterministic for a seed and a `today`: every command carries an idempotency key made of the seed,
 * the user and the step, so its ids are deterministic too, and running the same seed again appends
 * nothing.
 */
export interface SeedOptions {
  users: number;
  tradesPerUser: number;
  seed: number;
  /** The New York date the journals end on (defaults to today). */
  today?: string;
  /** The wall clock (tests): the events are recorded no later than it. */
  now?: Date;
  onProgress?: (done: number, total: number) => void;
}

export interface SeedDeps {
  db: Kysely<any>;
  eventStore: EventStore;
  config: Pick<Config, 'JWT_SECRET' | 'ACCESS_TOKEN_TTL_SECONDS' | 'REFRESH_TOKEN_TTL_DAYS' | 'PUBLIC_URL' | 'DATA_DIR'>;
}

export interface SeedReport {
  users: Array<{ userId: string; email: string; password: string }>;
  commands: Record<string, number>;
  refused: number;
  /** Why, by the refusal's message (QA 74: "refused: 5" and exit 0, no reason). */
  refusedBecause: Record<string, number>;
}

export const SEED_PASSWORD = 'Seed1!trader';

/** A seeded generator (mulberry32) with the draws the seed needs. */
function rng(seed: number) {
  const next = mulberry32(seed);
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
    chance: (p: number) => next() < p,
  };
}
type Rng = ReturnType<typeof rng>;

const round2 = (x: number) => Math.round(x * 100) / 100;
const TICKERS = ['AAPL', 'MSFT', 'NVDA', 'AMD', 'TSLA', 'SPY', 'QQQ', 'IWM', 'META', 'AMZN', 'KO', 'F', 'SOFI', 'PLTR', 'JPM'];

/** A weekday in [from, to] (inclusive), or null when there is none. */
function businessDayBetween(r: Rng, from: string, to: string): string | null {
  if (from > to) return null;
  let span = 0;
  for (let d = from; d <= to && span < 800; d = addDays(d, 1)) span++;
  for (let tries = 0; tries < 10; tries++) {
    const d = addDays(from, r.int(0, span - 1));
    if (!isWeekend(d) && d <= to) return d;
  }
  for (let d = from; d <= to; d = addDays(d, 1)) if (!isWeekend(d)) return d;
  return null;
}

/** The first Friday on or after a date (options expire on Fridays). */
function fridayOnOrAfter(date: string): string {
  let d = date;
  while (new Date(`${d}T00:00:00Z`).getUTCDay() !== 5) d = addDays(d, 1);
  return d;
}

function strikesFor(r: Rng, strategy: Strategy, spot: number): number[] {
  const strikes: number[] = [];
  const width = Math.max(1, Math.round(spot * 0.05));
  strategy.legs_setup.config.forEach((leg, i) => {
    const rule = leg.rules.strike;
    if (!rule) {
      strikes[i] = Math.max(1, Math.round(spot * (0.9 + r.next() * 0.2)));
      return;
    }
    const other = strikes[rule.other_leg_index]!;
    strikes[i] = rule.type === 'same' ? other : rule.type === 'higher' ? other + width : Math.max(0.5, other - width);
  });
  return strikes;
}

/** The transaction that closes a position opened with `open`: 1 (credit) is closed by 2 (debit), and 2 by 1. */
const closingOf = (open: number): 1 | 2 => (open === 1 ? 2 : 1);

export async function seedJournals(deps: SeedDeps, options: SeedOptions): Promise<SeedReport> {
  const now = options.now ?? new Date();
  const today = options.today ?? newYorkDate(now);
  // Commands are decided as of mid-day New York time on `today`, or now if that is earlier: a journal
  // seeded in the morning must not carry events recorded in the afternoon to come (QA: the audit showed
  // a first event later than the last, new, one). Either instant is on `today` in New York.
  const midday = new Date(`${today}T16:00:00Z`);
  const clock = new FixedClock(newYorkDate(now) === today && now < midday ? now : midday);
  const ctx: JournalContext = { db: deps.db, eventStore: deps.eventStore, clock };
  const identity = { db: deps.db, clock, config: deps.config };
  const report: SeedReport = { users: [], commands: {}, refused: 0, refusedBecause: {} };
  const earliest = addDays(minusYears(today, 2), 1);
  let done = 0;
  const total = options.users * options.tradesPerUser;

  for (let u = 0; u < options.users; u++) {
    const r = rng(options.seed * 1_000_003 + u);
    const email = `seed${options.seed}-trader${u + 1}@example.com`;
    const userId = (await findUserByEmail(deps.db, email))?.uid ?? (await createUser(identity, { name: `Seed Trader`, email, password: SEED_PASSWORD, verified: true }));
    report.users.push({ userId, email, password: SEED_PASSWORD });
    const principal: Principal = { userId, email, name: 'Seed Trader', role: 'User', subsStatus: 1, subscriptionActive: true, verified: true };
    const account =
      (await findDefaultAccountOfUser(deps.db, userId)) ??
      (await addAccount({ db: deps.db, clock, dataDir: deps.config.DATA_DIR }, principal, { name: 'Main', broker: 'ibkr', ac_type: 1, broker_commission: 0.65, broker_fee: 0.03 }));
    let step = 0;
    const run = async <T>(request: JournalRequest): Promise<T | null> => {
      const key = `seed-${options.seed}-${u}-${step++}`;
      try {
        const answer = (await runJournalCommand(ctx, { principal, requestId: key, idempotencyKey: key, actorRole: 'system' }, request)) as T;
        report.commands[request.kind] = (report.commands[request.kind] ?? 0) + 1;
        return answer;
      } catch (error) {
        if (error instanceof AppError) {
          report.refused++;
          report.refusedBecause[error.message] = (report.refusedBecause[error.message] ?? 0) + 1;
          return null;
        }
        throw error;
      }
    };
    const breakable = strategyCatalogue.filter((s) => s.type === BREAKABLE_STRATEGY_TYPE);

    for (let k = 0; k < options.tradesPerUser; k++) {
      const strategy = r.chance(0.15) ? r.pick(breakable) : r.pick(strategyCatalogue);
      const openDate = businessDayBetween(r, earliest, today)!;
      const expiration = fridayOnOrAfter(addDays(openDate, r.int(3, 60)));
      const spot = r.int(10, 600);
      const contracts = r.pick([1, 1, 2, 3, 5, 10]);
      const data: TradeData = {
        ticker: r.pick(TICKERS),
        strategy_uid: strategy.uid,
        account_uid: account.uid,
        strike_prices: strikesFor(r, strategy, spot),
        trade_open_date: openDate,
        expiration_date: expiration,
        contract_size: contracts,
        premium_at_open: round2((0.2 + r.next() * 4) * 100 * contracts),
        net_fee_to_open: round2(0.65 * contracts * strategy.legs_setup.legs_count),
        net_delta: round2(0.05 + r.next() * 0.6),
        ...(strategy.uses_cost_basis ? { cost_basis: spot } : { stock_price_at_open: spot }),
        notes: r.chance(0.3) ? r.pick(['earnings play', 'wheel', 'high IV', 'hedge', 'income']) : '',
      };
      const tags = r.chance(0.4) ? [{ name: r.pick(['wheel', 'income', 'earnings', 'hedge']) }] : [];
      const lastCloseDay = expiration < today ? expiration : today;
      // A position is closed by the opposite transaction: a credit (sold) by a debit (bought back), and the
      // other way round (QA: half the closes used the opening's own, which made capture rates above 100%).
      const closeData = (from: string, n?: number) => {
        const date = businessDayBetween(r, from, lastCloseDay);
        return date
          ? { ...(n ? { contract_size: n } : {}), trade_close_date: date, premium_at_close: round2(r.next() * 2 * 100 * (n ?? contracts)), net_fee_to_close: round2(0.65 * (n ?? contracts)), close_transaction: closingOf(strategy.transaction) }
          : null;
      };
      // What a trader leaves open is what has not expired yet, or expired this past week and waits to be
      // closed: a trade that expired weeks ago was expired (QA: 1,708 of 1,823 open trades had expired,
      // some two years before, and the bell read 99+).
      const settle = async (t: TradeListItem | null | undefined) => {
        if (t && t.ed < addDays(today, -7)) await run({ kind: 'close', uid: t.uid, action: 'expireWorthless', body: {} });
      };
      const fate = r.next();
      if (fate < 0.06) {
        const close = closeData(openDate);
        if (close) await run({ kind: 'addClosedTrade', body: { trade_data: { ...data, ...close, premium_at_close: close.premium_at_close || 1, net_fee_to_close: close.net_fee_to_close || 1, status: 2 }, tag_data: tags } });
        continue;
      }
      const opened = await run<TradeListItem>({ kind: 'addTrade', body: { trade_data: data, tag_data: tags } });
      done++;
      options.onProgress?.(done, total);
      if (!opened) continue;
      let current = opened;
      if (fate < 0.3) {
        await settle(current); // stays open
        continue;
      }
      if (fate < 0.45) {
        const close = closeData(current.tod);
        if (close) await run({ kind: 'close', uid: current.uid, action: 'close', body: close });
        else await settle(current);
      } else if (fate < 0.55 && contracts > 1) {
        const close = closeData(current.tod, r.int(1, contracts - 1));
        const answer = close ? await run<{ remaining_trade: TradeListItem | null }>({ kind: 'close', uid: current.uid, action: 'close', body: close }) : null;
        const rest = answer?.remaining_trade;
        const more = rest && r.chance(0.5) ? closeData(close!.trade_close_date) : null;
        if (rest && more) await run({ kind: 'close', uid: rest.uid, action: 'close', body: more });
        else await settle(answer ? rest : current);
      } else if (fate < 0.63) {
        if (expiration < today) await run({ kind: 'close', uid: current.uid, action: 'expireWorthless', body: {} });
      } else if (fate < 0.68) {
        const date = businessDayBetween(r, current.tod, lastCloseDay);
        const action = strategy.extra_outcome;
        if (date) await run({ kind: 'close', uid: current.uid, action, body: { trade_close_date: date } });
        else await settle(current);
      } else if (fate < 0.82) {
        // A roll chain, one to three deep, some partial.
        const depth = r.int(1, 3);
        for (let level = 0; level < depth; level++) {
          const last = current.ed < today ? current.ed : today;
          const closeDate = businessDayBetween(r, current.tod, last);
          if (!closeDate) break;
          const newSize = current.cs > 1 && r.chance(0.3) ? r.int(1, current.cs - 1) : current.cs;
          const answer = await run<{ new_trade_after_roll: TradeListItem }>({
            kind: 'roll',
            uid: current.uid,
            body: {
              trade_roll_data: {
                old_trade: { trade_close_date: closeDate, premium_at_close: round2(r.next() * 100 * current.cs), net_fee_to_close: round2(0.65 * current.cs), close_transaction: closingOf(current.ot) },
                new_trade: {
                  expiration_date: fridayOnOrAfter(addDays(closeDate, r.int(7, 45))),
                  contract_size: newSize,
                  strike_prices: strikesFor(r, strategy, spot),
                  premium_at_open: round2((0.2 + r.next() * 3) * 100 * newSize),
                  net_fee_to_open: round2(0.65 * newSize),
                  net_delta: round2(0.05 + r.next() * 0.6),
                  ...(strategy.uses_cost_basis ? { cost_basis: spot } : { stock_price_at_open: spot }),
                },
              },
              tag_data: [],
            },
          });
          if (!answer) break;
          current = answer.new_trade_after_roll;
        }
        await settle(current);
      } else if (fate < 0.9) {
        if (strategy.type === BREAKABLE_STRATEGY_TYPE) {
          const legs = strategy.legs_setup.config;
          const signed = (current.ot === 1 ? 1 : -1) * current.pao;
          // Pick the buy leg's premium, then solve for the sell leg's so the legs combine to the net.
          const buyIndex = legs.findIndex((l) => l.action === 'buy');
          const sellIndex = legs.findIndex((l) => l.action === 'sell');
          const premiums = [0, 0];
          if (buyIndex >= 0 && sellIndex >= 0) {
            const small = round2(Math.max(1, current.pao * 0.3));
            if (signed >= 0) {
              premiums[buyIndex] = small;
              premiums[sellIndex] = round2(signed + small);
            } else {
              premiums[sellIndex] = small;
              premiums[buyIndex] = round2(small - signed);
            }
          } else {
            // Two long or two short legs: split the premium.
            premiums[0] = round2(current.pao / 2);
            premiums[1] = round2(current.pao - premiums[0]!);
          }
          const date = businessDayBetween(r, current.tod, lastCloseDay);
          const closing = r.int(0, 1);
          if (date && premiums.every((p) => p > 0)) {
            const split = await run<{ open_trade: TradeListItem }>({
              kind: 'split',
              uid: current.uid,
              body: {
                trade_data: {
                  closing_trade: { leg_index: closing, premium_at_open: premiums[closing]!, status: 2, trade_close_date: date, premium_at_close: round2(1 + r.next() * 50), net_fee_to_close: 0.65, close_transaction: closingOf(legs[closing]!.action === 'sell' ? 1 : 2) },
                  opening_trade: { premium_at_open: premiums[1 - closing]! },
                },
                tag_data: [],
              },
            });
            await settle(split ? split.open_trade : current);
          } else await settle(current);
        } else await settle(current);
      } else if (fate < 0.96) {
        await run({ kind: 'update', uid: current.uid, body: { notes: 'adjusted', premium_at_open: round2(current.pao * 1.05) } });
        await settle(current);
      } else {
        await run({ kind: 'delete', uid: current.uid });
      }
    }
  }
  return report;
}
