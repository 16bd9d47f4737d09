import { z } from 'zod';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from './common.ts';
import { addDays, isWeekend, minusYears, parseIsoDate } from './business-date.ts';
import type { Strategy } from './strategies.ts';
import { tradeListItem, type TradeListItem } from './trade-list-item.ts';

/**
 * The trade commands' API (part 1 §7, API names of §3) and the spec's trade validation rules (§5).
 * The rules are pure functions of the input, the strategy and today's New York date, so the server's
 * deciders and the console's forms run the same code and show the same messages.
 *
 * The request schemas only check shapes and types (so bad input is a 422, never a 500); the value rules
 * live in the check functions below, which know which form's wording applies.
 */

export const tradeMessages = {
  invalidTicker: 'Invalid Ticker',
  positiveNumber: 'Must be a positive number.',
  deltaRange: 'Must be between 0 and 1.',
  contractSizeMin: 'Must be 1 or higher.',
  expirationBeforeOpen: 'Expiration date must be on or after open date.',
  strikePositive: 'Strike price must be a positive number.',
  strikeForLeg: (n: number) => `Invalid strike price for leg ${n}.`,
  accountRequired: 'Account is required and cannot be null.',
  strategyRequired: 'Strategy is required.',
  openDateEmpty: 'Open date cannot be empty',
  openDateFormat: 'Open date must be in YYYY-MM-DD format.',
  openDateInvalid: 'Open date is invalid.',
  futureNotAllowed: 'Future dates are not allowed.',
  openDateTooOld: 'Open date cannot be older than 2 years.',
  weekend: 'Weekend dates are not allowed.',
  expirationRequired: 'Expiration date is required.',
  expirationInvalid: 'Expiration date is invalid.',
  expirationTooFar: 'Expiration date cannot be more than 5 years away.',
  notesMax: 'Max 100 characters',
  // Close trade.
  invalidContractSize: 'Invalid Contract Size',
  closeDateRequired: 'Close date is required.',
  closeDateFuture: 'Future dates are not permitted.',
  closeDateBeforeOpen: 'Close date cannot be before the open date.',
  closeDateAfterExpiration: 'Close date cannot be after the expiration date.',
  closeDateInvalid: 'Close date is invalid.',
  transactionRequired: 'Transaction type is required.',
  validPositive: 'Must be a valid positive number.',
  // Add closed trade.
  greaterThanZero: 'Must be a number greater than 0.',
  positiveOrZero: 'Must be a positive number or zero.',
  creditOrDebit: 'Transaction must be Credit or Debit.',
  closeDateFutureLower: 'future dates are not permitted.',
  // Roll.
  nonNegative: 'Must be a non-negative number.',
  cannotExceedSize: (n: number) => `Cannot exceed contract size [ ${n} ].`,
  /** A roll closes as many contracts as it opens: `old_trade.contract_size`, when sent, says the same. */
  rollSizesDiffer: (n: number) => `Must equal the new contract size [ ${n} ].`,
  closeDateAfterExpirationRoll: 'Close date must be before or on Expiration',
  newExpirationBeforeClose: 'New Expiration date must be on or after close Date.',
  selectTransaction: 'Please select a transaction type.',
  strikeLower: (x: number, y: number) => `Strike price for leg ${x} must be lower than leg ${y}.`,
  strikeHigher: (x: number, y: number) => `Strike price for leg ${x} must be higher than leg ${y}.`,
  strikeSame: (x: number, y: number) => `Strike price for leg ${x} must be the same as leg ${y}.`,
  // Edit.
  positiveNumberEdit: 'Must be a positive number',
  openDateFutureEdit: 'Open date cannot be in the future',
  openDateAfterExpirationEdit: 'Must be before or same as Expiration Date',
  expirationBeforeOpenEdit: 'Must be same as or after Open Date',
  mustBeNumber: 'Must be a number',
  contractSizeMinEdit: 'Must be 1 or higher',
  editStrikeLower: (n: number) => `Strike must be lower than Strike ${n}`,
  editStrikeHigher: (n: number) => `Strike must be higher than Strike ${n}`,
  editStrikeSame: (n: number) => `Strike must match Strike ${n}`,
  lockedByAncestry: 'Account, ticker, open date and contract size cannot be changed on a trade that was rolled or split from another.',
  lockedByPartialClose: 'Account, ticker, open date and contract size cannot be changed on what stayed open after a partial close or roll: they are the closed part\'s too.',
  neverEditable: 'Strategy, transaction and tags cannot be changed.',
  // Split.
  positiveNonZero: 'Must be a positive non-zero number.',
  premiumsMustSum: (net: number, credit: boolean) => `Premiums must sum to net premium ($${net.toFixed(2)} ${credit ? 'Credit' : 'Debit'}).`,
  // State rules (409 / 404 / 403).
  notFound: 'Trade not found.',
  closedIsFinalEdit: 'Closed trades are final: this trade cannot be edited.',
  closedIsFinalDelete: 'Closed trades are final: this trade cannot be deleted.',
  alreadyClosed: 'This trade is already closed.',
  /** Closed (or rolled) in part by an earlier request: the contracts still open are another trade now. */
  partlyClosed: (remainder: string) => `Part of this trade was closed or rolled just before: the contracts still open are trade ${remainder} now. Reload to act on them.`,
  wasSplit: 'This trade was split: act on its legs instead.',
  notBreakable: 'Only two-leg trades of a breakable strategy can be split.',
  notExpired: 'Expire Worthless is only possible once the trade has expired.',
  wrongOutcome: (outcome: string) => `This strategy's in-the-money outcome is ${outcome}.`,
  changedConcurrently: 'This trade was changed by another request at the same time. Reload it and try again.',
  /** An edit whose `expected` values the trade no longer holds: changed in another tab or window since the form was opened. */
  changedSinceOpened: (fields: string) => `This trade was changed elsewhere since you opened it (${fields}). Nothing was saved: close this form and edit the trade again.`,
  /** A close, roll or split whose `expected` values the trade no longer holds: what the form confirmed is not what it would record. */
  changedBeforeAction: (fields: string, done: 'closed' | 'rolled' | 'split') =>
    `This trade was changed elsewhere since you opened it (${fields}). Nothing was ${done}: close this form, look at the trade as it is now and try again.`,
  accountNotOwned: 'Choose one of your own trade accounts: this account was not found.',
  noAccount: 'Create a trade account before adding trades.',
  idempotencyReuse: 'This Idempotency-Key was already used for a different request.',
  closingStatus: 'Status must be a closing status: 2 (closed), 4 (assigned), 5 (called away), 6 (expired worthless) or 7 (exercised).',
  // Split without leg_index: the closed leg is worked out from what the request carries.
  splitLegUnknown: "Say which leg to close: leg_index (0 or 1), or the closing leg's strike_prices.",
  splitLegNoMatch: 'No leg of this trade matches the strike price or strategy given for the split.',
  splitLegAmbiguous: 'Both legs of this trade match the closing leg: say which with leg_index (0 or 1).',
  // Bad input, not a rule of the spec: text PostgreSQL cannot store, and uids no trade can have.
  unstorableText: UNSTORABLE_TEXT_MESSAGE,
  invalidUid: 'Invalid trade uid.',
} as const;

