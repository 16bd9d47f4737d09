import {
  statusByCloseAction,
  type CloseAction,
  type CloseTerms,
  type EditableTerms,
  type JournalEvent,
  type OpenTerms,
} from '@oj/contracts/journal-events';
import { BREAKABLE_STRATEGY_TYPE, strategyByName, strategyByUid, type Strategy } from '@oj/contracts/strategies';
import {
  NOTES_MAX,
  TICKER_PATTERN,
  checkCloseDate,
  checkExpirationDate,
  checkOpenDate,
  checkOpenFields,
  checkSplitPremiums,
  checkStrikes,
  hasExpired,
  structureLock,
  tradeMessages as m,
  tradeShortId,
  type AddClosedTradeRequest,
  type ClosingData,
  type FieldIssue,
  type RollTradeRequest,
  type SplitTradeRequest,
  type TradeData,
  type TradeExpectations,
  type UpdateTradeRequest,
} from '@oj/contracts/trades';
import { parseIsoDate } from '@oj/contracts/business-date';
import type { TradeRecord } from '@oj/contracts/trade-record';
import { AppError, invalid } from '../../app/errors.ts';
import type { Lineage } from './lineage.ts';

/**
 * The trade journal's decider: a pure function of the command, the lineage's state and the context
 * (New York business date; ids come in with the command). It returns the events to append or throws
 * an AppError carrying the spec's message (422 bad values, 404 unknown trade, 409 state conflicts).
 */

export type JournalCommand =
  | { type: 'OpenTrade'; tradeId: string; data: TradeData; tags: string[] }
  | { type: 'AddClosedTrade'; tradeId: string; data: AddClosedTradeRequest['trade_data']; tags: string[] }
  | { type: 'CloseTrade'; tradeId: string; action: CloseAction; data: ClosingData; remainderId: string; expected?: TradeExpectations }
  | { type: 'RollTrade'; tradeId: string; data: RollTradeRequest['trade_roll_data']; tags: string[] | null; newTradeId: string; remainderId: string; expected?: TradeExpectations }
  | { type: 'SplitTrade'; tradeId: string; data: SplitTradeRequest['trade_data']; closedLegId: string; openLegId: string; expected?: TradeExpectations }
  | { type: 'EditTrade'; tradeId: string; changes: UpdateTradeRequest }
  | { type: 'DeleteTrade'; tradeId: string };
export type JournalCommandType = JournalCommand['type'];

export interface DecideContext {
  /** Today in New York (`YYYY-MM-DD`), from the injected clock. */
  today: string;
}

export function decide(command: JournalCommand, state: Lineage, ctx: DecideContext): JournalEvent[] {
  switch (command.type) {
    case 'OpenTrade':
      return decideOpen(command, state, ctx);
    case 'AddClosedTrade':
      return decideAddClosed(command, state, ctx);
    case 'CloseTrade':
      return decideClose(command, state, ctx);
    case 'RollTrade':
      return decideRoll(command, state, ctx);
    case 'SplitTrade':
      return decideSplit(command, state, ctx);
    case 'EditTrade':
      return decideEdit(command, state, ctx);
    case 'DeleteTrade':
      return decideDelete(command, state);
    default: {
      const never: never = command;
      throw new Error(`Unknown journal command ${(never as { type: string }).type}`);
    }
  }
}

// ---- helpers ----

const round2 = (x: number): number => Math.round((x + Number.EPSILON) * 100) / 100;
const fail = (issues: FieldIssue[]): void => {
  if (issues.length) throw invalid(issues);
};
const notFound = () => new AppError('not_found', m.notFound);
const conflict = (message: string) => new AppError('conflict', message);

/** The trade the command addresses, which must be open; `closedMessage` says why a finished one cannot. */
function openTradeOf(state: Lineage, uid: string, closedMessage: string): TradeRecord {
  if (state.status === 'empty') throw notFound();
  const retired = state.retired.get(uid);
  if (retired === 'split') throw conflict(m.wasSplit);
  const trade = state.view.trades.get(uid);
  if (!trade || retired === 'deleted') throw notFound();
  if (trade.status !== 1) {
    // A partial close or roll that came first (a second tab, a double submit) left the contracts still
    // open under another uid: "already closed" would read as the whole position gone (QA).
    const rest = openRemainderOf(state, uid);
    throw conflict(rest ? m.partlyClosed(tradeShortId(rest.uid)) : closedMessage);
  }
  return trade;
}

