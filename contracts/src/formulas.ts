import { daysBetween } from './business-date.ts';
import type { CloseAction } from './journal-events.ts';

/**
 * Every derived figure of a trade and of a day, in one place. Events never store these (see
 * contracts/src/journal-events.ts): a change here is a FORMULAS_VERSION bump, which bumps the read
 * models' version, which an operator rebuilds. docs/formulas.md has a worked example of each.
 * It lives in contracts, below both the write side (a command answers with a trade's figures) and the
 * read models, so neither reaches into the other for it; it is pure, with nothing of the server in it.
 */
export const FORMULAS_VERSION = 2;

export const CONTRACT_MULTIPLIER = 100;

/** Money and percentages are stored and answered to the cent / hundredth of a percent. */
export function round2(x: number): number {
  const r = Math.round((Math.abs(x) + Number.EPSILON) * 100) / 100;
  return x < 0 ? -r : r;
}

/** Open transaction: 1 credit (+), 2 debit (-). */
export const openSign = (ot: number): number => (ot === 1 ? 1 : ot === 2 ? -1 : 0);
/** Close transaction: 1 credit (+), 2 debit (-), 3 neutral (0). */
export const closeSign = (ct: number | null): number => (ct === 1 ? 1 : ct === 2 ? -1 : 0);

/** Net premium captured: signed premium at open plus signed premium at close (credit +, debit -, neutral 0). */
export function netPremiumCaptured(ot: number, pao: number, ct: number, pac: number): number {
  return round2(openSign(ot) * pao + closeSign(ct) * pac);
}

/** Part 1 §9: npc / open premium (credit trades) or close premium (debit trades) x 100, 2 places; null when that premium is 0. */
export function premiumCaptureRate(ot: number, pao: number, pac: number, npc: number): number | null {
  const base = ot === 1 ? pao : pac;
  if (!base) return null;
  return round2((npc / base) * 100);
}

/** Part 1 §9: open fee plus close fee. */
export const netFee = (nfto: number, nftc: number | null): number => round2(nfto + (nftc ?? 0));

/** Part 1 §9: net premium captured minus fees. */
export const netProfitLoss = (npc: number, fees: number): number => round2(npc - fees);

/** A closed trade is a win when it kept money after fees (capital gains aside: they are not premium). */
export const isWin = (npc: number, fees: number): boolean => npc - fees > 0;

export interface CollateralInput {
  strategyUid: string;
  strikePrices: readonly number[];
  contractSize: number;
  premiumAtOpen: number;
  openTransaction: number;
  costBasis: number | null;
  stockPriceAtOpen: number | null;
}

const shares = (cs: number) => cs * CONTRACT_MULTIPLIER;
const width = (a: number | undefined, b: number | undefined) => Math.abs((a ?? 0) - (b ?? 0));

/**
 * Collateral (capital at risk), USD, for the whole position. The spec names it but not its formula;
 * these are what a trader's broker would hold or what the trader can lose:
 * - cash-secured put, naked put: strike x 100 x contracts (the cash to buy the shares);
 * - naked call: strike x 100 x contracts (notional; the journal has no margin model);
 * - covered call, buy-write: cost basis x 100 x contracts (the shares held; stock price, then strike, as fallbacks);
 * - credit verticals (bull put, bear call): width x 100 x contracts minus the credit received;
 * - iron condor, iron butterfly: the wider side's width x 100 x contracts minus the credit;
 * - short straddle, short strangle: the higher strike x 100 x contracts (only one side can finish in the money);
 * - every debit position (long call/put, debit verticals, calendars, long straddle/strangle, PMCC): the debit paid.
 * Never negative.
 */
