import { isWeekend, minusYears, parseIsoDate } from '@oj/contracts/business-date';
import type { Strategy } from '@oj/contracts/strategies';

/**
 * The trade forms' rules and messages (part 1 §5), as pure functions of the typed values and today's
 * New York date. Each form has its own wording in the spec (the roll form says "Please select a
 * transaction type.", the close form "Transaction type is required."), so the messages are per form.
 */
export type FieldErrors = Record<string, string>;

export const NOTES_MAX = 100;
export const PREMIUM_HINT_BELOW = 10;
export const MAX_BACKDATE_YEARS = 2;

/** A typed number, or null when blank or not a number. */
export function parseNum(text: string): number | null {
  const t = text.trim();
  if (t === '') return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

export const TICKER_PATTERN = /^[A-Z0-9]{1,6}$/;

/** "Open date cannot be empty", "... must be in YYYY-MM-DD format.", "... is invalid.", then the calendar rules. */
export function dateIssue(
  label: string,
  value: string,
  today: string,
  opts: { allowFuture?: boolean; futureMessage?: string; checkAge?: boolean; checkWeekend?: boolean } = {},
): string | null {
  if (!value) return `${label} cannot be empty`;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${label} must be in YYYY-MM-DD format.`;
  if (!parseIsoDate(value)) return `${label} is invalid.`;
  if (!opts.allowFuture && value > today) return opts.futureMessage ?? 'Future dates are not allowed.';
  if (opts.checkAge !== false && value < minusYears(today, MAX_BACKDATE_YEARS)) return `${label} cannot be older than 2 years.`;
  if (opts.checkWeekend !== false && isWeekend(value)) return 'Weekend dates are not allowed.';
  return null;
}

export interface StrikeRelationIssue {
  leg: number;
  other: number;
  type: 'lower' | 'higher' | 'same';
}

/** For each leg, the strike rule it breaks against its reference leg (null when fine or not checkable). */
export function strikeRelationIssues(strategy: Strategy | undefined, strikes: readonly (number | null)[]): (StrikeRelationIssue | null)[] {
  if (!strategy) return strikes.map(() => null);
  return strategy.legs_setup.config.map((leg, i) => {
    const rule = leg.rules.strike;
    const mine = strikes[i];
    if (!rule || mine === null || mine === undefined) return null;
    const theirs = strikes[rule.other_leg_index];
    if (theirs === null || theirs === undefined || theirs <= 0 || mine <= 0) return null;
    const ok = rule.type === 'lower' ? mine < theirs : rule.type === 'higher' ? mine > theirs : mine === theirs;
    return ok ? null : { leg: i, other: rule.other_leg_index, type: rule.type };
  });
}

/** Notes counter colour: green above 20 left, amber up to 20, red at none left. */
export function notesTone(length: number): 'success' | 'warning' | 'danger' {
  const left = NOTES_MAX - length;
  if (left <= 0) return 'danger';
  if (left <= 20) return 'warning';
  return 'success';
}

export const premiumHint = 'Total premium is under $10. Enter the full amount for all contracts (price x 100 x contracts), before fees.';
export const sameTransactionWarning = 'The opening and closing transactions are the same type (both credit or both debit). Check that this is what you meant.';

/* ---------------------------------------------------------------- Add trade */

export interface AddTradeValues {
  account: string;
  strategyType: string;
  strategyUid: string;
  ticker: string;
  price: string;
  openDate: string;
  expirationDate: string;
  strikes: string[];
  delta: string;
  contractSize: string;
  netPremium: string;
  netFee: string;
  notes: string;
}

export function validateAddTrade(v: AddTradeValues, strategy: Strategy | undefined, today: string): FieldErrors {
  const e: FieldErrors = {};
  if (!v.account) e.account = 'Account is required and cannot be null.';
  if (!v.strategyType) e.strategyType = 'Strategy type is required.';
  if (!v.strategyUid) e.strategyUid = 'Strategy is required.';
  if (!TICKER_PATTERN.test(v.ticker)) e.ticker = 'Invalid Ticker';
  const price = parseNum(v.price);
  if (price === null || price < 0) e.price = 'Must be a positive number.';
  const open = dateIssue('Open date', v.openDate, today);
  if (open) e.openDate = open;
  const exp = dateIssue('Expiration date', v.expirationDate, today, { allowFuture: true, checkAge: false });
  if (exp) e.expirationDate = exp;
  else if (!open && v.expirationDate < v.openDate) e.expirationDate = 'Expiration date must be on or after open date.';
  const strikes = v.strikes.map(parseNum);
  strikes.forEach((s, i) => {
    if (s === null || s <= 0) e[`strike${i}`] = 'Strike price must be a positive number.';
  });
  strikeRelationIssues(strategy, strikes).forEach((issue) => {
    if (issue && !e[`strike${issue.leg}`]) e[`strike${issue.leg}`] = `Invalid strike price for leg ${issue.leg + 1}.`;
  });
  const delta = parseNum(v.delta);
  if (delta === null || delta <= 0 || delta > 1) e.delta = 'Must be between 0 and 1.';
  const cs = parseNum(v.contractSize);
  if (cs === null || cs < 1 || !Number.isInteger(cs)) e.contractSize = 'Must be 1 or higher.';
  const premium = parseNum(v.netPremium);
  if (premium === null || premium < 0) e.netPremium = 'Must be a positive number.';
  const fee = parseNum(v.netFee);
  if (fee === null || fee < 0) e.netFee = 'Must be a positive number.';
  if (v.notes.length > NOTES_MAX) e.notes = `Notes cannot exceed ${NOTES_MAX} characters.`;
  return e;
}

/* ---------------------------------------------------------------- Close options */

export type CloseChoice = 'close' | 'expireWorthless' | 'assigned' | 'calledAway' | 'exercised';

export const closeChoiceLabel = (c: CloseChoice): string =>
  c === 'close' ? 'Close' : c === 'expireWorthless' ? 'Expire Worthless' : c === 'assigned' ? 'Assigned (ITM)' : c === 'calledAway' ? 'Called Away (ITM)' : 'Exercised (ITM)';

/** Expire Worthless is offered only once the trade has expired; the strategy's ITM outcome always. */
export function closeChoices(strategy: Strategy | undefined, expired: boolean): CloseChoice[] {
  const out: CloseChoice[] = ['close'];
  if (expired) out.push('expireWorthless');
  if (strategy) out.push(strategy.extra_outcome);
  return out;
}

/** Default close date: today in New York, or the expiration date when that is already past. */
export const defaultCloseDate = (expirationDate: string, today: string): string => (expirationDate < today ? expirationDate : today);

export interface CloseValues {
  choice: CloseChoice;
  contractSize: string;
  closeDate: string;
  transaction: string; // '1' credit, '2' debit, '3' neutral, '' none
  premium: string;
  fee: string;
}

export interface TradeTerms {
  tod: string;
  ed: string;
  cs: number;
}

function closeDateIssue(v: string, trade: TradeTerms, today: string, messages: { required: string; future: string; afterExpiry: string }): string | null {
  if (!v) return messages.required;
  const generic = dateIssue('Close date', v, today, { allowFuture: true, checkAge: false, checkWeekend: false });
  if (generic) return generic;
  if (v > today) return messages.future;
  if (v < trade.tod) return 'Close date cannot be before the open date.';
  if (v > trade.ed) return messages.afterExpiry;
  return null;
}

/** Close Trade (part 1 §5 "Close trade"). */
export function validateClose(v: CloseValues, trade: TradeTerms, today: string): FieldErrors {
  const e: FieldErrors = {};
  const cs = parseNum(v.contractSize);
  if (cs === null || !Number.isInteger(cs) || cs < 1 || cs > trade.cs) e.contractSize = 'Invalid Contract Size';
  const d = closeDateIssue(v.closeDate, trade, today, {
    required: 'Close date is required.',
    future: 'Future dates are not permitted.',
    afterExpiry: 'Close date cannot be after the expiration date.',
  });
  if (d) e.closeDate = d;
  if (v.choice === 'close') {
    if (v.transaction !== '1' && v.transaction !== '2') e.transaction = 'Transaction type is required.';
    const p = parseNum(v.premium);
    if (p === null || p < 0) e.premium = 'Must be a valid positive number.';
    const f = parseNum(v.fee);
    if (f === null || f < 0) e.fee = 'Must be a valid positive number.';
  }
  return e;
}

/** The close step of Add Closed Trade (part 1 §5 "Add closed trade form"). */
export function validateClosedTradeClose(v: CloseValues, trade: TradeTerms, today: string): FieldErrors {
  const e: FieldErrors = {};
  const d = closeDateIssue(v.closeDate, trade, today, {
    required: 'Close date is required.',
    future: 'future dates are not permitted.',
    afterExpiry: 'Close date cannot be after the expiration date.',
  });
  if (d) e.closeDate = d;
  if (v.choice === 'close') {
    if (v.transaction !== '1' && v.transaction !== '2') e.transaction = 'Transaction must be Credit or Debit.';
    const p = parseNum(v.premium);
    if (p === null || p <= 0) e.premium = 'Must be a number greater than 0.';
    const f = parseNum(v.fee);
    if (f === null || f <= 0) e.fee = 'Must be a number greater than 0.';
  } else {
    const p = parseNum(v.premium);
    if (p === null || p < 0) e.premium = 'Must be a positive number or zero.';
    const f = parseNum(v.fee);
    if (f === null || f < 0) e.fee = 'Must be a positive number or zero.';
  }
  return e;
}

/**
 * Profit/loss of a (partial) close: the open premium by its sign, scaled to the contracts closed, plus
 * the close premium by its sign (a debit paid to close subtracts).
 */
export function closeProfitLoss(openTransaction: number, premiumAtOpen: number, contractSize: number, contractsClosed: number, closeTransaction: number, premiumAtClose: number): number {
  const openSign = openTransaction === 2 ? -1 : 1;
  const closeSign = closeTransaction === 1 ? 1 : closeTransaction === 2 ? -1 : 0;
  const scaled = contractSize > 0 ? (premiumAtOpen * contractsClosed) / contractSize : premiumAtOpen;
  return Math.round((openSign * scaled + closeSign * premiumAtClose) * 100) / 100;
}

/** Opening and closing as the same kind (credit/credit or debit/debit) deserves a second look. */
export const sameKind = (openTransaction: number, closeTransaction: string): boolean => String(openTransaction) === closeTransaction;

/* ---------------------------------------------------------------- Roll */

export interface RollValues {
  closeDate: string;
  transaction: string;
  premiumToClose: string;
  fee: string;
  newExpirationDate: string;
  newContractSize: string;
  newPrice: string;
  newStrikes: string[];
  newDelta: string;
  newTransaction: string;
  newPremium: string;
  newFee: string;
  notes: string;
}

export function validateRoll(v: RollValues, trade: TradeTerms, strategy: Strategy | undefined, today: string): FieldErrors {
  const e: FieldErrors = {};
  if (!v.closeDate) e.closeDate = 'Close date cannot be empty';
  else {
    const generic = dateIssue('Close date', v.closeDate, today, { allowFuture: true, checkAge: false, checkWeekend: true });
    if (generic) e.closeDate = generic;
    else if (v.closeDate > today) e.closeDate = 'future dates are not permitted.';
    else if (v.closeDate < trade.tod) e.closeDate = 'Close date cannot be before the open date.';
    else if (v.closeDate > trade.ed) e.closeDate = 'Close date must be before or on Expiration';
  }
  if (v.transaction !== '1' && v.transaction !== '2') e.transaction = 'Please select a transaction type.';
  const pc = parseNum(v.premiumToClose);
  if (pc === null || pc < 0) e.premiumToClose = 'Must be a positive number.';
  const fee = parseNum(v.fee);
  if (fee === null || fee < 0) e.fee = 'Must be a non-negative number.';
  const exp = dateIssue('New Expiration date', v.newExpirationDate, today, { allowFuture: true, checkAge: false });
  if (exp) e.newExpirationDate = exp;
  else if (v.closeDate && v.newExpirationDate < v.closeDate) e.newExpirationDate = 'New Expiration date must be on or after close Date.';
  const cs = parseNum(v.newContractSize);
  if (cs === null || cs <= 0 || !Number.isInteger(cs)) e.newContractSize = 'Must be a positive number.';
  else if (cs > trade.cs) e.newContractSize = `Cannot exceed contract size [ ${trade.cs} ].`;
  const price = parseNum(v.newPrice);
  if (price === null || price < 0) e.newPrice = 'Must be a positive number.';
  const strikes = v.newStrikes.map(parseNum);
  strikes.forEach((s, i) => {
    if (s === null || s <= 0) e[`strike${i}`] = 'Strike price must be a positive number.';
  });
  strikeRelationIssues(strategy, strikes).forEach((issue) => {
    if (!issue || e[`strike${issue.leg}`]) return;
    const rel = issue.type === 'lower' ? 'must be lower than' : issue.type === 'higher' ? 'must be higher than' : 'must be the same as';
    e[`strike${issue.leg}`] = `Strike price for leg ${issue.leg + 1} ${rel} leg ${issue.other + 1}.`;
  });
  const delta = parseNum(v.newDelta);
  if (delta === null || delta <= 0 || delta > 1) e.newDelta = 'Must be between 0 and 1.';
  if (v.newTransaction !== '1' && v.newTransaction !== '2') e.newTransaction = 'Please select a transaction type.';
  const np = parseNum(v.newPremium);
  if (np === null || np < 0) e.newPremium = 'Must be a positive number.';
  const nf = parseNum(v.newFee);
  if (nf === null || nf < 0) e.newFee = 'Must be a non-negative number.';
  if (v.notes.length > NOTES_MAX) e.notes = `Notes cannot exceed ${NOTES_MAX} characters.`;
  return e;
}

/* ---------------------------------------------------------------- Edit */

export interface EditValues {
  account: string;
  ticker: string;
  price: string;
  openDate: string;
  expirationDate: string;
  strikes: string[];
  delta: string;
  contractSize: string;
  premium: string;
  fee: string;
  notes: string;
}

export function validateEdit(v: EditValues, strategy: Strategy | undefined, today: string): FieldErrors {
  const e: FieldErrors = {};
  if (!v.account) e.account = 'Account is required.';
  if (!v.ticker) e.ticker = 'Ticker is required.';
  else if (!TICKER_PATTERN.test(v.ticker)) e.ticker = 'Invalid Ticker';
  const price = parseNum(v.price);
  if (price === null || price < 0) e.price = 'Must be a positive number';
  if (!v.openDate) e.openDate = 'Open date is required.';
  else if (!parseIsoDate(v.openDate)) e.openDate = 'Open date is invalid.';
  else if (v.openDate > today) e.openDate = 'Open date cannot be in the future';
  else if (v.openDate < minusYears(today, MAX_BACKDATE_YEARS)) e.openDate = 'Open date cannot be older than 2 years.';
  else if (isWeekend(v.openDate)) e.openDate = 'Weekend dates are not allowed.';
  else if (v.expirationDate && parseIsoDate(v.expirationDate) && v.openDate > v.expirationDate) e.openDate = 'Must be before or same as Expiration Date';
  if (!v.expirationDate) e.expirationDate = 'Expiration date is required.';
  else if (!parseIsoDate(v.expirationDate)) e.expirationDate = 'Expiration date is invalid.';
  else if (isWeekend(v.expirationDate)) e.expirationDate = 'Weekend dates are not allowed.';
  else if (v.openDate && parseIsoDate(v.openDate) && v.expirationDate < v.openDate) e.expirationDate = 'Must be same as or after Open Date';
  const strikes = v.strikes.map(parseNum);
  strikes.forEach((s, i) => {
    if (s === null || s <= 0) e[`strike${i}`] = 'Must be a positive number';
  });
  strikeRelationIssues(strategy, strikes).forEach((issue) => {
    if (!issue || e[`strike${issue.leg}`]) return;
    const rel = issue.type === 'lower' ? 'Strike must be lower than' : issue.type === 'higher' ? 'Strike must be higher than' : 'Strike must match';
    e[`strike${issue.leg}`] = `${rel} Strike ${issue.other + 1}`;
  });
  if (parseNum(v.delta) === null) e.delta = 'Must be a number';
  const cs = parseNum(v.contractSize);
  if (cs === null || cs < 1 || !Number.isInteger(cs)) e.contractSize = 'Must be 1 or higher';
  const p = parseNum(v.premium);
  if (p === null || p < 0) e.premium = 'Must be a positive number';
  const f = parseNum(v.fee);
  if (f === null || f < 0) e.fee = 'Must be a positive number';
  if (v.notes.length > NOTES_MAX) e.notes = 'Max 100 characters';
  return e;
}

/* ---------------------------------------------------------------- Split */

/**
 * The two legs' premiums, each signed by its action (sell = credit, buy = debit), must add up to the
 * trade's signed net premium within a cent.
 */
export function splitPremiumIssue(strategy: Strategy, legPremiums: readonly (number | null)[], netPremium: number, openTransaction: number): string | null {
  if (legPremiums.some((p) => p === null || p <= 0)) return null;
  const signed = strategy.legs_setup.config.reduce((sum, leg, i) => sum + (leg.action === 'sell' ? 1 : -1) * (legPremiums[i] ?? 0), 0);
  const target = (openTransaction === 2 ? -1 : 1) * netPremium;
  if (Math.abs(signed - target) <= 0.01) return null;
  return `Premiums must sum to net premium ($${netPremium.toFixed(2)} ${openTransaction === 2 ? 'Debit' : 'Credit'}).`;
}

export interface SplitCloseValues {
  choice: CloseChoice;
  closeDate: string;
  transaction: string;
  premium: string;
  fee: string;
}

export function validateSplitClose(v: SplitCloseValues, trade: TradeTerms, today: string): FieldErrors {
  const e: FieldErrors = {};
  if (!v.closeDate) e.closeDate = 'Close date is required.';
  else if (!parseIsoDate(v.closeDate)) e.closeDate = 'Close date is invalid.';
  else if (v.closeDate > today) e.closeDate = 'future dates are not permitted.';
  else if (v.closeDate < trade.tod) e.closeDate = 'Close date cannot be before the open date.';
  else if (v.closeDate > trade.ed) e.closeDate = 'Close date cannot be after the expiration date.';
  else if (isWeekend(v.closeDate)) e.closeDate = 'Weekend dates are not allowed.';
  if (v.choice === 'close') {
    if (v.transaction !== '1' && v.transaction !== '2') e.transaction = 'Please select a transaction type.';
    const p = parseNum(v.premium);
    if (p === null || p <= 0) e.premium = 'Must be a positive number.';
  } else {
    const p = parseNum(v.premium);
    if (p === null || p < 0) e.premium = 'Must be a non-negative number.';
  }
  const f = parseNum(v.fee);
  if (f === null || f < 0) e.fee = 'Must be a non-negative number.';
  return e;
}