/** The open trade that what stayed open of `uid` became, through any number of partial closes or rolls. */
function openRemainderOf(state: Lineage, uid: string): TradeRecord | undefined {
  if (state.status === 'empty') return undefined;
  for (const t of state.view.trades.values()) {
    if (t.status !== 1) continue;
    // At most one step per trade of the lineage: chains are acyclic, and a bound keeps it so whatever the data.
    let steps = state.view.trades.size;
    for (let up = t.partialOf; up !== null && steps-- > 0; up = state.view.trades.get(up)?.partialOf ?? null) if (up === uid) return t;
  }
  return undefined;
}

function strategyOf(uid: string): Strategy {
  const s = strategyByUid(uid);
  if (!s) throw invalid([{ field: 'strategy_uid', message: m.strategyRequired }]);
  return s;
}

function openTerms(data: TradeData, strategy: Strategy, tags: string[]): OpenTerms {
  return {
    ticker: data.ticker.toUpperCase(),
    strategyUid: strategy.uid,
    // Account uids are uuids: the ownership check matches one in capitals too (PostgreSQL compares uuids),
    // the read models compare text. Recorded as the account's own (lower-case) uid.
    accountUid: data.account_uid.toLowerCase(),
    strikePrices: [...data.strike_prices],
    openDate: data.trade_open_date,
    expirationDate: data.expiration_date,
    contractSize: data.contract_size,
    premiumAtOpen: data.premium_at_open,
    netFeeToOpen: data.net_fee_to_open,
    // Credit or debit is the strategy's, never the trader's choice (the form shows it read-only).
    openTransaction: strategy.transaction,
    netDelta: data.net_delta,
    stockPriceAtOpen: data.stock_price_at_open ?? null,
    costBasis: data.cost_basis ?? null,
    leapsValue: data.leaps_value ?? null,
    notes: data.notes ?? '',
    tags: [...new Set(tags)],
  };
}

/** Partial closes and rolls split the open premium and fee pro rata; the remainder takes the rounding. */
function allocate(trade: TradeRecord, contractsClosed: number, remainderId: string) {
  if (contractsClosed === trade.contractSize) {
    return { closedPart: { premiumAtOpen: trade.premiumAtOpen, netFeeToOpen: trade.netFeeToOpen }, remainder: null };
  }
  const share = contractsClosed / trade.contractSize;
  const premium = round2(trade.premiumAtOpen * share);
  const fee = round2(trade.netFeeToOpen * share);
  return {
    closedPart: { premiumAtOpen: premium, netFeeToOpen: fee },
    remainder: {
      tradeId: remainderId,
      contractSize: trade.contractSize - contractsClosed,
      premiumAtOpen: round2(trade.premiumAtOpen - premium),
      netFeeToOpen: round2(trade.netFeeToOpen - fee),
    },
  };
}

const actionByStatus: Record<number, CloseAction> = { 2: 'close', 4: 'assigned', 5: 'calledAway', 6: 'expireWorthless', 7: 'exercised' };

/**
 * The close terms of §4 "Close options": a normal close takes the trader's date, transaction, premium
 * and fee; Expire Worthless only once expired, fixed neutral/0/0 on the expiration date; the
 * strategy's in-the-money outcome only, fixed neutral/0/0 with an editable date.
 */