export function collateral(t: CollateralInput): number {
  const sp = t.strikePrices;
  const n = shares(t.contractSize);
  let c: number;
  switch (t.strategyUid) {
    case 'cash-secured-put':
    case 'naked-put':
    case 'naked-call':
      c = (sp[0] ?? 0) * n;
      break;
    case 'covered-call':
    case 'buy-write':
      c = (t.costBasis ?? t.stockPriceAtOpen ?? sp[0] ?? 0) * n;
      break;
    case 'bull-put-spread':
    case 'bear-call-spread':
      c = width(sp[0], sp[1]) * n - t.premiumAtOpen;
      break;
    case 'iron-condor':
    case 'iron-butterfly':
      c = Math.max(width(sp[0], sp[1]), width(sp[2], sp[3])) * n - t.premiumAtOpen;
      break;
    case 'short-straddle':
    case 'short-strangle':
      c = Math.max(...(sp.length ? sp : [0])) * n;
      break;
    default:
      // Debit strategies (and any future strategy not listed): what was paid is what is at risk.
      c = t.openTransaction === 2 ? t.premiumAtOpen : (sp[0] ?? 0) * n;
  }
  return round2(Math.max(0, c));
}

/** Calendar days from open to close; 0 is a scalp (same day). */
export const daysHeld = (tod: string, tcd: string): number => Math.max(0, daysBetween(tod, tcd));
/** Days an open trade has been open, as of a New York date. */
export const daysOpen = (tod: string, asOf: string): number => Math.max(0, daysBetween(tod, asOf));
/** Days left to expiration as of a New York date (negative: expired). */
export const daysToExpiry = (ed: string, asOf: string): number => daysBetween(asOf, ed);

/** Return on risk, percent: (npc - fees) / collateral x 100; null without collateral. */
export function returnOnRisk(npc: number, fees: number, c: number): number | null {
  if (!(c > 0)) return null;
  return round2(((npc - fees) / c) * 100);
}

/**
 * Annualised return on capital, percent: ROR x 365 / days held, from the unrounded ROR; a same-day
 * (scalp) trade counts as one day. Null without collateral.
 */
export function annualisedReturn(npc: number, fees: number, c: number, held: number): number | null {
  if (!(c > 0)) return null;
  return round2((((npc - fees) / c) * 100 * 365) / Math.max(1, held));
}

export interface CapitalGainInput {
  strategyUid: string;
  strikePrices: readonly number[];
  contractSize: number;
  costBasis: number | null;
}

/**
 * Capital gain realised by an in-the-money outcome, USD. The journal records no settlement price, so:
 * - called away (covered call, buy-write, PMCC): shares delivered at the short call's strike,
 *   gain = (strike - cost basis) x 100 x contracts (null without a cost basis);
 * - assigned on a credit vertical, iron condor or iron butterfly: both legs of the tested side settle,
 *   loss = (wider) width x 100 x contracts (negative);
 * - exercised on a debit vertical: gain = width x 100 x contracts;
 * - any other assignment or exercise (short or long single options, straddles, strangles, calendars)
 *   opens or closes a stock position at the strike: nothing is realised yet, 0;
 * - closes, rolls and expiries: null (no capital event).
 */
export function capitalGain(action: CloseAction | null, t: CapitalGainInput): number | null {
  const sp = t.strikePrices;
  const n = shares(t.contractSize);
  switch (action) {
    case 'calledAway': {
      const strike = t.strategyUid === 'pmcc' ? sp[1] : sp[0];
      if (t.costBasis === null || strike === undefined) return null;
      return round2((strike - t.costBasis) * n);
    }
    case 'assigned':
      if (t.strategyUid === 'bull-put-spread' || t.strategyUid === 'bear-call-spread') return round2(-width(sp[0], sp[1]) * n);
      if (t.strategyUid === 'iron-condor' || t.strategyUid === 'iron-butterfly') return round2(-Math.max(width(sp[0], sp[1]), width(sp[2], sp[3])) * n);
      return 0;
    case 'exercised':
      if (t.strategyUid === 'bull-call-spread' || t.strategyUid === 'bear-put-spread') return round2(width(sp[0], sp[1]) * n);
      return 0;
    default:
      return null;
  }
}