export const TICKER_PATTERN = /^[A-Za-z0-9]{1,6}$/;
export const NOTES_MAX = 100;
export const SPLIT_TOLERANCE = 0.01;
export const BACKDATE_YEARS = 2;
/** How far ahead an expiration date may be (see checkExpirationDate). */
export const EXPIRATION_MAX_YEARS = 5;

// ---- request and answer schemas (API names) ----

// Bounds far beyond any real trade keep every derived figure finite (collateral = strike x 100 x
// contracts) and every stored integer in range, so no input can break a read model.
export const MONEY_MAX = 1_000_000_000;
export const CONTRACTS_MAX = 100_000;
/** A money amount; `error` is what a missing or non-numeric value answers (the form's own wording). */
const money = (error: string = tradeMessages.mustBeNumber) =>
  z
    .number({ error })
    .min(-MONEY_MAX, `Must be at least -${MONEY_MAX}.`)
    .max(MONEY_MAX, `Must be at most ${MONEY_MAX}.`);
const num = money();
/** A contract count with one message for missing, non-numeric, fractional or negative values. */
const count = (error: string) => z.number({ error }).int({ error }).min(-CONTRACTS_MAX, error).max(CONTRACTS_MAX, `Must be at most ${CONTRACTS_MAX}.`);

/**
 * PostgreSQL text and jsonb cannot hold NUL, and jsonb refuses unpaired UTF-16 surrogates: such text
 * must be refused as bad input (422) before it reaches a query or an event, never answer 500.
 */
