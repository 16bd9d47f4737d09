import { describe, expect, it } from 'vitest';
import { strategyByUid } from '@oj/contracts/strategies';
import { dateRangeIssues } from '@oj/contracts/trade-views';
import { expiryDisplay, holdingPeriod } from './expiry.ts';
import { closeProfitLoss, rollSameTransaction, defaultCloseDate, defaultTradeDate, notesTone, validateAddTrade, validateEdit, validateSplitPremiums, validateClose, validateRoll, type AddTradeValues } from './trade-rules.ts';

const today = '2026-11-20'; // a Friday
const bullPut = strategyByUid('bull-put-spread');

const addValues = (over: Partial<AddTradeValues> = {}): AddTradeValues => ({
  account: 'acc',
  strategyType: 'Two-leg',
  strategyUid: 'bull-put-spread',
  ticker: 'SPY',
  price: '590',
  openDate: '2026-11-20',
  expirationDate: '2026-12-18',
  strikes: ['580', '570'],
  delta: '0.3',
  contractSize: '1',
  netPremium: '150',
  netFee: '1.3',
  notes: '',
  ...over,
});

describe('add trade rules (part 1 §5)', () => {
  it('accepts a valid trade', () => {
    expect(validateAddTrade(addValues(), bullPut, today)).toEqual({});
  });
  it('gives the spec messages', () => {
    const e = validateAddTrade(
      addValues({ account: '', ticker: 'TOOLONG1', delta: '1.5', contractSize: '0', netPremium: '-1', strikes: ['570', '580'], expirationDate: '2026-11-19', openDate: '2026-11-21' }),
      bullPut,
      today,
    );
    expect(e).toMatchObject({
      account: 'Account is required and cannot be null.',
      ticker: 'Invalid Ticker',
      delta: 'Must be between 0 and 1.',
      contractSize: 'Must be 1 or higher.',
      netPremium: 'Must be a positive number.',
      strike1: 'Invalid strike price for leg 2.',
      openDate: 'Future dates are not allowed.',
    });
    expect(validateAddTrade(addValues({ expirationDate: '2026-11-19' }), bullPut, today).expirationDate).toBe('Expiration date must be on or after open date.');
    expect(validateAddTrade(addValues({ openDate: '2024-11-19' }), bullPut, today).openDate).toBe('Open date cannot be older than 2 years.');
    expect(validateAddTrade(addValues({ openDate: '' }), bullPut, today).openDate).toBe('Open date cannot be empty');
  });
  it('colours the notes counter green, amber, red', () => {
    expect(notesTone(10)).toBe('success');
    expect(notesTone(80)).toBe('warning');
    expect(notesTone(100)).toBe('danger');
  });
});

describe('edit rules', () => {
  const edit = { account: 'acc', ticker: 'SPY', price: '590', openDate: '2026-11-20', expirationDate: '2026-12-18', strikes: ['580', '570'], delta: '0.3', contractSize: '1', premium: '150', fee: '1.3', notes: '' };
  it('says an expiration before the open date even while the open date is refused for another reason (QA: hidden until the weekend was fixed)', () => {
    expect(validateEdit(edit, bullPut, today)).toEqual({});
    // Saturday 14 November opens, Friday 13 November expires.
    expect(validateEdit({ ...edit, openDate: '2026-11-14', expirationDate: '2026-11-13' }, bullPut, today)).toMatchObject({
      openDate: 'Weekend dates are not allowed.',
      expirationDate: 'Must be same as or after Open Date',
    });
    expect(validateEdit({ ...edit, openDate: '2026-11-19', expirationDate: '2026-11-18' }, bullPut, today)).toMatchObject({
      openDate: 'Must be before or same as Expiration Date',
      expirationDate: 'Must be same as or after Open Date',
    });
  });
});

describe('edit of a position opened more than two years ago', () => {
  const old = { account: 'acc', ticker: 'SPY', price: '590', openDate: '2024-11-01', expirationDate: '2026-12-18', strikes: ['580', '570'], delta: '0.3', contractSize: '1', premium: '150', fee: '1.3', notes: 'hello' };
  it('stays editable: the open date rules apply to a changed open date, as on the server (QA)', () => {
    expect(validateEdit(old, bullPut, today, '2024-11-01')).toEqual({});
    // Changed to another date older than two years, it is refused with the spec's message.
    expect(validateEdit({ ...old, openDate: '2024-10-31' }, bullPut, today, '2024-11-01')).toMatchObject({ openDate: 'Open date cannot be older than 2 years.' });
  });
});

