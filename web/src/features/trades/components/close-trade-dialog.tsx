import { useCallback, useState } from 'react';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { strategyByUid } from '@oj/contracts/strategies';
import { confirmedTerms, latestCloseDate } from '@oj/contracts/trades';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Modal } from '@/components/ui/modal.tsx';
import { Stepper } from '@/components/ui/stepper.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { formatDate, formatMoney } from '@/lib/format.ts';
import { useBusinessToday } from '@/lib/business-day.ts';
import { RESTORED_TRADE_ACTION, useKeptTradeForm } from '../hooks/use-kept-trade-action.ts';
import { useCloseTrade, type CloseRoute } from '../api/close-trade.ts';
import {
  closeChoiceLabel,
  closeChoices,
  closeProfitLoss,
  defaultCloseDate,
  parseNum,
  sameKind,
  sameTransactionWarning,
  validateClose,
  type CloseChoice,
  type CloseValues,
} from '../utils/trade-rules.ts';
import { transactionLabel } from '../utils/trade-labels.ts';
import { InputField, NumberField, ReadOnlyField, SelectField, Summary, transactionOptions, focusFirstInvalid, formBanner, useTradeForm } from './form-controls.tsx';
import { SuccessPanel } from './success-panel.tsx';
import { TradeHeader } from './trade-header.tsx';
import { useOneSubmission } from '@/lib/use-one-submission.ts';
import { WizardForm } from './wizard-form.tsx';
import './trade-dialogs.css';

const routeOf: Record<CloseChoice, CloseRoute> = {
  close: 'close',
  expireWorthless: 'expire-worthless',
  assigned: 'assigned',
  calledAway: 'called-away',
  exercised: 'exercised',
};

const successText: Record<CloseChoice, string> = {
  close: 'Trade successfully closed',
  expireWorthless: 'Trade Expired Worthless',
  assigned: 'Trade Assigned',
  calledAway: 'Trade Called Away',
  exercised: 'Trade Exercised',
};