const text = (max: number, error?: string) =>
  z
    .string(error ? { error } : undefined)
    .max(max)
    .refine(isStorableText, { error: tradeMessages.unstorableText });
const dateText = text(32, 'Date must be in YYYY-MM-DD format.');
/** Trade uids are uuids; anything else names no trade (and must not reach a query). */
/**
 * How every screen, sentence and message names a trade: `#` and the last six characters of its uid (uids
 * are time-ordered, so their first characters are alike). The audit's trade look-up reads it back.
 */
export const tradeShortId = (uid: string): string => `#${uid.slice(-6)}`;

/** A trade's uid as a path names it: its own message for anything else, a 120-character id included (QA). */
export const tradeUid = z.string().min(1, tradeMessages.invalidUid).max(64, tradeMessages.invalidUid).regex(/^[A-Za-z0-9_-]+$/, tradeMessages.invalidUid);

export const tagData = z
  .array(z.object({ name: z.string().trim().min(1).max(40).refine(isStorableText, { error: tradeMessages.unstorableText }) }))
  .max(20)
  .default([]);

/** The opening fields of a trade (add-trade `trade_data`, roll `new_trade`). */
export const tradeData = z.object({
  ticker: text(32, tradeMessages.invalidTicker),
  strategy_uid: text(64, tradeMessages.strategyRequired),
  account_uid: text(64, tradeMessages.accountRequired),
  // Missing or mistyped values answer the add form's messages (§5 "Add trade").
  strike_prices: z.array(money(tradeMessages.strikePositive), { error: tradeMessages.strikeForLeg(1) }).max(8),
  trade_open_date: text(32, tradeMessages.openDateEmpty),
  expiration_date: text(32, tradeMessages.expirationRequired),
  contract_size: count(tradeMessages.contractSizeMin),
  premium_at_open: money(tradeMessages.positiveNumber),
  net_fee_to_open: money(tradeMessages.positiveNumber),
  net_delta: money(tradeMessages.deltaRange),
  stock_price_at_open: money(tradeMessages.positiveNumber).nullable().optional(),
  cost_basis: money(tradeMessages.positiveNumber).nullable().optional(),
  leaps_value: money(tradeMessages.positiveNumber).nullable().optional(),
  /** Ignored: the strategy decides credit or debit. Accepted so the console can send what it shows. */
  open_transaction: z.number().optional(),
  /** `null` means no notes (recorded as ""). */
  notes: text(10_000).nullable().optional(),
});
export type TradeData = z.infer<typeof tradeData>;

/**
 * The in-the-money outcome in a close path: the spec's `called-away`, and the strategy catalogue's own
 * spelling (`extra_outcome`: `calledAway`), so a client may build the path from either.
 */
export const closeActionPath = z.enum(['assigned', 'called-away', 'calledAway', 'exercised']);

/** What a mistyped closing field answers, in the wording of the form it comes from (§5). */
interface ClosingWording {
  premium: string;
  fee: string;
  transaction: string;
}
/**
 * The closing fields (close, expire-worthless, ITM outcomes; roll `old_trade`; add-closed-trade). The
 * shape is the same everywhere; a missing-or-mistyped value answers the form's own message.
 */
const closingDataOf = (w: ClosingWording) =>
  z.object({
    contract_size: count(tradeMessages.invalidContractSize).optional(),
    trade_close_date: dateText.optional(),
    premium_at_close: money(w.premium).optional(),
    net_fee_to_close: money(w.fee).optional(),
    close_transaction: z.number({ error: w.transaction }).int({ error: w.transaction }).nullable().optional(),
  });