describe('close and roll rules', () => {
  it("warns of a roll's same transaction types on the side that has them: the close like the opening, the new opening like the close", () => {
    const CREDIT = 1;
    const DEBIT = 2;
    // A short put (credit): debit to close and credit to reopen is the usual roll, no warning.
    expect(rollSameTransaction(CREDIT, String(DEBIT), String(CREDIT))).toEqual({ close: false, open: false });
    // Debit to close, debit to reopen (QA: no warning): the new side warns.
    expect(rollSameTransaction(CREDIT, String(DEBIT), String(DEBIT))).toEqual({ close: false, open: true });
    // Credit to close a credit trade: the close side warns; credit again to reopen: the new side too.
    expect(rollSameTransaction(CREDIT, String(CREDIT), String(DEBIT))).toEqual({ close: true, open: false });
    expect(rollSameTransaction(CREDIT, String(CREDIT), String(CREDIT))).toEqual({ close: true, open: true });
    // A long strangle (debit): credit to close, debit to reopen, no warning.
    expect(rollSameTransaction(DEBIT, String(CREDIT), String(DEBIT))).toEqual({ close: false, open: false });
    // Nothing chosen yet: no warning.
    expect(rollSameTransaction(CREDIT, '', String(DEBIT))).toEqual({ close: false, open: false });
    expect(rollSameTransaction(DEBIT, '', String(DEBIT))).toEqual({ close: false, open: false });
  });

  it('starts a trade form on today, the Friday before on a weekend', () => {
    expect(defaultTradeDate('2026-12-04')).toBe('2026-12-04');
    expect(defaultTradeDate('2026-12-05')).toBe('2026-12-04');
    expect(defaultTradeDate('2026-12-06')).toBe('2026-12-04');
    expect(defaultTradeDate('2026-12-07')).toBe('2026-12-07');
  });

  it('defaults the close date to today, the Friday before on a weekend, never after the expiration', () => {
    // Friday 4, Saturday 5 and Sunday 6 December 2026.
    expect(defaultCloseDate('2026-12-18', '2026-12-04')).toBe('2026-12-04');
    expect(defaultCloseDate('2026-12-18', '2026-12-05')).toBe('2026-12-04');
    expect(defaultCloseDate('2026-12-18', '2026-12-06')).toBe('2026-12-04');
    expect(defaultCloseDate('2026-12-02', '2026-12-05')).toBe('2026-12-02');
    expect(defaultCloseDate('2026-12-04', '2026-12-06')).toBe('2026-12-04');
  });

  const t = { tod: '2026-11-02', ed: '2026-12-18', cs: 2 };
  it('close: contract size, dates, transaction', () => {
    const e = validateClose({ choice: 'close', contractSize: '3', closeDate: '2026-11-01', transaction: '', premium: 'x', fee: '1' }, t, today);
    expect(e).toEqual({
      contractSize: 'Invalid Contract Size',
      closeDate: 'Close date cannot be before the open date.',
      transaction: 'Transaction type is required.',
      premium: 'Must be a valid positive number.',
    });
    expect(validateClose({ choice: 'close', contractSize: '1', closeDate: '2026-11-21', transaction: '2', premium: '1', fee: '1' }, t, today).closeDate).toBe('Future dates are not permitted.');
  });
  it('roll: size cap, per-leg strike messages', () => {
    const e = validateRoll(
      {
        closeDate: '2026-11-20',
        transaction: '2',
        premiumToClose: '40',
        fee: '1',
        newExpirationDate: '2026-11-19',
        newContractSize: '3',
        newPrice: '590',
        newStrikes: ['570', '575'],
        newDelta: '0.2',
        newTransaction: '',
        newPremium: '100',
        newFee: '-1',
        notes: '',
      },
      t,
      bullPut,
      today,
    );
    expect(e).toEqual({
      newExpirationDate: 'New Expiration date must be on or after close Date.',
      newContractSize: 'Cannot exceed contract size [ 2 ].',
      strike1: 'Strike price for leg 2 must be lower than leg 1.',
      newTransaction: 'Please select a transaction type.',
      newFee: 'Must be a non-negative number.',
    });
  });
  it('profit/loss: open premium scaled to the contracts closed, close premium by its sign', () => {
    expect(closeProfitLoss(1, 200, 2, 1, 2, 30)).toBe(70);
    expect(closeProfitLoss(2, 300, 1, 1, 1, 500)).toBe(200);
  });
  it('split premiums must combine to the net premium', () => {
    if (!bullPut) throw new Error('catalogue');
    expect(validateSplitPremiums(bullPut, ['250', '100'], 150, 1)).toEqual({});
    expect(validateSplitPremiums(bullPut, ['250', '50'], 150, 1)).toEqual({ sum: 'Premiums must sum to net premium ($150.00 Credit).' });
    expect(validateSplitPremiums(bullPut, ['0', '50'], 150, 1)).toEqual({ leg0: 'Must be a positive non-zero number.' });
  });
});

describe('expiry display and the date filter', () => {
  it('texts and tones', () => {
    expect(expiryDisplay(-1)).toEqual({ text: 'Expired', tone: 'danger' });
    expect(expiryDisplay(0)).toEqual({ text: 'Today', tone: 'warning' });
    expect(expiryDisplay(1)).toEqual({ text: '1 Day', tone: 'warning' });
    expect(expiryDisplay(7)).toEqual({ text: '7 Days', tone: 'warning' });
    expect(expiryDisplay(8)).toEqual({ text: '8 Days', tone: 'success' });
    expect(holdingPeriod(0)).toBe('Scalp');
    expect(holdingPeriod(3)).toBe('3 Days');
  });
  it('custom range messages', () => {
    expect(dateRangeIssues('', '', today)).toEqual({ sd: 'Start Date is required', ed: 'End Date is required' });
    expect(dateRangeIssues('2026-11-21', '2026-11-22', today)).toEqual({ sd: 'Start Date cannot be in the future', ed: 'End Date cannot be in the future' });
    expect(dateRangeIssues('2026-11-10', '2026-11-01', today)).toEqual({ ed: 'End Date must be on or after Start Date' });
    expect(dateRangeIssues('2025-01-01', '2026-11-01', today)).toEqual({ ed: 'Date range cannot exceed one year' });
    expect(dateRangeIssues('2026-01-01', '2026-11-01', today)).toEqual({});
  });
});
