import { useState } from 'react';
import { statusByCloseAction } from '@oj/contracts/journal-events';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { strategyByUid, type Strategy } from '@oj/contracts/strategies';
import { confirmedTerms, latestCloseDate } from '@oj/contracts/trades';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Modal } from '@/components/ui/modal.tsx';
import { Stepper } from '@/components/ui/stepper.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { formatDate, formatMoney } from '@/lib/format.ts';
import { useBusinessToday } from '@/lib/business-day.ts';
import { restoreShape } from '@/lib/session-drafts.ts';
import { RESTORED_TRADE_ACTION, useKeptTradeAction } from '../hooks/use-kept-trade-action.ts';
import { useSplitTrade } from '../api/split-trade.ts';
import {
  closeChoiceLabel,
  defaultCloseDate,
  parseNum,
  sameTransactionWarning,
  validateSplitClose,
  validateSplitPremiums,
  type CloseChoice,
  type SplitCloseValues,
} from '../utils/trade-rules.ts';
import { transactionLabel, trimNumber } from '../utils/trade-labels.ts';
import { InputField, NumberField, ReadOnlyField, SelectField, Summary, transactionOptions, focusFirstInvalid, formBanner, useTradeForm } from './form-controls.tsx';
import { SuccessPanel } from './success-panel.tsx';
import { TradeHeader } from './trade-header.tsx';
import { useOneSubmission } from '@/lib/use-one-submission.ts';
import { WizardForm } from './wizard-form.tsx';
import './trade-dialogs.css';

const legName = (strategy: Strategy, i: number, sp: readonly number[]) => {
  const leg = strategy.legs_setup.config[i];
  return leg ? `Leg ${i + 1}: ${leg.action === 'sell' ? 'Sell' : 'Buy'} ${leg.type} $${trimNumber(sp[i] ?? 0)}` : `Leg ${i + 1}`;
};

/**
 * Split ("break") a two-leg trade: the premium of each leg, then which leg to close and how, then a
 * summary (part 1 §4 "Split dialog", §5 "Split"). Irreversible: one leg is closed, the other continues.
 */