/** The close form's wording (§5 "Close trade"): close, expire-worthless and the in-the-money outcomes. */
export const closingData = closingDataOf({ premium: tradeMessages.validPositive, fee: tradeMessages.validPositive, transaction: tradeMessages.transactionRequired });
export type ClosingData = z.infer<typeof closingData>;
/** The roll form's close side (§5 "Roll form"). */
const rollClosingData = closingDataOf({ premium: tradeMessages.positiveNumber, fee: tradeMessages.nonNegative, transaction: tradeMessages.selectTransaction });
/** The add-closed-trade form (§5 "Add closed trade form"); its status defaults to a normal close. */
const addClosedClosingData = closingDataOf({ premium: tradeMessages.greaterThanZero, fee: tradeMessages.greaterThanZero, transaction: tradeMessages.creditOrDebit });
/** The split dialog's closing form (§5 "Split"). */
const splitClosingData = closingDataOf({ premium: tradeMessages.positiveNumber, fee: tradeMessages.nonNegative, transaction: tradeMessages.selectTransaction });

export const addTradeRequest = z.object({ trade_data: tradeData, tag_data: tagData });
export type AddTradeRequest = z.infer<typeof addTradeRequest>;

/** `status` says how it was closed: 2 closed, 4 assigned, 5 called away, 6 expired worthless, 7 exercised. */
export const addClosedTradeRequest = z.object({
  trade_data: tradeData.extend(addClosedClosingData.omit({ contract_size: true }).shape).extend({ status: z.number().int().default(2) }),
  tag_data: tagData,
});
export type AddClosedTradeRequest = z.infer<typeof addClosedTradeRequest>;

/**
 * The trade's terms as the form showed them, sent with an edit, a close, a roll or a split: the command
 * is refused (409) when the trade no longer holds one of them, because it was edited in another tab or
 * on another device since the form opened, and what the trader confirmed (a profit or loss, the legs of a
 * split) is not what would be recorded. Not checked as amounts: they are what the trade held, legacy
 * values included. Each field is optional: only those sent are compared.
 */
export const tradeExpectations = z
  .object({
    ticker: z.string().max(32),
    expiration_date: z.string().max(32),
    strike_prices: z.array(z.number()).max(8),
    stock_price_at_open: z.number().nullable(),
    cost_basis: z.number().nullable(),
    trade_open_date: z.string().max(32),
    premium_at_open: z.number(),
    contract_size: z.number(),
    notes: z.string().max(10_000).nullable(),
    account_uid: z.string().max(64),
    net_fee_to_open: z.number(),
    net_delta: z.number(),
  })
  .partial()
  .strict();
export type TradeExpectations = z.infer<typeof tradeExpectations>;

/** A trade's terms as a form opened on its list item shows them, in `tradeExpectations`' spelling. */
export function shownTerms(t: TradeListItem): Required<TradeExpectations> {
  return {
    account_uid: t.au,
    ticker: t.ticker,
    cost_basis: t.cb,
    stock_price_at_open: t.spo,
    trade_open_date: t.tod,
    expiration_date: t.ed,
    strike_prices: t.sp,
    net_delta: t.nd,
    contract_size: t.cs,
    premium_at_open: t.pao,
    net_fee_to_open: t.nfto,
    notes: t.notes,
  };
}

/**
 * What a close, roll or split confirms rests on: every term but the notes (a note written on another
 * device changes nothing the trader confirmed), sent as the command's `expected`.
 */
export function confirmedTerms(t: TradeListItem): TradeExpectations {
  const { notes: _notes, ...terms } = shownTerms(t);
  return terms;
}

/** Close, expire-worthless and the in-the-money outcomes; `expected`: the trade as the form showed it. */
export const closeTradeRequest = closingData.extend({ expected: tradeExpectations.optional() });
export type CloseTradeRequest = z.infer<typeof closeTradeRequest>;

export const rollTradeRequest = z.object({
  trade_roll_data: z.object({
    old_trade: rollClosingData,
    /** The new trade's open date is the close date; ticker, strategy and account are the old trade's. */
    new_trade: tradeData.omit({ ticker: true, strategy_uid: true, account_uid: true, trade_open_date: true }).extend({
      trade_open_date: dateText.optional(),
      // The roll form's wording where it differs from the add form's (§5 "Roll form").
      strike_prices: z.array(money(tradeMessages.strikePositive), { error: tradeMessages.strikePositive }).max(8),
      contract_size: count(tradeMessages.positiveNumber),
      net_fee_to_open: money(tradeMessages.nonNegative),
    }),
  }),
  tag_data: tagData,
  /** The trade being rolled as the form showed it (see `tradeExpectations`). */
  expected: tradeExpectations.optional(),
});
export type RollTradeRequest = z.infer<typeof rollTradeRequest>;