/** How a trade ended (the Disposition charts; "rolled" counts as one). */
export type Disposition = 'Closed' | 'Early Exit' | 'Rolled' | 'Assigned' | 'Called Away' | 'Expired' | 'Exercised';

/** A close before expiration day is an early exit; on it, a manual close. */
export function disposition(status: number, tcd: string | null, ed: string): Disposition | null {
  switch (status) {
    case 2:
      return tcd !== null && tcd < ed ? 'Early Exit' : 'Closed';
    case 3:
      return 'Rolled';
    case 4:
      return 'Assigned';
    case 5:
      return 'Called Away';
    case 6:
      return 'Expired';
    case 7:
      return 'Exercised';
    default:
      return null;
  }
}

/** Part 1 §4 expiry display. */
export function expiryLabel(daysLeft: number): string {
  if (daysLeft < 0) return 'Expired';
  if (daysLeft === 0) return 'Today';
  if (daysLeft === 1) return '1 Day';
  return `${daysLeft} Days`;
}

/** Part 1 §4 holding period display. */
export const holdingLabel = (held: number): string => (held === 0 ? 'Scalp' : held === 1 ? '1 Day' : `${held} Days`);

// Aggregates over a set of days (part 2 §9). Inputs are the daily premium record's sums. Each is
// computed exactly first (`exactAggregates`) and rounded once, at the end: a change between two periods
// is computed from the exact figures, never from the rounded ones (QA: a previous ROR of -0.00815 rounded
// to -0.01 turned a +8,357.4% change into +6,800%).

const rounded =
  <A extends number[]>(f: (...args: A) => number | null) =>
  (...args: A): number | null => {
    const v = f(...args);
    return v === null ? null : round2(v);
  };

export const exactAggregates = {
  /** Win rate, percent: wins / closed trades. */
  winRate: (iw: number, ctc: number): number | null => (ctc > 0 ? (iw / ctc) * 100 : null),
  /** Average hold period, days: total hold / closed count. */
  holdPeriod: (hp: number, ctc: number): number | null => (ctc > 0 ? hp / ctc : null),
  /** Premium capture rate of winners: kept premium (sum of their capture rates) / wins. */
  captureRateOfWins: (pr: number, iw: number): number | null => (iw > 0 ? pr / iw : null),
  /** Average net delta of opened trades. */
  averageDelta: (nd: number, otc: number): number | null => (otc > 0 ? nd / otc : null),
  /** Average days to expiration at open. */
  averageDaysToExpiry: (nep: number, otc: number): number | null => (otc > 0 ? nep / otc : null),
  /** Aggregate ROR: (closed npc - closed trades' fees) / their collateral x 100. */
  aggregateRor: (npc: number, ttf: number, incap: number): number | null => (incap > 0 ? ((npc - ttf) / incap) * 100 : null),
  /** Aggregate ARR: ROR x 365 / capital-weighted average days held (wdc / incap, at least one day). */
  aggregateArr: (npc: number, ttf: number, wdc: number, incap: number): number | null =>
    incap > 0 ? (((npc - ttf) / incap) * 100 * 365) / Math.max(1, wdc / incap) : null,
};

/** Win rate, percent: wins / closed trades. */
export const winRate = rounded(exactAggregates.winRate);
/** Average hold period, days: total hold / closed count. */
export const holdPeriod = rounded(exactAggregates.holdPeriod);
/** Premium capture rate of winners: kept premium (sum of their capture rates) / wins. */
export const captureRateOfWins = rounded(exactAggregates.captureRateOfWins);
/** Average net delta of opened trades. */
export const averageDelta = rounded(exactAggregates.averageDelta);
/** Average days to expiration at open. */
export const averageDaysToExpiry = rounded(exactAggregates.averageDaysToExpiry);
/** Aggregate ROR: (closed npc - closed trades' fees) / their collateral x 100. */
export const aggregateRor = rounded(exactAggregates.aggregateRor);
/** Aggregate ARR: ROR x 365 / capital-weighted average days held (wdc / incap, at least one day), from the unrounded ROR. */
export const aggregateArr = rounded(exactAggregates.aggregateArr);
/** Part 2 §9 change: percent against the absolute previous value; 0 when both are 0; null when only the previous is 0. */
export function percentChange(current: number, previous: number): number | null {
  if (previous === 0) return current === 0 ? 0 : null;
  return round2(((current - previous) / Math.abs(previous)) * 100);
}