export function SplitTradeDialog({ trade, onClose }: { trade: TradeListItem; onClose: () => void }) {
  const today = useBusinessToday();
  const strategy = strategyByUid(trade.su);
  const [step, setStep] = useState(0);
  const [legPremiums, setLegPremiums] = useState<string[]>(['', '']);
  const [premTouched, setPremTouched] = useState<boolean[]>([false, false]);
  const [closeLeg, setCloseLeg] = useState(0);
  // Next was pressed on the premiums step (typing in one premium marks only that field as touched).
  const [premiumsAttempted, setPremiumsAttempted] = useState(false);
  const [submitError, setSubmitError] = useState<string | null>(null);
  const [done, setDone] = useState<{ closed: number; open: number } | null>(null);
  const closeForm = useTradeForm<SplitCloseValues>(() => ({ choice: 'close', closeDate: defaultCloseDate(trade.ed, today), transaction: '', premium: '', fee: '' }));
  const restored = useKeptTradeAction(
    'split',
    trade,
    () => (premTouched.some(Boolean) || closeLeg !== 0 || Object.keys(closeForm.touched).length > 0 ? { premiums: legPremiums, closeLeg, close: closeForm.values } : undefined),
    (saved) => {
      const premiums = restoreShape({ list: ['', ''] }, { list: saved.premiums }).list;
      if (premiums.length === 2) {
        setLegPremiums(premiums);
        setPremTouched([true, true]);
      }
      if (saved.closeLeg === 0 || saved.closeLeg === 1) setCloseLeg(saved.closeLeg);
      closeForm.setValues((base) => restoreShape(base, saved.close));
    },
  );
  const mutation = useSplitTrade();
  const once = useOneSubmission();

  if (!strategy || strategy.legs_setup.legs_count !== 2) {
    return (
      <Modal open onClose={onClose} title="Split Trade" size="sm">
        <Alert tone="warning">Only two-leg trades can be split.</Alert>
      </Modal>
    );
  }

  const premiums = legPremiums.map(parseNum);
  const premiumIssues = validateSplitPremiums(strategy, legPremiums, trade.pao, trade.ot);
  const premiumErrors = [premiumIssues.leg0 ?? null, premiumIssues.leg1 ?? null];
  const sumIssue = premiumIssues.sum ?? null;
  const step1Valid = Object.keys(premiumIssues).length === 0;

  // The in-the-money outcome is the split strategy's own (part 1, Split dialog), whichever leg closes: the
  // server accepts no other. A Bull Put Spread's long put is "Assigned (ITM)", not a Long Put's "Exercised".
  const itm: CloseChoice = strategy.extra_outcome;
  const cv = closeForm.values;
  const closeErrors = validateSplitClose(cv, trade, today);
  const step2Valid = Object.keys(closeErrors).length === 0;
  const formError = formBanner(
    submitError,
    step === 0 ? premiumsAttempted && !step1Valid : step === 1 && closeForm.attempted && !step2Valid,
    step === 0 ? undefined : 'Please correct the errors in the closing form.',
  );
  const locked = cv.choice !== 'close';
  const openLegIndex = closeLeg === 0 ? 1 : 0;
  const legOpenTransaction = (i: number): 1 | 2 => (strategy.legs_setup.config[i]?.action === 'buy' ? 2 : 1);

  const choose = (choice: CloseChoice) =>
    closeForm.setValues((c) => (choice === 'close' ? { ...c, choice, transaction: '', premium: '', fee: '' } : { ...c, choice, transaction: '3', premium: '0', fee: '0' }));

  const goNext = () => {
    setSubmitError(null);
    if (step === 0) {
      setPremTouched([true, true]);
      setPremiumsAttempted(true);
      if (!step1Valid) return focusFirstInvalid();
    }
    if (step === 1) {
      closeForm.setAttempted(true);
      if (!step2Valid) return focusFirstInvalid();
    }
    setStep((s) => s + 1);
  };

  const submit = () =>
    once((settled) => {
      setSubmitError(null);
      mutation.mutate(
        {
          uid: trade.uid,
          body: {
            trade_data: {
              closing_trade: {
                leg_index: closeLeg,
                premium_at_open: premiums[closeLeg] ?? 0,
                status: statusByCloseAction[cv.choice],
                trade_close_date: cv.closeDate,
                premium_at_close: Number(cv.premium),
                close_transaction: Number(cv.transaction) as 1 | 2 | 3,
                net_fee_to_close: Number(cv.fee),
              },
              opening_trade: { premium_at_open: premiums[openLegIndex] ?? 0 },
            },
            tag_data: [],
            expected: confirmedTerms(trade),
          },
        },
        {
          onSuccess: () => setDone({ closed: closeLeg + 1, open: openLegIndex + 1 }),
          // A success ends the form (the success panel follows): only a refusal lets it be sent again.
          onError: (err) => {
            setSubmitError(errorMessage(err, 'Failed to split trade. Please try again.'));
            settled();
          },
        },
      );
    });

  const ce = (k: string) => closeForm.shown(closeErrors, k);
  return (
    <Modal open onClose={onClose} title={done ? 'Trade Split Successfully' : 'Split Trade'} size="lg" closeOnBackdrop={false} dismissible={!mutation.isPending}>
      {done ? (
        <SuccessPanel title="Trade Split Successfully" onDone={onClose}>
          Leg {done.closed} closed, Leg {done.open} remains open.
        </SuccessPanel>
      ) : (
        <WizardForm className="trade-wizard" step={step} onSubmit={step < 2 ? goNext : submit}>
          <TradeHeader trade={trade} today={today} />
          <Stepper steps={['Leg Premiums', 'Close a Leg', 'Confirm']} current={step} />
          {restored && <Alert tone="info">{RESTORED_TRADE_ACTION}</Alert>}
          {formError && <Alert tone="danger">{formError}</Alert>}
          {step === 0 && (
            <div className="form-grid">
              <p className="form-grid-wide muted">
                Net premium: {formatMoney(trade.pao)} {trade.ot === 2 ? 'Debit' : 'Credit'}. Enter each leg's premium (total for all contracts).
              </p>
              {[0, 1].map((i) => (
                <NumberField
                  key={i}
                  label={`${legName(strategy, i, trade.sp)} premium`}
                  data-autofocus={i === 0 || undefined}
                  required
                  value={legPremiums[i] ?? ''}
                  onValue={(x) => {
                    setLegPremiums((p) => p.map((y, j) => (j === i ? x : y)));
                    setPremTouched((t) => t.map((y, j) => (j === i ? true : y)));
                  }}
                  error={premTouched[i] ? (premiumErrors[i] ?? undefined) : undefined}
                />
              ))}
              {sumIssue && premTouched.every(Boolean) && (
                <div className="field-error form-grid-wide" role="alert">
                  {sumIssue}
                </div>
              )}
            </div>
          )}
          {step === 1 && (
            <div className="form-grid">
              <fieldset className="form-grid-wide leg-choice">
                <legend>Leg to close</legend>
                {[0, 1].map((i) => (
                  <label key={i} className="radio">
                    <input type="radio" name="close-leg" checked={closeLeg === i} onChange={() => setCloseLeg(i)} />
                    {legName(strategy, i, trade.sp)}
                  </label>
                ))}
              </fieldset>
              <SelectField
                label="Close Action"
                value={cv.choice}
                onValue={(x) => choose(x as CloseChoice)}
                options={(['close', itm] as CloseChoice[]).map((c) => ({ value: c, label: closeChoiceLabel(c) }))}
              />
              <InputField label="Close Date" required type="date" min={trade.tod} max={latestCloseDate(trade.ed, today)} value={cv.closeDate} onValue={(x) => closeForm.set('closeDate', x)} error={ce('closeDate')} />
              {locked ? (
                <ReadOnlyField label="Transaction" value="Neutral" />
              ) : (
                <SelectField label="Transaction" required value={cv.transaction} onValue={(x) => closeForm.set('transaction', x)} placeholder="Select" options={transactionOptions} error={ce('transaction')} />
              )}
              <NumberField label="Premium to Close" required disabled={locked} value={cv.premium} onValue={(x) => closeForm.set('premium', x)} error={ce('premium')} />
              <NumberField label="Close Fee" required disabled={locked} value={cv.fee} onValue={(x) => closeForm.set('fee', x)} error={ce('fee')} />
              {!locked && cv.transaction === String(legOpenTransaction(closeLeg)) && (
                <Alert tone="warning" className="form-grid-wide">
                  {sameTransactionWarning}
                </Alert>
              )}
            </div>
          )}
          {step === 2 && (
            <>
              <Summary
                review
                rows={[
                  ['Closing', legName(strategy, closeLeg, trade.sp)],
                  ['Close Action', closeChoiceLabel(cv.choice)],
                  ['Close Date', formatDate(cv.closeDate)],
                  ['Transaction', transactionLabel(Number(cv.transaction))],
                  ['Premium to Close', formatMoney(parseNum(cv.premium))],
                  ['Close Fee', formatMoney(parseNum(cv.fee))],
                  ['Stays open', legName(strategy, openLegIndex, trade.sp)],
                  [`Leg ${closeLeg + 1} premium`, formatMoney(premiums[closeLeg] ?? null)],
                  [`Leg ${openLegIndex + 1} premium`, formatMoney(premiums[openLegIndex] ?? null)],
                  ['Fee per leg', formatMoney(trade.nfto / 2)],
                ]}
              />
              <Alert tone="warning">Splitting cannot be undone, and a closed trade cannot be edited or deleted.</Alert>
            </>
          )}
          <div className="wizard-actions">
            {step === 0 ? (
              <Button variant="secondary" onClick={onClose}>
                Cancel
              </Button>
            ) : (
              <Button variant="secondary" onClick={() => setStep((s) => s - 1)} disabled={mutation.isPending}>
                Back
              </Button>
            )}
            {step < 2 ? (
              <Button type="submit">Next</Button>
            ) : (
              <Button type="submit" loading={mutation.isPending}>
                {mutation.isPending ? 'Submitting...' : 'Split Trade'}
              </Button>
            )}
          </div>
        </WizardForm>
      )}
    </Modal>
  );
}