export const splitTradeRequest = z.object({
  trade_data: z.object({
    /**
     * The leg that is closed: its share of the open premium and its closing data. Which leg it is: its
     * index (0-based) when given; otherwise worked out from its strike (`strike_prices`), its single-leg
     * strategy (`strategy_uid`) or the opening leg's, and refused when that leaves no leg or both.
     */
    closing_trade: splitClosingData.omit({ contract_size: true }).extend({
      leg_index: z.number().int().min(0).max(1).optional(),
      strike_prices: z.array(num).max(8).optional(),
      strategy_uid: text(64).optional(),
      // A missing or mistyped leg premium answers the Split form's own message (§5 "Split", step 1).
      premium_at_open: money(tradeMessages.positiveNonZero),
      /** 2 closed, or the strategy's in-the-money outcome status. */
      status: z.number().int().default(2),
    }),
    /** The leg that stays open: its share of the open premium (and, optionally, its strike or strategy). */
    opening_trade: z.object({ premium_at_open: money(tradeMessages.positiveNonZero), strike_prices: z.array(num).max(8).optional(), strategy_uid: text(64).optional() }),
  }),
  tag_data: tagData,
  /** The trade being split as the form showed it (see `tradeExpectations`). */
  expected: tradeExpectations.optional(),
});
export type SplitTradeRequest = z.infer<typeof splitTradeRequest>;

/**
 * The edit form's wording (§5 "Edit trade"): premium, fee, price and each strike say "Must be a positive
 * number" (missing, non-numeric or below 0), delta "Must be a number".
 */
const editAmount = money(tradeMessages.positiveNumberEdit);
export const updateTradeRequest = z
  .object({
    ticker: text(32),
    expiration_date: dateText,
    strike_prices: z.array(editAmount, { error: tradeMessages.positiveNumberEdit }).max(8),
    stock_price_at_open: editAmount.nullable(),
    cost_basis: editAmount.nullable(),
    trade_open_date: dateText,
    premium_at_open: editAmount,
    contract_size: z.number({ error: tradeMessages.contractSizeMinEdit }).int({ error: tradeMessages.contractSizeMinEdit }).max(CONTRACTS_MAX, `Must be at most ${CONTRACTS_MAX}.`),
    /** `null` clears the notes (recorded as ""). */
    notes: text(10_000).nullable(),
    account_uid: text(64),
    strategy_uid: text(64),
    net_fee_to_open: editAmount,
    net_delta: num,
    open_transaction: z.number(),
    /** Never editable; accepted only to be compared (names or `{name}`), so bounded like tag_data. */
    tags: z.array(z.union([text(40), z.object({ name: text(40) })])).max(20),
    /**
     * Optional: the values the form showed for the fields it changes (their "before"). The edit is refused
     * (409, `changedSinceOpened`) when the trade no longer holds any of them, so an edit sent from a tab
     * opened before another tab's edit never overwrites it.
     */
    expected: tradeExpectations,
  })
  .partial();
export type UpdateTradeRequest = z.infer<typeof updateTradeRequest>;

export const tradeUidParams = z.object({ uid: tradeUid });
export const outcomeParams = z.object({ outcome: closeActionPath, uid: tradeUid });

export const closeTradeResponse = z.object({ remaining_trade: tradeListItem.nullable(), closed_trade: tradeListItem });
export const addClosedTradeResponse = z.object({ closed_trade: tradeListItem });
export const rollTradeResponse = z.object({
  closed_trade: tradeListItem,
  remaining_trade: tradeListItem.nullable(),
  new_trade_after_roll: tradeListItem,
});
export const splitTradeResponse = z.object({ closed_trade: tradeListItem, open_trade: tradeListItem });
export const deleteTradeResponse = z.object({ message: z.string(), uid: z.string() });

// ---- value rules ----

export interface FieldIssue {
  field: string;
  message: string;
}

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/**
 * Why a trade's account, ticker, open date and contract size are locked, or null when they are not: a
 * trade split from another (its ancestor) or rolled from another (part 1 §5), and what stayed open after
 * a partial close or a partial roll. That remainder is one position with its closed part, which is final,
 * so the two would disagree for good; and the remainder of a rolled trade has no roll-from reference of
 * its own (QA: its open date moved before the roll it came out of). The decider and the edit form both
 * read it.
 */