function closeTermsOf(
  trade: Pick<TradeRecord, 'openDate' | 'expirationDate' | 'strategyUid'>,
  action: CloseAction,
  data: ClosingData,
  contractsClosed: number,
  today: string,
  form: 'close' | 'addClosed',
): CloseTerms {
  const issues: FieldIssue[] = [];
  if (form === 'addClosed' && action !== 'close') {
    // §5 "Add closed trade form": other than a normal close, premium and fee are zero or positive (the
    // form fixes them at 0). A negative value is refused, never silently recorded as 0.
    if (data.premium_at_close !== undefined && data.premium_at_close < 0) issues.push({ field: 'premium_at_close', message: m.positiveOrZero });
    if (data.net_fee_to_close !== undefined && data.net_fee_to_close < 0) issues.push({ field: 'net_fee_to_close', message: m.positiveOrZero });
    fail(issues);
  }
  if (action === 'expireWorthless') {
    if (!hasExpired(trade.expirationDate, today)) throw form === 'close' ? conflict(m.notExpired) : invalid([{ field: 'status', message: m.notExpired }]);
    return { closeAction: action, closeDate: trade.expirationDate, contractsClosed, premiumAtClose: 0, netFeeToClose: 0, closeTransaction: 3 };
  }
  if (action !== 'close') {
    const outcome = strategyOf(trade.strategyUid).extra_outcome;
    if (outcome !== action) throw invalid([{ field: 'status', message: m.wrongOutcome(outcome) }]);
  }
  const dateIssue = checkCloseDate(data.trade_close_date, trade.openDate, trade.expirationDate, today, form);
  if (dateIssue) issues.push({ field: 'trade_close_date', message: dateIssue });
  if (action !== 'close') {
    fail(issues);
    return { closeAction: action, closeDate: data.trade_close_date!, contractsClosed, premiumAtClose: 0, netFeeToClose: 0, closeTransaction: 3 };
  }
  const ct = data.close_transaction;
  if (ct !== 1 && ct !== 2) issues.push({ field: 'close_transaction', message: form === 'close' ? m.transactionRequired : m.creditOrDebit });
  const premium = data.premium_at_close;
  const fee = data.net_fee_to_close;
  if (form === 'close') {
    if (premium === undefined || premium < 0) issues.push({ field: 'premium_at_close', message: m.validPositive });
    if (fee === undefined || fee < 0) issues.push({ field: 'net_fee_to_close', message: m.validPositive });
  } else {
    if (premium === undefined || premium <= 0) issues.push({ field: 'premium_at_close', message: m.greaterThanZero });
    if (fee === undefined || fee <= 0) issues.push({ field: 'net_fee_to_close', message: m.greaterThanZero });
  }
  fail(issues);
  return {
    closeAction: action,
    closeDate: data.trade_close_date!,
    contractsClosed,
    premiumAtClose: premium!,
    netFeeToClose: fee!,
    closeTransaction: ct as 1 | 2,
  };
}

// ---- commands ----

function decideOpen(c: Extract<JournalCommand, { type: 'OpenTrade' }>, state: Lineage, ctx: DecideContext): JournalEvent[] {
  if (state.status !== 'empty') throw conflict(m.changedConcurrently);
  const strategy = strategyByUid(c.data.strategy_uid);
  fail(checkOpenFields(c.data, strategy, ctx.today));
  return [{ type: 'TradeOpened', data: { tradeId: c.tradeId, lineageId: c.tradeId, terms: openTerms(c.data, strategy!, c.tags) } }];
}

function decideAddClosed(c: Extract<JournalCommand, { type: 'AddClosedTrade' }>, state: Lineage, ctx: DecideContext): JournalEvent[] {
  if (state.status !== 'empty') throw conflict(m.changedConcurrently);
  const strategy = strategyByUid(c.data.strategy_uid);
  fail(checkOpenFields(c.data, strategy, ctx.today));
  const action = actionByStatus[c.data.status];
  if (!action) throw invalid([{ field: 'status', message: m.closingStatus }]);
  const terms = openTerms(c.data, strategy!, c.tags);
  const close = closeTermsOf(terms, action, c.data, terms.contractSize, ctx.today, 'addClosed');
  return [
    { type: 'TradeOpened', data: { tradeId: c.tradeId, lineageId: c.tradeId, terms } },
    { type: 'TradeClosed', data: { tradeId: c.tradeId, close, closedPart: { premiumAtOpen: terms.premiumAtOpen, netFeeToOpen: terms.netFeeToOpen }, remainder: null } },
  ];
}