/** Close Trade: close details with the profit/loss preview, then confirmation (part 1 §4 "Close options", §5 "Close trade"). */
export function CloseTradeDialog({ trade, onClose }: { trade: TradeListItem; onClose: () => void }) {
  const today = useBusinessToday();
  const strategy = strategyByUid(trade.su);
  const expired = trade.ed < today;
  const initial = useCallback(
    (): CloseValues => ({ choice: 'close', contractSize: String(trade.cs), closeDate: defaultCloseDate(trade.ed, today), transaction: '', premium: '', fee: '' }),
    [trade, today],
  );
  const form = useTradeForm<CloseValues>(initial);
  const [step, setStep] = useState(0);
  const [submitError, setSubmitError] = useState<string | null>(null);
  const [done, setDone] = useState<CloseChoice | null>(null);
  const restored = useKeptTradeForm('close', trade, form, Object.keys(form.touched).length > 0 || form.values.choice !== 'close');
  const mutation = useCloseTrade();
  const once = useOneSubmission();
  const v = form.values;
  const errors = validateClose(v, trade, today);
  const valid = Object.keys(errors).length === 0;
  const formError = formBanner(submitError, form.attempted && !valid);
  const locked = v.choice !== 'close';
  const closed = parseNum(v.contractSize) ?? 0;
  // No figure for a contract count the trade does not have (5 of 3 would "earn" more than was opened).
  const pl = errors.contractSize ? null : closeProfitLoss(trade.ot, trade.pao, trade.cs, closed, Number(v.transaction || 3), parseNum(v.premium) ?? 0);

  const choose = (choice: CloseChoice) => {
    if (choice === 'close') form.setValues((c) => ({ ...c, choice, transaction: '', premium: '', fee: '' }));
    else
      form.setValues((c) => ({
        ...c,
        choice,
        contractSize: String(trade.cs),
        transaction: '3',
        premium: '0',
        fee: '0',
        closeDate: choice === 'expireWorthless' ? trade.ed : c.closeDate,
      }));
  };

  const next = () => {
    form.setAttempted(true);
    setSubmitError(null);
    if (!valid) {
      focusFirstInvalid();
      return;
    }
    setStep(1);
  };

  const submit = () =>
    once((settled) => {
      setSubmitError(null);
      mutation.mutate(
        {
          uid: trade.uid,
          route: routeOf[v.choice],
          body: {
            contract_size: closed,
            trade_close_date: v.closeDate,
            premium_at_close: Number(v.premium),
            close_transaction: Number(v.transaction) as 1 | 2 | 3,
            net_fee_to_close: Number(v.fee),
            expected: confirmedTerms(trade),
          },
        },
        {
          onSuccess: () => setDone(v.choice),
          // A success ends the form (the success panel follows): only a refusal lets it be sent again.
          onError: (err) => {
            setSubmitError(errorMessage(err, 'Failed to close trade. Please try again.'));
            settled();
          },
        },
      );
    });

  const e = (k: string) => form.shown(errors, k);
  return (
    <Modal open onClose={onClose} title={done ? 'Closed' : 'Close Trade'} size="lg" closeOnBackdrop={false} dismissible={!mutation.isPending}>
      {done ? (
        <SuccessPanel title={successText[done]} onDone={onClose}>
          {trade.ticker} {closed < trade.cs ? `(${closed} of ${trade.cs} contracts; the rest stays open)` : ''}
        </SuccessPanel>
      ) : (
        <WizardForm className="trade-wizard" step={step} onSubmit={step === 0 ? next : submit}>
          <TradeHeader trade={trade} today={today} />
          <Stepper steps={['Close Details', 'Confirm']} current={step} />
          {restored && <Alert tone="info">{RESTORED_TRADE_ACTION}</Alert>}
          {formError && <Alert tone="danger">{formError}</Alert>}
          {step === 0 ? (
            <div className="form-grid">
              <SelectField label="Close Action" autoFocusHere value={v.choice} onValue={(x) => choose(x as CloseChoice)} options={closeChoices(strategy, expired).map((c) => ({ value: c, label: closeChoiceLabel(c) }))} />
              <NumberField
                label="Contracts to Close"
                required
                step="1"
                min="1"
                max={String(trade.cs)}
                disabled={trade.cs === 1 || locked}
                value={v.contractSize}
                onValue={(x) => form.set('contractSize', x)}
                error={e('contractSize')}
              />
              <InputField label="Close Date" required type="date" min={trade.tod} max={latestCloseDate(trade.ed, today)} disabled={v.choice === 'expireWorthless'} value={v.closeDate} onValue={(x) => form.set('closeDate', x)} error={e('closeDate')} />
              {locked ? (
                <ReadOnlyField label="Transaction" value="Neutral" />
              ) : (
                <SelectField label="Transaction" required value={v.transaction} onValue={(x) => form.set('transaction', x)} placeholder="Select" options={transactionOptions} error={e('transaction')} />
              )}
              <NumberField label="Premium to Close (total)" required disabled={locked} value={v.premium} onValue={(x) => form.set('premium', x)} error={e('premium')} />
              <NumberField label="Close Fee" required disabled={locked} value={v.fee} onValue={(x) => form.set('fee', x)} error={e('fee')} />
              {!locked && v.transaction && sameKind(trade.ot, v.transaction) && (
                <Alert tone="warning" className="form-grid-wide">
                  {sameTransactionWarning}
                </Alert>
              )}
              <ProfitLoss value={pl} />
            </div>
          ) : (
            <>
              <Summary
                review
                rows={[
                  ['Close Action', closeChoiceLabel(v.choice)],
                  ['Contracts', `${closed} of ${trade.cs}`],
                  ['Close Date', formatDate(v.closeDate)],
                  ['Transaction', transactionLabel(Number(v.transaction))],
                  ['Premium to Close', formatMoney(parseNum(v.premium))],
                  ['Close Fee', formatMoney(parseNum(v.fee))],
                ]}
              />
              <ProfitLoss value={pl} />
              <Alert tone="warning">A closed trade cannot be edited or deleted.</Alert>
            </>
          )}
          <div className="wizard-actions">
            {step === 0 ? (
              <>
                <Button variant="secondary" onClick={onClose}>
                  Cancel
                </Button>
                <Button type="submit">Next</Button>
              </>
            ) : (
              <>
                <Button variant="secondary" onClick={() => setStep(0)} disabled={mutation.isPending}>
                  Back
                </Button>
                <Button type="submit" loading={mutation.isPending}>
                  {mutation.isPending ? 'Submitting...' : 'Close Trade'}
                </Button>
              </>
            )}
          </div>
        </WizardForm>
      )}
    </Modal>
  );
}

/** The profit/loss preview; null (inputs that give no meaningful figure) shows a dash. */
export function ProfitLoss({ value, label = 'Profit / Loss' }: { value: number | null; label?: string }) {
  const tone = value === null || value === 0 ? '' : value > 0 ? 'tc-success' : 'tc-danger';
  return (
    <div className={`pl-preview ${tone}`} aria-live="polite">
      <span>{label}</span>
      <strong>{value === null ? '—' : formatMoney(value)}</strong>
    </div>
  );
}