export function structureLock(trade: { auid: string | null; rf: string | null; pf: string | null }): 'split' | 'roll' | 'partial' | null {
  if (trade.auid !== null) return 'split';
  if (trade.rf !== null) return 'roll';
  if (trade.pf !== null) return 'partial';
  return null;
}

/** Shared date checks of an open date (add and edit wording differ only in the future/expiration text). */
export function checkOpenDate(value: string | undefined, today: string, form: 'add' | 'edit' = 'add'): string | null {
  if (!value) return tradeMessages.openDateEmpty;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return tradeMessages.openDateFormat;
  if (!parseIsoDate(value)) return tradeMessages.openDateInvalid;
  if (value > today) return form === 'edit' ? tradeMessages.openDateFutureEdit : tradeMessages.futureNotAllowed;
  if (value < minusYears(today, BACKDATE_YEARS)) return tradeMessages.openDateTooOld;
  if (isWeekend(value)) return tradeMessages.weekend;
  return null;
}

/** Expiration may be in the future (the one exception), never on a weekend. */
/**
 * The expiration date: a weekday, and at most EXPIRATION_MAX_YEARS ahead of today (New York). No option
 * lists further out (LEAPS run about three years); a typo such as 9999-12-31 was accepted and read as
 * 2.9 million days to expiry on the Open list, and as averages of hundreds of thousands of days on the
 * dashboard and pulse (QA).
 */
export function checkExpirationDate(value: string | undefined, today: string): string | null {
  if (!value) return tradeMessages.expirationRequired;
  if (!parseIsoDate(value)) return tradeMessages.expirationInvalid;
  if (isWeekend(value)) return tradeMessages.weekend;
  if (value > minusYears(today, -EXPIRATION_MAX_YEARS)) return tradeMessages.expirationTooFar;
  return null;
}

export type StrikeWording = 'add' | 'roll' | 'edit';

/** Strikes: one per leg, each above 0, and related to another leg as the strategy's `legs_setup` says. */
export function checkStrikes(strategy: Strategy, strikes: readonly number[], wording: StrikeWording, field = 'strike_prices'): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const legs = strategy.legs_setup.config;
  const positive = wording === 'edit' ? tradeMessages.positiveNumberEdit : tradeMessages.strikePositive;
  legs.forEach((leg, i) => {
    const k = strikes[i];
    if (!isNum(k) || k <= 0) {
      issues.push({ field: `${field}.${i}`, message: wording === 'add' && k === undefined ? tradeMessages.strikeForLeg(i + 1) : positive });
      return;
    }
    const rule = leg.rules.strike;
    if (!rule) return;
    const other = strikes[rule.other_leg_index];
    if (!isNum(other) || other <= 0) return;
    const ok = rule.type === 'lower' ? k < other : rule.type === 'higher' ? k > other : k === other;
    if (ok) return;
    const x = i + 1;
    const y = rule.other_leg_index + 1;
    const message =
      wording === 'add'
        ? tradeMessages.strikeForLeg(x)
        : wording === 'edit'
          ? rule.type === 'lower'
            ? tradeMessages.editStrikeLower(y)
            : rule.type === 'higher'
              ? tradeMessages.editStrikeHigher(y)
              : tradeMessages.editStrikeSame(y)
          : rule.type === 'lower'
            ? tradeMessages.strikeLower(x, y)
            : rule.type === 'higher'
              ? tradeMessages.strikeHigher(x, y)
              : tradeMessages.strikeSame(x, y);
    issues.push({ field: `${field}.${i}`, message });
  });
  if (strikes.length > legs.length) issues.push({ field, message: tradeMessages.strikeForLeg(legs.length + 1) });
  return issues;
}