/**
 * How many contracts a close closes: between 1 and the trade's size for a normal close; the full size
 * for every other action (§4 "Close options": the size is fixed unless the action is a normal close).
 * Omitted, it is the full size.
 */
function contractsToClose(trade: TradeRecord, requested: number | undefined, action: CloseAction): number {
  const n = requested ?? trade.contractSize;
  const ok = action === 'close' ? Number.isInteger(n) && n >= 1 && n <= trade.contractSize : n === trade.contractSize;
  if (!ok) throw invalid([{ field: 'contract_size', message: m.invalidContractSize }]);
  return n;
}

function decideClose(c: Extract<JournalCommand, { type: 'CloseTrade' }>, state: Lineage, ctx: DecideContext): JournalEvent[] {
  const trade = openTradeOf(state, c.tradeId, m.alreadyClosed);
  refuseIfChangedSince(c.expected, trade, (fields) => m.changedBeforeAction(fields, 'closed'));
  const n = contractsToClose(trade, c.data.contract_size, c.action);
  const close = closeTermsOf(trade, c.action, c.data, n, ctx.today, 'close');
  return [{ type: 'TradeClosed', data: { tradeId: trade.uid, close, ...allocate(trade, n, c.remainderId) } }];
}

function decideRoll(c: Extract<JournalCommand, { type: 'RollTrade' }>, state: Lineage, ctx: DecideContext): JournalEvent[] {
  const trade = openTradeOf(state, c.tradeId, m.alreadyClosed);
  refuseIfChangedSince(c.expected, trade, (fields) => m.changedBeforeAction(fields, 'rolled'));
  const strategy = strategyOf(trade.strategyUid);
  const { old_trade: old, new_trade: next } = c.data;
  const issues: FieldIssue[] = [];
  const push = (field: string, message: string) => issues.push({ field, message });
  // Close side.
  const closeDate = old.trade_close_date;
  const dateIssue = checkCloseDate(closeDate, trade.openDate, trade.expirationDate, ctx.today, 'roll');
  if (dateIssue) push('old_trade.trade_close_date', dateIssue);
  if (old.close_transaction !== 1 && old.close_transaction !== 2) push('old_trade.close_transaction', m.selectTransaction);
  if (old.premium_at_close === undefined || old.premium_at_close < 0) push('old_trade.premium_at_close', m.positiveNumber);
  if (old.net_fee_to_close === undefined || old.net_fee_to_close < 0) push('old_trade.net_fee_to_close', m.nonNegative);
  // Open side: same ticker, strategy and account; opens on the close date.
  if (!(next.contract_size >= 1)) push('new_trade.contract_size', m.positiveNumber);
  else if (next.contract_size > trade.contractSize) push('new_trade.contract_size', m.cannotExceedSize(trade.contractSize));
  // A roll closes what it opens; the closed size, when sent, must say the same (never a second number).
  else if (old.contract_size !== undefined && old.contract_size !== next.contract_size) push('old_trade.contract_size', m.rollSizesDiffer(next.contract_size));
  const expIssue = checkExpirationDate(next.expiration_date, ctx.today);
  if (expIssue) push('new_trade.expiration_date', expIssue);
  else if (closeDate && parseIsoDate(closeDate) && next.expiration_date < closeDate) push('new_trade.expiration_date', m.newExpirationBeforeClose);
  const price = strategy.uses_cost_basis ? next.cost_basis ?? next.stock_price_at_open : next.stock_price_at_open ?? next.cost_basis;
  if (price === undefined || price === null || price < 0) push(strategy.uses_cost_basis ? 'new_trade.cost_basis' : 'new_trade.stock_price_at_open', m.positiveNumber);
  if (!(next.net_delta > 0 && next.net_delta <= 1)) push('new_trade.net_delta', m.deltaRange);
  if (next.premium_at_open < 0) push('new_trade.premium_at_open', m.positiveNumber);
  if (next.net_fee_to_open < 0) push('new_trade.net_fee_to_open', m.nonNegative);
  const ot = next.open_transaction ?? strategy.transaction;
  if (ot !== 1 && ot !== 2) push('new_trade.open_transaction', m.selectTransaction);
  issues.push(...checkStrikes(strategy, next.strike_prices, 'roll', 'new_trade.strike_prices'));
  if ((next.notes ?? '').length > NOTES_MAX) push('new_trade.notes', m.notesMax);
  fail(issues);
  const n = next.contract_size;
  const close: CloseTerms = {
    closeAction: 'close',
    closeDate: closeDate!,
    contractsClosed: n,
    premiumAtClose: old.premium_at_close!,
    netFeeToClose: old.net_fee_to_close!,
    closeTransaction: old.close_transaction as 1 | 2,
  };
  const terms: OpenTerms = {
    ...openTerms(
      { ...next, ticker: trade.ticker, strategy_uid: strategy.uid, account_uid: trade.accountUid, trade_open_date: closeDate! },
      strategy,
      c.tags ?? trade.tags,
    ),
    openTransaction: ot as 1 | 2,
  };
  return [{ type: 'TradeRolled', data: { tradeId: trade.uid, close, ...allocate(trade, n, c.remainderId), newTrade: { tradeId: c.newTradeId, terms } } }];
}

