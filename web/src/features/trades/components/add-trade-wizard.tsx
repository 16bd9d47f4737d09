import { useCallback, useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { statusByCloseAction } from '@oj/contracts/journal-events';
import { strategyCatalogue, strategyGroup, type Strategy } from '@oj/contracts/strategies';
import { Alert } from '@/components/ui/alert.tsx';
import { EmptyState } from '@/components/ui/empty-state.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Stepper } from '@/components/ui/stepper.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { formatDate, formatMoney } from '@/lib/format.ts';
import { useBusinessToday } from '@/lib/business-day.ts';
import { restoreShape } from '@/lib/session-drafts.ts';
import { useKeptInput } from '@/features/auth/hooks/use-kept-input.ts';
import { useAddClosedTrade } from '../api/add-closed-trade.ts';
import type { TradeData } from '@oj/contracts/trades';
import { useAddTrade } from '../api/add-trade.ts';
import { useStrategies } from '../api/get-strategies.ts';
import { useTradeAccounts } from '../api/get-trade-accounts.ts';
import {
  PREMIUM_HINT_BELOW,
  closeChoiceLabel,
  closeChoices,
  defaultCloseDate,
  defaultTradeDate,
  parseNum,
  premiumHint,
  sameKind,
  sameTransactionWarning,
  validateAddTrade,
  validateClosedTradeClose,
  type AddTradeValues,
  type CloseChoice,
  type CloseValues,
} from '../utils/trade-rules.ts';
import { formatStrikes, transactionLabel } from '../utils/trade-labels.ts';
import { InputField, NotesField, NumberField, ReadOnlyField, SelectField, Summary, transactionOptions, focusFirstInvalid, useTradeForm } from './form-controls.tsx';
import { useOneSubmission } from '@/lib/use-one-submission.ts';
import { WizardForm } from './wizard-form.tsx';
import './trade-dialogs.css';

export interface AddTradeWizardProps {
  mode: 'open' | 'closed';
  initialDate?: string | undefined;
}

const emptyValues = (openDate: string, account: string): AddTradeValues => ({
  account,
  strategyType: '',
  strategyUid: '',
  ticker: '',
  price: '',
  openDate,
  expirationDate: '',
  strikes: [],
  delta: '',
  contractSize: '1',
  netPremium: '',
  netFee: '',
  notes: '',
});

const emptyClose = (): CloseValues => ({ choice: 'close', contractSize: '', closeDate: '', transaction: '', premium: '', fee: '' });

/**
 * Add Open Trade (form, then summary) and Add Closed Trade (open details, then summary with the close
 * options): part 1 §2, §4 "Add-trade dialog", §5 "Add trade" and "Add closed trade form".
 */
export function AddTradeWizard({ mode, initialDate }: AddTradeWizardProps) {
  const today = useBusinessToday();
  const accounts = useTradeAccounts();
  const strategies = useStrategies().data ?? strategyCatalogue;
  const defaultAccount = accounts.data?.find((a) => a.default_account)?.uid ?? accounts.data?.[0]?.uid ?? '';
  const initial = useCallback(() => emptyValues(initialDate ?? defaultTradeDate(today), defaultAccount), [initialDate, today, defaultAccount]);
  const form = useTradeForm<AddTradeValues>(initial);
  const close = useTradeForm<CloseValues>(emptyClose);
  const [step, setStep] = useState(0);
  const [message, setMessage] = useState<{ tone: 'success' | 'danger' | 'info'; text: string } | null>(null);
  const addOpen = useAddTrade();
  const addClosed = useAddClosedTrade();
  const busy = addOpen.isPending || addClosed.isPending;
  const once = useOneSubmission();
  const firstRef = useRef<HTMLDivElement>(null);

  const { values: v, set } = form;
  useKeptOnSessionEnd(mode, form, close, setMessage);
  // Focus moves into the form when the dialog opens (the chunk may arrive after the dialog took focus).
  useEffect(() => {
    firstRef.current?.querySelector<HTMLElement>('select, input')?.focus();
  }, []);
  // The account list arrives after the dialog may have opened: preselect the default once it does, and
  // only once, so an account the trader clears stays empty and Next says it is required (part 1 §5).
  const { setValues } = form;
  const preselected = useRef(defaultAccount !== '');
  useEffect(() => {
    if (preselected.current || !defaultAccount) return;
    preselected.current = true;
    setValues((x) => (x.account ? x : { ...x, account: defaultAccount }));
  }, [defaultAccount, setValues]);

  const strategy: Strategy | undefined = strategies.find((s) => s.uid === v.strategyUid);
  const errors = validateAddTrade(v, strategy, today);
  const valid = Object.keys(errors).length === 0;
  const premium = parseNum(v.netPremium);
  const expired = v.expirationDate !== '' && v.expirationDate < today;
  const choices = closeChoices(strategy, expired);
  const cs = parseNum(v.contractSize) ?? 0;
  const closeErrors = validateClosedTradeClose(close.values, { tod: v.openDate, ed: v.expirationDate, cs }, today);
  const closeValid = Object.keys(closeErrors).length === 0;

  const chooseStrategy = (uid: string) => {
    const s = strategies.find((x) => x.uid === uid);
    form.setValues((x) => ({ ...x, strategyUid: uid, strikes: s ? Array.from({ length: s.legs_setup.legs_count }, (_, i) => x.strikes[i] ?? '') : [] }));
    form.touch('strategyUid');
  };

  const chooseClose = (choice: CloseChoice) => {
    if (choice === 'close') close.setValues((c) => ({ ...c, choice, transaction: '', premium: '', fee: '' }));
    else
      close.setValues((c) => ({
        ...c,
        choice,
        transaction: '3',
        premium: '0',
        fee: '0',
        closeDate: choice === 'expireWorthless' ? v.expirationDate : c.closeDate || defaultCloseDate(v.expirationDate, today),
      }));
  };

  const resetAll = () => {
    form.reset();
    close.reset();
    setStep(0);
  };

  const next = () => {
    form.setAttempted(true);
    if (!valid) {
      // The form-level message is derived from the fields (showFormError), so it leaves once they are right.
      setMessage(null);
      focusFirstInvalid();
      return;
    }
    setMessage(null);
    if (mode === 'closed' && !close.values.closeDate) close.setValues((c) => ({ ...c, closeDate: defaultCloseDate(v.expirationDate, today) }));
    setStep(1);
  };

  const openData = (): TradeData => ({
    ticker: v.ticker,
    account_uid: v.account,
    strategy_uid: v.strategyUid,
    strike_prices: v.strikes.map((s) => Number(s)),
    trade_open_date: v.openDate,
    expiration_date: v.expirationDate,
    contract_size: Number(v.contractSize),
    premium_at_open: Number(v.netPremium),
    net_fee_to_open: Number(v.netFee),
    open_transaction: strategy?.transaction ?? 1,
    net_delta: Number(v.delta),
    stock_price_at_open: strategy?.uses_cost_basis ? null : Number(v.price),
    cost_basis: strategy?.uses_cost_basis ? Number(v.price) : null,
    notes: v.notes,
  });

  const succeed = (text: string) => {
    setMessage({ tone: 'success', text });
    resetAll();
    window.setTimeout(() => setMessage((m) => (m?.text === text ? null : m)), 2000);
    firstRef.current?.querySelector<HTMLElement>('select, input')?.focus();
  };

  const submit = () => {
    // The summary's attempt: it shows the close fields' errors and the form-level message (showFormError).
    close.setAttempted(true);
    if (!valid) {
      setMessage(null);
      focusFirstInvalid();
      return;
    }
    const fail = (error: unknown) => setMessage({ tone: 'danger', text: errorMessage(error, 'Error uploading trade. Please try again.') });
    if (mode === 'open') {
      once((settled) => {
        setMessage(null);
        addOpen.mutate({ trade_data: openData(), tag_data: [] }, { onSuccess: () => succeed('Trade Uploaded successfully'), onError: fail, onSettled: settled });
      });
      return;
    }
    if (!closeValid) {
      setMessage(null);
      focusFirstInvalid();
      return;
    }
    const c = close.values;
    once((settled) => {
      // A new attempt clears the last one's error: it is not the answer to this one.
      setMessage(null);
      addClosed.mutate(
        {
          trade_data: {
            ...openData(),
            trade_close_date: c.closeDate,
            premium_at_close: Number(c.premium),
            net_fee_to_close: Number(c.fee),
            close_transaction: Number(c.transaction) as 1 | 2 | 3,
            status: statusByCloseAction[c.choice],
          },
          tag_data: [],
        },
        { onSuccess: () => succeed('Upload successful'), onError: fail, onSettled: settled },
      );
    });
  };

  const e = (k: string) => form.shown(errors, k);
  const ce = (k: string) => close.shown(closeErrors, k);
  const groupStrategies = strategies.filter((s) => s.strategy_group === v.strategyType);
  const locked = close.values.choice !== 'close';
  // Derived from the fields, not kept as state, so it leaves with the last error however that goes (QA:
  // Expire Worthless cleared the close fields' errors, the banner stayed until the next Submit). Next stays
  // disabled while the form is invalid, so on step 0 it shows as soon as a field's error does; on step 1,
  // once Submit was pressed.
  const showFormError =
    !message && (step === 0 ? Object.keys(errors).some((k) => e(k) !== undefined) : close.attempted && (!valid || (mode === 'closed' && !closeValid)));

  // Every trade belongs to a trade account: without one there is nothing to choose (QA: an empty
  // Account list, and no word on why; the New Record menu already says so).
  if (accounts.data && accounts.data.length === 0) {
    return (
      <EmptyState
        title="Add a trade account first"
        description="Every trade belongs to a trade account. Add one, then record your trades here."
        action={
          <Link to="/accounts" className="btn btn-primary btn-md">
            Go to Accounts
          </Link>
        }
      />
    );
  }

  return (
    <WizardForm className="trade-wizard" step={step} onSubmit={step === 0 ? next : submit}>
      <Stepper steps={mode === 'open' ? ['Trade Details', 'Summary'] : ['Open Details', 'Summary & Close']} current={step} />
      {message && (
        <Alert tone={message.tone} onClose={() => setMessage(null)}>
          {message.text}
        </Alert>
      )}
      {showFormError && <Alert tone="danger">There are errors in the form.</Alert>}
      {step === 0 && (
        <div className="form-grid" ref={firstRef}>
          <SelectField
            label="Account"
            autoFocusHere
            required
            value={v.account}
            onValue={(x) => set('account', x)}
            error={e('account')}
            placeholder="Select account"
            options={(accounts.data ?? []).map((a) => ({ value: a.uid, label: a.name }))}
          />
          <SelectField
            label="Strategy Type"
            required
            value={v.strategyType}
            onValue={(x) => {
              form.setValues((y) => ({ ...y, strategyType: x, strategyUid: '', strikes: [] }));
              form.touch('strategyType');
            }}
            error={e('strategyType')}
            placeholder="Select type"
            options={strategyGroup.options.map((g) => ({ value: g, label: g }))}
          />
          <SelectField
            label="Strategy"
            required
            value={v.strategyUid}
            onValue={chooseStrategy}
            error={e('strategyUid')}
            placeholder="Select strategy"
            disabled={!v.strategyType}
            options={groupStrategies.map((s) => ({ value: s.uid, label: s.name }))}
          />
          <InputField
            label="Ticker"
            required
            value={v.ticker}
            onValue={(x) => set('ticker', x.toUpperCase())}
            error={e('ticker')}
            autoComplete="off"
            spellCheck={false}
            maxLength={6}
          />
          <NumberField
            label={strategy?.uses_cost_basis ? 'Cost Basis (per share)' : 'Stock Price'}
            required
            value={v.price}
            onValue={(x) => set('price', x)}
            error={e('price')}
          />
          <ReadOnlyField label="Credit / Debit" value={strategy ? transactionLabel(strategy.transaction) : '—'} />
          <InputField label="Open Date" required type="date" max={today} value={v.openDate} onValue={(x) => set('openDate', x)} error={e('openDate')} />
          <InputField label="Expiration Date" required type="date" value={v.expirationDate} onValue={(x) => set('expirationDate', x)} error={e('expirationDate')} />
          <div className="form-strikes">
            {(strategy ? strategy.legs_setup.config : [null]).map((leg, i) => (
              <NumberField
                key={i}
                label={leg ? `Strike ${i + 1} (${leg.action} ${leg.type})` : 'Strike'}
                required
                disabled={!strategy}
                value={v.strikes[i] ?? ''}
                onValue={(x) => {
                  form.setValues((y) => {
                    const strikes = [...y.strikes];
                    strikes[i] = x;
                    return { ...y, strikes };
                  });
                  form.touch(`strike${i}`);
                }}
                error={e(`strike${i}`)}
              />
            ))}
          </div>
          <NumberField label="Delta (net)" required step="0.01" value={v.delta} onValue={(x) => set('delta', x)} error={e('delta')} />
          <NumberField label="Contracts" required step="1" min="1" value={v.contractSize} onValue={(x) => set('contractSize', x)} error={e('contractSize')} />
          <NumberField
            label="Net Premium (total, before fees)"
            required
            value={v.netPremium}
            onValue={(x) => set('netPremium', x)}
            error={e('netPremium')}
            hint={premium !== null && premium < PREMIUM_HINT_BELOW ? <span className="warning-text">{premiumHint}</span> : undefined}
          />
          <NumberField label="Net Fee" required value={v.netFee} onValue={(x) => set('netFee', x)} error={e('netFee')} />
          <ReadOnlyField label="Tags" value="—" />
          <NotesField value={v.notes} onValue={(x) => set('notes', x)} error={e('notes')} />
        </div>
      )}
      {step === 1 && (
        <div className="wizard-summary">
          <Summary
            review
            rows={[
              ['Account', accounts.data?.find((a) => a.uid === v.account)?.name ?? '—'],
              ['Strategy', strategy?.name ?? '—'],
              ['Ticker', v.ticker],
              [strategy?.uses_cost_basis ? 'Cost Basis' : 'Stock Price', formatMoney(parseNum(v.price))],
              ['Credit / Debit', strategy ? transactionLabel(strategy.transaction) : '—'],
              ['Open Date', formatDate(v.openDate)],
              ['Expiration Date', formatDate(v.expirationDate)],
              ['Strikes', formatStrikes(v.strikes.map(Number))],
              ['Delta', v.delta],
              ['Contracts', v.contractSize],
              ['Net Premium', formatMoney(premium)],
              ['Net Fee', formatMoney(parseNum(v.netFee))],
              v.notes ? ['Notes', v.notes] : null,
            ]}
          />
          {mode === 'closed' && (
            <fieldset className="close-options">
              <legend>Close Trade Options</legend>
              <div className="form-grid">
                <SelectField
                  label="Close Action"
                  value={close.values.choice}
                  onValue={(x) => chooseClose(x as CloseChoice)}
                  options={choices.map((c) => ({ value: c, label: closeChoiceLabel(c) }))}
                />
                <InputField
                  label="Close Date"
                  required
                  type="date"
                  max={today}
                  disabled={close.values.choice === 'expireWorthless'}
                  value={close.values.closeDate}
                  onValue={(x) => close.set('closeDate', x)}
                  error={ce('closeDate')}
                />
                {!locked ? (
                  <SelectField
                    label="Transaction"
                    required
                    value={close.values.transaction}
                    onValue={(x) => close.set('transaction', x)}
                    placeholder="Select"
                    options={transactionOptions}
                    error={ce('transaction')}
                  />
                ) : (
                  <ReadOnlyField label="Transaction" value="Neutral" />
                )}
                <NumberField label="Premium to Close" required disabled={locked} value={close.values.premium} onValue={(x) => close.set('premium', x)} error={ce('premium')} />
                <NumberField label="Close Fee" required disabled={locked} value={close.values.fee} onValue={(x) => close.set('fee', x)} error={ce('fee')} />
              </div>
              {!locked && strategy && close.values.transaction && sameKind(strategy.transaction, close.values.transaction) && (
                <Alert tone="warning">{sameTransactionWarning}</Alert>
              )}
            </fieldset>
          )}
        </div>
      )}
      <div className="wizard-actions">
        {step === 0 ? (
          <>
            <Button variant="ghost" onClick={resetAll}>
              Reset
            </Button>
            {/* Not disabled outright: pressing or hovering it while the form is incomplete marks the fields that stop it. */}
            <Button type="submit" onMouseEnter={() => !valid && form.setAttempted(true)} aria-disabled={!valid}>
              Next
            </Button>
          </>
        ) : (
          <>
            <Button variant="secondary" onClick={() => setStep(0)} disabled={busy}>
              Back
            </Button>
            <Button type="submit" loading={busy}>
              {busy ? 'Submitting...' : mode === 'open' ? 'Submit' : 'Submit Full Trade'}
            </Button>
          </>
        )}
      </div>
    </WizardForm>
  );
}

const RESTORED = 'Your session ended while you were entering this trade, so it was not saved. What you had entered is back: check it, then submit.';

/**
 * The wizard's input survives a session that runs out (lib/session-drafts.ts): while it is open, what was
 * typed (both steps' fields) is what to keep; opened again by the same user after signing in, it starts
 * from that, on the first step, and says why.
 */
function useKeptOnSessionEnd(
  mode: AddTradeWizardProps['mode'],
  form: ReturnType<typeof useTradeForm<AddTradeValues>>,
  close: ReturnType<typeof useTradeForm<CloseValues>>,
  setMessage: (m: { tone: 'info'; text: string }) => void,
): void {
  useKeptInput(
    `add-trade:${mode}`,
    // Nothing typed (a preselected account is not input): nothing to give back.
    () => (Object.keys(form.touched).length === 0 && Object.keys(close.touched).length === 0 ? undefined : { values: form.values, close: close.values }),
    (kept) => {
      const { values, close: closeValues } = (kept ?? {}) as { values?: unknown; close?: unknown };
      form.setValues((base) => restoreShape(base, values));
      close.setValues((base) => restoreShape(base, closeValues));
      // Touched again, so it is kept again if the session runs out once more before it is saved.
      form.touch('restored');
      setMessage({ tone: 'info', text: RESTORED });
    },
  );
}