/** The opening fields of the add-trade and add-closed-trade forms (§5 "Add trade"). */
export function checkOpenFields(input: TradeData, strategy: Strategy | undefined, today: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const push = (field: string, message: string | null) => {
    if (message) issues.push({ field, message });
  };
  if (!input.account_uid) push('account_uid', tradeMessages.accountRequired);
  if (!strategy) push('strategy_uid', tradeMessages.strategyRequired);
  if (!TICKER_PATTERN.test(input.ticker)) push('ticker', tradeMessages.invalidTicker);
  const price = strategy?.uses_cost_basis ? input.cost_basis ?? input.stock_price_at_open : input.stock_price_at_open ?? input.cost_basis;
  // The price (stock price, or cost basis for the strategies that label it so) is required.
  if (price === undefined || price === null || price < 0) push(strategy?.uses_cost_basis ? 'cost_basis' : 'stock_price_at_open', tradeMessages.positiveNumber);
  if (input.leaps_value !== undefined && input.leaps_value !== null && input.leaps_value < 0) push('leaps_value', tradeMessages.positiveNumber);
  if (!(input.net_delta > 0 && input.net_delta <= 1)) push('net_delta', tradeMessages.deltaRange);
  if (input.premium_at_open < 0) push('premium_at_open', tradeMessages.positiveNumber);
  if (input.net_fee_to_open < 0) push('net_fee_to_open', tradeMessages.positiveNumber);
  if (!(input.contract_size >= 1)) push('contract_size', tradeMessages.contractSizeMin);
  push('trade_open_date', checkOpenDate(input.trade_open_date, today));
  const exp = checkExpirationDate(input.expiration_date, today);
  push('expiration_date', exp);
  if (!exp && parseIsoDate(input.trade_open_date) && input.expiration_date < input.trade_open_date) push('expiration_date', tradeMessages.expirationBeforeOpen);
  if (strategy) issues.push(...checkStrikes(strategy, input.strike_prices, 'add'));
  if ((input.notes ?? '').length > NOTES_MAX) push('notes', tradeMessages.notesMax);
  return issues;
}

export type CloseForm = 'close' | 'addClosed' | 'roll' | 'split';

/**
 * A close date: required, a real date, not in the future (New York), not before the open date, not
 * after expiration, not on a weekend. The wording depends on the form (§5 close, add closed, roll, split).
 */
export function checkCloseDate(value: string | undefined, openDate: string, expirationDate: string, today: string, form: CloseForm): string | null {
  if (!value) return tradeMessages.closeDateRequired;
  if (!parseIsoDate(value)) return tradeMessages.closeDateInvalid;
  if (value > today) return form === 'close' ? tradeMessages.closeDateFuture : tradeMessages.closeDateFutureLower;
  if (value < openDate) return tradeMessages.closeDateBeforeOpen;
  if (value > expirationDate) return form === 'roll' ? tradeMessages.closeDateAfterExpirationRoll : tradeMessages.closeDateAfterExpiration;
  if (isWeekend(value)) return tradeMessages.weekend;
  return null;
}

/** Whether a trade has expired on `today` (New York): its expiration date is past. */
export const hasExpired = (expirationDate: string, today: string): boolean => expirationDate < today;

/** The last day a trade can be closed on `today`: today, or its expiration date once that is past (§5 close date rules). */
export const latestCloseDate = (expirationDate: string, today: string): string => (hasExpired(expirationDate, today) ? expirationDate : today);

/** The day after expiration is the first day Expire Worthless is offered. */
export const firstExpiredDay = (expirationDate: string): string => addDays(expirationDate, 1);

/** Split step 1: the legs' premiums combine, by buy/sell, to the trade's signed net premium within 0.01. */
export function checkSplitPremiums(strategy: Strategy, openTransaction: 1 | 2, netPremium: number, legPremiums: readonly [number, number]): FieldIssue[] {
  const issues: FieldIssue[] = [];
  legPremiums.forEach((p, i) => {
    if (!(isNum(p) && p > 0)) issues.push({ field: `leg_premium.${i}`, message: tradeMessages.positiveNonZero });
  });
  if (issues.length) return issues;
  const signed = strategy.legs_setup.config.reduce((sum, leg, i) => sum + (leg.action === 'sell' ? 1 : -1) * (legPremiums[i] ?? 0), 0);
  const net = (openTransaction === 1 ? 1 : -1) * netPremium;
  if (Math.abs(signed - net) > SPLIT_TOLERANCE + 1e-9) issues.push({ field: 'premium_at_open', message: tradeMessages.premiumsMustSum(netPremium, openTransaction === 1) });
  return issues;
}