function decideSplit(c: Extract<JournalCommand, { type: 'SplitTrade' }>, state: Lineage, ctx: DecideContext): JournalEvent[] {
  const trade = openTradeOf(state, c.tradeId, m.alreadyClosed);
  refuseIfChangedSince(c.expected, trade, (fields) => m.changedBeforeAction(fields, 'split'));
  const strategy = strategyOf(trade.strategyUid);
  const legs = strategy.legs_setup.config;
  if (strategy.type !== BREAKABLE_STRATEGY_TYPE || legs.length !== 2) throw invalid([{ field: 'uid', message: m.notBreakable }]);
  const closing = c.data.closing_trade;
  const closedIndex = closedLegOf(trade, legs, c.data);
  const openIndex = 1 - closedIndex;
  const premiums: [number, number] = closedIndex === 0 ? [closing.premium_at_open, c.data.opening_trade.premium_at_open] : [c.data.opening_trade.premium_at_open, closing.premium_at_open];
  fail(checkSplitPremiums(strategy, trade.openTransaction, trade.premiumAtOpen, premiums));
  const action = actionByStatus[closing.status];
  if (action !== 'close' && action !== strategy.extra_outcome) throw invalid([{ field: 'status', message: m.wrongOutcome(strategy.extra_outcome) }]);
  const issues: FieldIssue[] = [];
  const dateIssue = checkCloseDate(closing.trade_close_date, trade.openDate, trade.expirationDate, ctx.today, 'split');
  if (dateIssue) issues.push({ field: 'closing_trade.trade_close_date', message: dateIssue });
  if (action === 'close') {
    if (closing.close_transaction !== 1 && closing.close_transaction !== 2) issues.push({ field: 'closing_trade.close_transaction', message: m.selectTransaction });
    if (closing.premium_at_close === undefined || closing.premium_at_close <= 0) issues.push({ field: 'closing_trade.premium_at_close', message: m.positiveNumber });
    if (closing.net_fee_to_close === undefined || closing.net_fee_to_close < 0) issues.push({ field: 'closing_trade.net_fee_to_close', message: m.nonNegative });
  }
  fail(issues);
  const itm = action !== 'close';
  const close: CloseTerms = {
    closeAction: action,
    closeDate: closing.trade_close_date!,
    contractsClosed: trade.contractSize,
    premiumAtClose: itm ? 0 : closing.premium_at_close!,
    netFeeToClose: itm ? 0 : closing.net_fee_to_close!,
    closeTransaction: itm ? 3 : (closing.close_transaction as 1 | 2),
  };
  // Each leg gets half the open fee (§9); the second takes the odd cent so the halves add up.
  const firstFee = round2(trade.netFeeToOpen / 2);
  const fees = [firstFee, round2(trade.netFeeToOpen - firstFee)];
  const leg = (index: number, tradeId: string) => {
    const config = legs[index]!;
    const footing = strategyByName(config.footing);
    return {
      tradeId,
      legIndex: index,
      strategyUid: footing?.uid ?? strategy.uid,
      strikePrice: trade.strikePrices[index]!,
      premiumAtOpen: premiums[index]!,
      netFeeToOpen: fees[index]!,
      openTransaction: config.action === 'sell' ? (1 as const) : (2 as const),
    };
  };
  return [{ type: 'TradeSplit', data: { tradeId: trade.uid, closedLeg: { ...leg(closedIndex, c.closedLegId), close }, openLeg: leg(openIndex, c.openLegId) } }];
}