/**
 * The fields of a daily premium record (part 2 §3) that add up over days: one day's record holds them
 * for that day, and a period's sums are the same fields added over its days.
 */
export interface DaySums {
  /** Premium cash flow: signed open premiums of trades opened plus signed close premiums of trades closed. */
  np: number;
  /** Fees paid: open fees of trades opened plus close fees of trades closed. */
  nf: number;
  /** Sum of net delta of trades opened. */
  nd: number;
  /** Sum of days to expiration, at open, of trades opened. */
  nep: number;
  otc: number;
  ctc: number;
  /** Wins among trades closed. */
  iw: number;
  /** Net premium captured by trades closed. */
  npc: number;
  /** Signed close premiums of trades closed. */
  cpt: number;
  cg: number;
  /** Days held, summed over trades closed. */
  hp: number;
  /** Premium capture rates of the winners, summed (pr / iw is their average). */
  pr: number;
  /** All fees (open and close) of trades closed. */
  ttf: number;
  /** Collateral of trades closed. */
  incap: number;
  /** Collateral x days held, summed over trades closed. */
  wdc: number;
}

/**
 * Every dashboard figure of a period, from its day sums (part 2 §9; docs/formulas.md "Dashboard"),
 * exact: premium is the period's premium cash flow (np), realized the closed trades' npc, net P/L their
 * npc minus all their fees; retention is the winners' average premium capture rate (the spec's "kept
 * premium / wins"); the ratios are null when their denominator is 0 (the gauges then show No Data).
 */
export function exactPeriodFigures(s: DaySums) {
  const a = exactAggregates;
  return {
    premium: s.np,
    realized: s.npc,
    fees: s.nf,
    net_profit_loss: s.npc - s.ttf,
    capital_gain: s.cg,
    opened: s.otc,
    closed: s.ctc,
    wins: s.iw,
    win_rate: a.winRate(s.iw, s.ctc),
    ror: a.aggregateRor(s.npc, s.ttf, s.incap),
    arr: a.aggregateArr(s.npc, s.ttf, s.wdc, s.incap),
    delta: a.averageDelta(s.nd, s.otc),
    retention: a.captureRateOfWins(s.pr, s.iw),
    hold_days: a.holdPeriod(s.hp, s.ctc),
    avg_days_to_expiry: a.averageDaysToExpiry(s.nep, s.otc),
  };
}
export type PeriodFigures = ReturnType<typeof exactPeriodFigures>;

/** The period's figures as shown: `exactPeriodFigures`, each rounded to 2 places (counts stay whole). */
export function periodFigures(s: DaySums): PeriodFigures {
  const exact = exactPeriodFigures(s);
  const out = {} as Record<string, number | null>;
  for (const [k, v] of Object.entries(exact)) out[k] = v === null ? null : round2(v);
  return out as PeriodFigures;
}

/** Part 2 §9 change of every compared dashboard figure, from the exact figures; null where the current or previous figure has none. */
export function figureChanges<K extends string>(keys: readonly K[], current: Record<K, number | null>, previous: Record<K, number | null>): Record<K, number | null> {
  const out = {} as Record<K, number | null>;
  for (const k of keys) {
    const c = current[k];
    const p = previous[k];
    out[k] = c === null || p === null ? null : percentChange(c, p);
  }
  return out;
}
