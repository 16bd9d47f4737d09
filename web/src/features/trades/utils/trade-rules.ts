import type { Strategy } from '@oj/contracts/strategies';
import { parseIsoDate, weekdayOnOrBefore } from '@oj/contracts/business-date';
import {
  NOTES_MAX,
  checkCloseDate,
  checkExpirationDate,
  checkOpenDate,
  checkOpenFields,
  checkSplitPremiums,
  checkStrikes,
  latestCloseDate,
  tradeMessages as m,
  type FieldIssue,
} from '@oj/contracts/trades';

/**
 * The trade forms' rules (part 1 §5). The value rules and their messages are the server's own
 * (`@oj/contracts/trades`), run on what the trader typed; this module adds only what a form has and an
 * API payload does not: blank inputs, the strategy-type step, and the mapping of API field names to
 * the form's fields, so each message shows under the input it is about.
 */
export type FieldErrors = Record<string, string>;

export { NOTES_MAX };
export const PREMIUM_HINT_BELOW = 10;

/** A typed number, or null when blank or not a number. */
export function parseNum(text: string): number | null {
  const t = text.trim();
  if (t === '') return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** Typed text as the API number it becomes; blank is NaN, which every rule rejects. */
const numOf = (text: string): number => parseNum(text) ?? Number.NaN;

/** Issues keyed by form field, first message per field; `fieldOf` maps API names (strike_prices.1 -> strike1). */
function collect(issues: readonly FieldIssue[], fieldOf: (apiField: string) => string, into: FieldErrors = {}): FieldErrors {
  for (const issue of issues) {
    const key = fieldOf(issue.field);
    if (!into[key]) into[key] = issue.message;
  }
  return into;
}

const strikeKey = (field: string): string | null => {
  const match = /^(?:strike_prices|strike)\.(\d+)$/.exec(field);
  return match ? `strike${match[1]}` : null;
};

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

const addFields: Record<string, keyof AddTradeValues> = {
  account_uid: 'account',
  strategy_uid: 'strategyUid',
  ticker: 'ticker',
  stock_price_at_open: 'price',
  cost_basis: 'price',
  net_delta: 'delta',
  premium_at_open: 'netPremium',
  net_fee_to_open: 'netFee',
  contract_size: 'contractSize',
  trade_open_date: 'openDate',
  expiration_date: 'expirationDate',
  notes: 'notes',
};

export function validateAddTrade(v: AddTradeValues, strategy: Strategy | undefined, today: string): FieldErrors {
  const e: FieldErrors = {};
  if (!v.strategyType) e.strategyType = 'Strategy type is required.';
  // Blank amounts are "not a positive number" in the form; the API would never receive them.
  if (parseNum(v.price) === null) e.price = m.positiveNumber;
  if (parseNum(v.netPremium) === null) e.netPremium = m.positiveNumber;
  if (parseNum(v.netFee) === null) e.netFee = m.positiveNumber;
  const usesCostBasis = strategy?.uses_cost_basis ?? false;
  const issues = checkOpenFields(
    {
      ticker: v.ticker,
      strategy_uid: v.strategyUid,
      account_uid: v.account,
      strike_prices: v.strikes.map(numOf),
      trade_open_date: v.openDate,
      expiration_date: v.expirationDate,
      contract_size: numOf(v.contractSize),
      premium_at_open: numOf(v.netPremium),
      net_fee_to_open: numOf(v.netFee),
      net_delta: numOf(v.delta),
      stock_price_at_open: usesCostBasis ? null : numOf(v.price),
      cost_basis: usesCostBasis ? numOf(v.price) : null,
      notes: v.notes,
    },
    strategy,
    today,
  );
  if (!Number.isInteger(numOf(v.contractSize))) e.contractSize = m.contractSizeMin;
  return collect(issues, (f) => strikeKey(f) ?? addFields[f] ?? f, e);
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

/**
 * The date a trade form starts with: today in New York, on a weekend the Friday before. A weekend date is
 * refused, so a form opened on a Saturday started invalid, its Next disabled, with no message until a
 * field was touched.
 */
export function defaultTradeDate(today: string): string {
  return weekdayOnOrBefore(today);
}

/** Default close date: the trade date above, or the expiration date when that is earlier. */
export function defaultCloseDate(expirationDate: string, today: string): string {
  return latestCloseDate(expirationDate, defaultTradeDate(today));
}

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

/** Close Trade (part 1 §5 "Close trade"). */
export function validateClose(v: CloseValues, trade: TradeTerms, today: string): FieldErrors {
  const e: FieldErrors = {};
  const cs = parseNum(v.contractSize);
  if (cs === null || !Number.isInteger(cs) || cs < 1 || cs > trade.cs) e.contractSize = m.invalidContractSize;
  const d = checkCloseDate(v.closeDate, trade.tod, trade.ed, today, 'close');
  if (d) e.closeDate = d;
  if (v.choice === 'close') {
    if (v.transaction !== '1' && v.transaction !== '2') e.transaction = m.transactionRequired;
    const p = parseNum(v.premium);
    if (p === null || p < 0) e.premium = m.validPositive;
    const f = parseNum(v.fee);
    if (f === null || f < 0) e.fee = m.validPositive;
  }
  return e;
}

/** The close step of Add Closed Trade (part 1 §5 "Add closed trade form"). */
export function validateClosedTradeClose(v: CloseValues, trade: TradeTerms, today: string): FieldErrors {
  const e: FieldErrors = {};
  const d = checkCloseDate(v.closeDate, trade.tod, trade.ed, today, 'addClosed');
  if (d) e.closeDate = d;
  const plain = v.choice === 'close';
  if (plain && v.transaction !== '1' && v.transaction !== '2') e.transaction = m.creditOrDebit;
  for (const key of ['premium', 'fee'] as const) {
    const n = parseNum(v[key]);
    if (plain ? n === null || n <= 0 : n === null || n < 0) e[key] = plain ? m.greaterThanZero : m.positiveOrZero;
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

/**
 * A roll's same-type warnings (part 1 §4, "closing and opening as the same transaction type"): the close
 * that matches the trade's own opening (a credit trade closed for a credit), and the new opening that
 * matches the close (debit to close, debit to reopen: QA found only the first warned). Each names a side.
 */
export const rollSameTransaction = (openTransaction: number, transaction: string, newTransaction: string): { close: boolean; open: boolean } => ({
  close: transaction !== '' && sameKind(openTransaction, transaction),
  open: transaction !== '' && newTransaction !== '' && transaction === newTransaction,
});

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
  const d = checkCloseDate(v.closeDate, trade.tod, trade.ed, today, 'roll');
  if (d) e.closeDate = d;
  if (v.transaction !== '1' && v.transaction !== '2') e.transaction = m.selectTransaction;
  const nonNegative = (key: 'premiumToClose' | 'newPrice' | 'newPremium' | 'fee' | 'newFee', message: string) => {
    const n = parseNum(v[key]);
    if (n === null || n < 0) e[key] = message;
  };
  nonNegative('premiumToClose', m.positiveNumber);
  nonNegative('newPrice', m.positiveNumber);
  nonNegative('newPremium', m.positiveNumber);
  nonNegative('fee', m.nonNegative);
  nonNegative('newFee', m.nonNegative);
  const exp = checkExpirationDate(v.newExpirationDate, today);
  if (exp) e.newExpirationDate = exp;
  else if (v.closeDate && v.newExpirationDate < v.closeDate) e.newExpirationDate = m.newExpirationBeforeClose;
  const cs = parseNum(v.newContractSize);
  if (cs === null || cs <= 0 || !Number.isInteger(cs)) e.newContractSize = m.positiveNumber;
  else if (cs > trade.cs) e.newContractSize = m.cannotExceedSize(trade.cs);
  if (strategy) collect(checkStrikes(strategy, v.newStrikes.map(numOf), 'roll'), (f) => strikeKey(f) ?? f, e);
  const delta = parseNum(v.newDelta);
  if (delta === null || delta <= 0 || delta > 1) e.newDelta = m.deltaRange;
  if (v.newTransaction !== '1' && v.newTransaction !== '2') e.newTransaction = m.selectTransaction;
  if (v.notes.length > NOTES_MAX) e.notes = m.notesMax;
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

/**
 * `storedOpenDate`: the trade's open date as recorded. Its date rules (not in the future, not older than two
 * years, not a weekend) apply to a changed open date, as the server applies them: a position opened two
 * years ago (a LEAPS, a PMCC) stays editable (QA: Next stayed disabled, with no message, once its open date
 * passed the two-year limit).
 */
export function validateEdit(v: EditValues, strategy: Strategy | undefined, today: string, storedOpenDate?: string): FieldErrors {
  const e: FieldErrors = {};
  if (!v.account) e.account = m.accountRequired;
  if (!/^[A-Z0-9]{1,6}$/.test(v.ticker)) e.ticker = m.invalidTicker;
  const price = parseNum(v.price);
  if (price === null || price < 0) e.price = m.positiveNumberEdit;
  const open = v.openDate === storedOpenDate ? null : checkOpenDate(v.openDate, today, 'edit');
  const exp = checkExpirationDate(v.expirationDate, today);
  if (open) e.openDate = open;
  if (exp) e.expirationDate = exp;
  // The order of the two dates is checked whenever both are dates, as the server does: an open date
  // refused for another reason (a weekend) no longer hides that the expiration is before it (QA).
  if (!exp && parseIsoDate(v.openDate) && v.openDate > v.expirationDate) {
    e.openDate ??= m.openDateAfterExpirationEdit;
    e.expirationDate = m.expirationBeforeOpenEdit;
  }
  if (strategy) collect(checkStrikes(strategy, v.strikes.map(numOf), 'edit'), (f) => strikeKey(f) ?? f, e);
  if (parseNum(v.delta) === null) e.delta = m.mustBeNumber;
  const cs = parseNum(v.contractSize);
  if (cs === null || cs < 1 || !Number.isInteger(cs)) e.contractSize = m.contractSizeMinEdit;
  const p = parseNum(v.premium);
  if (p === null || p < 0) e.premium = m.positiveNumberEdit;
  const f = parseNum(v.fee);
  if (f === null || f < 0) e.fee = m.positiveNumberEdit;
  if (v.notes.length > NOTES_MAX) e.notes = m.notesMax;
  return e;
}

/* ---------------------------------------------------------------- Split */

/** Step 1: each leg's premium, and the two combined to the trade's net premium (server rule). */
export function validateSplitPremiums(strategy: Strategy, legPremiums: readonly string[], netPremium: number, openTransaction: number): FieldErrors {
  const issues = checkSplitPremiums(strategy, openTransaction === 2 ? 2 : 1, netPremium, [numOf(legPremiums[0] ?? ''), numOf(legPremiums[1] ?? '')]);
  return collect(issues, (f) => (f.startsWith('leg_premium.') ? `leg${f.slice('leg_premium.'.length)}` : 'sum'));
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
  const d = checkCloseDate(v.closeDate, trade.tod, trade.ed, today, 'split');
  if (d) e.closeDate = d;
  const p = parseNum(v.premium);
  if (v.choice === 'close') {
    if (v.transaction !== '1' && v.transaction !== '2') e.transaction = m.selectTransaction;
    if (p === null || p <= 0) e.premium = m.positiveNumber;
  } else if (p === null || p < 0) e.premium = m.nonNegative;
  const f = parseNum(v.fee);
  if (f === null || f < 0) e.fee = m.nonNegative;
  return e;
}