/**
 * Which leg a split closes: `leg_index` when given (as always). Without it, the legs left once the
 * request's hints are applied: the closing leg's strike (`strike_prices`) and single-leg strategy
 * (`strategy_uid`), and the same of the opening leg, which must be the other leg. Exactly one must
 * remain; none or both is a 422 saying so.
 */
function closedLegOf(trade: TradeRecord, legs: Strategy['legs_setup']['config'], data: SplitTradeRequest['trade_data']): 0 | 1 {
  const { closing_trade: closing, opening_trade: opening } = data;
  if (closing.leg_index !== undefined) return closing.leg_index === 0 ? 0 : 1;
  // Each hint the request carries says whether leg `i` can be the closed one.
  const hints: Array<(i: number) => boolean> = [];
  const hintsOf = (side: { strike_prices?: number[] | undefined; strategy_uid?: string | undefined }, legOf: (closed: number) => number) => {
    const strikes = side.strike_prices;
    if (strikes !== undefined && strikes.length > 0) hints.push((i) => strikes.length === 1 && strikes[0] === trade.strikePrices[legOf(i)]);
    const uid = side.strategy_uid;
    if (uid) hints.push((i) => uid === strategyByName(legs[legOf(i)]!.footing)?.uid);
  };
  hintsOf(closing, (i) => i);
  hintsOf(opening, (i) => 1 - i);
  if (hints.length === 0) throw invalid([{ field: 'closing_trade.leg_index', message: m.splitLegUnknown }]);
  const candidates = ([0, 1] as const).filter((i) => hints.every((hint) => hint(i)));
  if (candidates.length === 0) throw invalid([{ field: 'closing_trade.strike_prices', message: m.splitLegNoMatch }]);
  if (candidates.length > 1) throw invalid([{ field: 'closing_trade.leg_index', message: m.splitLegAmbiguous }]);
  return candidates[0]!;
}

function decideEdit(c: Extract<JournalCommand, { type: 'EditTrade' }>, state: Lineage, ctx: DecideContext): JournalEvent[] {
  const trade = openTradeOf(state, c.tradeId, m.closedIsFinalEdit);
  const strategy = strategyOf(trade.strategyUid);
  const x = c.changes;
  const sameTags = x.tags === undefined || (Array.isArray(x.tags) && JSON.stringify(x.tags.map((t) => (typeof t === 'string' ? t : (t as { name?: unknown })?.name))) === JSON.stringify(trade.tags));
  if ((x.strategy_uid !== undefined && x.strategy_uid !== trade.strategyUid) || (x.open_transaction !== undefined && x.open_transaction !== trade.openTransaction) || !sameTags) {
    throw invalid([{ field: x.strategy_uid !== undefined && x.strategy_uid !== trade.strategyUid ? 'strategy_uid' : x.open_transaction !== undefined && x.open_transaction !== trade.openTransaction ? 'open_transaction' : 'tags', message: m.neverEditable }]);
  }
  // The values the form showed: a trade that no longer holds one was changed elsewhere since (another tab
  // or window), and this edit, made on what it showed, would overwrite that change unseen.
  refuseIfChangedSince(x.expected, trade, m.changedSinceOpened);
  // Only the fields that differ from the trade are recorded.
  const changes: EditableTerms = {};
  const set = <K extends keyof EditableTerms>(key: K, value: EditableTerms[K] | undefined, current: EditableTerms[K]) => {
    if (value !== undefined && JSON.stringify(value) !== JSON.stringify(current)) changes[key] = value;
  };
  set('ticker', x.ticker?.toUpperCase(), trade.ticker);
  set('accountUid', x.account_uid?.toLowerCase(), trade.accountUid);
  set('strikePrices', x.strike_prices, trade.strikePrices);
  set('openDate', x.trade_open_date, trade.openDate);
  set('expirationDate', x.expiration_date, trade.expirationDate);
  set('contractSize', x.contract_size, trade.contractSize);
  set('premiumAtOpen', x.premium_at_open, trade.premiumAtOpen);
  set('netFeeToOpen', x.net_fee_to_open, trade.netFeeToOpen);
  set('netDelta', x.net_delta, trade.netDelta);
  set('stockPriceAtOpen', x.stock_price_at_open, trade.stockPriceAtOpen);
  set('costBasis', x.cost_basis, trade.costBasis);
  // `null` clears the notes.
  set('notes', x.notes === null ? '' : x.notes, trade.notes);
  if (Object.keys(changes).length === 0) return [];
  const lock = structureLock({ auid: trade.ancestorUid, rf: trade.rolledFrom, pf: trade.partialOf });
  if (lock !== null) {
    const locked = (['accountUid', 'ticker', 'openDate', 'contractSize'] as const).find((k) => k in changes);
    const message = lock === 'partial' ? m.lockedByPartialClose : m.lockedByAncestry;
    if (locked) throw invalid([{ field: { accountUid: 'account_uid', ticker: 'ticker', openDate: 'trade_open_date', contractSize: 'contract_size' }[locked], message }]);
  }
  const issues: FieldIssue[] = [];
  const push = (field: string, message: string | null) => {
    if (message) issues.push({ field, message });
  };
  const merged = { ...trade, ...changes };
  if (changes.accountUid !== undefined && !changes.accountUid) push('account_uid', m.accountRequired);
  // The ticker as sent: upper-casing turns some letters outside A-Z into ones inside ("ß" into "SS").
  if (changes.ticker !== undefined && !TICKER_PATTERN.test(x.ticker ?? '')) push('ticker', m.invalidTicker);
  for (const [key, field] of [['stockPriceAtOpen', 'stock_price_at_open'], ['costBasis', 'cost_basis']] as const) {
    const v = changes[key];
    if (v !== undefined && v !== null && v < 0) push(field, m.positiveNumberEdit);
  }
  // The price stays required: the strategy's price field cannot be emptied.
  const priceKey = strategy.uses_cost_basis ? 'costBasis' : 'stockPriceAtOpen';
  if (changes[priceKey] === null && merged.stockPriceAtOpen === null && merged.costBasis === null) push(strategy.uses_cost_basis ? 'cost_basis' : 'stock_price_at_open', m.positiveNumberEdit);
  if ('openDate' in changes) {
    const openIssue = checkOpenDate(merged.openDate, ctx.today, 'edit');
    push('trade_open_date', openIssue);
    if (!openIssue && parseIsoDate(merged.expirationDate) && merged.openDate > merged.expirationDate) push('trade_open_date', m.openDateAfterExpirationEdit);
  }
  if ('expirationDate' in changes) {
    const expIssue = checkExpirationDate(merged.expirationDate, ctx.today);
    push('expiration_date', expIssue);
    if (!expIssue && merged.expirationDate < merged.openDate) push('expiration_date', m.expirationBeforeOpenEdit);
  }
  if (changes.strikePrices) issues.push(...checkStrikes(strategy, changes.strikePrices, 'edit'));
  // Delta stays in (0, 1] (§9), as on the add and roll forms.
  if (changes.netDelta !== undefined) push('net_delta', !Number.isFinite(changes.netDelta) ? m.mustBeNumber : changes.netDelta > 0 && changes.netDelta <= 1 ? null : m.deltaRange);
  if (changes.contractSize !== undefined && !(changes.contractSize >= 1)) push('contract_size', m.contractSizeMinEdit);
  if (changes.premiumAtOpen !== undefined && changes.premiumAtOpen < 0) push('premium_at_open', m.positiveNumberEdit);
  if (changes.netFeeToOpen !== undefined && changes.netFeeToOpen < 0) push('net_fee_to_open', m.positiveNumberEdit);
  if (changes.notes !== undefined && changes.notes.length > NOTES_MAX) push('notes', m.notesMax);
  fail(issues);
  return [{ type: 'TradeEdited', data: { tradeId: trade.uid, changes } }];
}

/** An edit's expected field (its API name) -> the trade's term, and the field's name on the form. */
const EXPECTED_TERMS = {
  ticker: ['ticker', 'Ticker'],
  account_uid: ['accountUid', 'Account'],
  strike_prices: ['strikePrices', 'Strikes'],
  trade_open_date: ['openDate', 'Open Date'],
  expiration_date: ['expirationDate', 'Expiration Date'],
  contract_size: ['contractSize', 'Contracts'],
  premium_at_open: ['premiumAtOpen', 'Premium'],
  net_fee_to_open: ['netFeeToOpen', 'Fee'],
  net_delta: ['netDelta', 'Delta'],
  stock_price_at_open: ['stockPriceAtOpen', 'Stock Price'],
  cost_basis: ['costBasis', 'Cost Basis'],
  notes: ['notes', 'Notes'],
} as const satisfies Record<keyof TradeExpectations, readonly [keyof EditableTerms, string]>;

/** The form's names of the expected fields the trade no longer holds (compared as the edit records them). */
function staleExpectations(expected: TradeExpectations | undefined, trade: EditableTerms): string[] {
  if (!expected) return [];
  const norm = (key: keyof TradeExpectations, v: unknown) =>
    key === 'ticker' && typeof v === 'string' ? v.toUpperCase() : key === 'account_uid' && typeof v === 'string' ? v.toLowerCase() : key === 'notes' && v === null ? '' : v;
  return (Object.keys(EXPECTED_TERMS) as (keyof TradeExpectations)[])
    .filter((key) => expected[key] !== undefined && JSON.stringify(norm(key, expected[key])) !== JSON.stringify(norm(key, trade[EXPECTED_TERMS[key][0]])))
    .map((key) => EXPECTED_TERMS[key][1]);
}

/**
 * A command made on the trade as its form showed it: refused (409, `message` naming the fields) when the
 * trade no longer holds those terms, changed elsewhere since (another tab or device). An edit would
 * overwrite that change unseen; a close, roll or split would record what the trader did not confirm (a
 * profit or loss, the legs and strikes of a split), and a closed trade is final.
 */
function refuseIfChangedSince(expected: TradeExpectations | undefined, trade: EditableTerms, message: (fields: string) => string): void {
  const stale = staleExpectations(expected, trade);
  if (stale.length) throw conflict(message(stale.join(', ')));
}

function decideDelete(c: Extract<JournalCommand, { type: 'DeleteTrade' }>, state: Lineage): JournalEvent[] {
  const trade = openTradeOf(state, c.tradeId, m.closedIsFinalDelete);
  return [{ type: 'TradeDeleted', data: { tradeId: trade.uid } }];
}

/** Trade uids an event creates (the write side indexes them before the append). */
export function createdTradeIds(event: JournalEvent): string[] {
  switch (event.type) {
    case 'TradeOpened':
      return [event.data.tradeId];
    case 'TradeClosed':
      return event.data.remainder ? [event.data.remainder.tradeId] : [];
    case 'TradeRolled':
      return [event.data.newTrade.tradeId, ...(event.data.remainder ? [event.data.remainder.tradeId] : [])];
    case 'TradeSplit':
      return [event.data.closedLeg.tradeId, event.data.openLeg.tradeId];
    case 'TradeEdited':
    case 'TradeDeleted':
      return [];
    default: {
      const never: never = event;
      throw new Error(`Unknown journal event ${(never as { type: string }).type}`);
    }
  }
}

export { statusByCloseAction };
