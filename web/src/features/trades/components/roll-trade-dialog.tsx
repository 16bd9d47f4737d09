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
import { useRollTrade } from '../api/roll-trade.ts';
import {
  PREMIUM_HINT_BELOW,
  closeProfitLoss,
  defaultCloseDate,
  parseNum,
  premiumHint,
  rollSameTransaction,
  sameTransactionWarning,
  validateRoll,
  type RollValues,
} from '../utils/trade-rules.ts';
import { formatStrikes, transactionLabel } from '../utils/trade-labels.ts';
import { ProfitLoss } from './close-trade-dialog.tsx';
import { InputField, NotesField, NumberField, ReadOnlyField, SelectField, Summary, reviewTarget, transactionOptions, focusFirstInvalid, formBanner, useTradeForm } from './form-controls.tsx';
import { SuccessPanel } from './success-panel.tsx';
import { TradeHeader } from './trade-header.tsx';
import { useOneSubmission } from '@/lib/use-one-submission.ts';
import { WizardForm } from './wizard-form.tsx';
import './trade-dialogs.css';

const SLIDE_OUT_MS = 300;

/** The roll form's fields that must hold something before Next (part 1 §4 "Roll wizard"); strikes are added per leg. */
const REQUIRED = ['closeDate', 'transaction', 'premiumToClose', 'fee', 'newExpirationDate', 'newContractSize', 'newPrice', 'newDelta', 'newTransaction', 'newPremium', 'newFee'] as const;

/** Roll Trade: slide 1 closes the trade and opens its successor, slide 2 reviews (part 1 §2, §4 "Roll wizard", §5 "Roll form"). */
export function RollTradeDialog({ trade, onClose }: { trade: TradeListItem; onClose: () => void }) {
  const today = useBusinessToday();
  const strategy = strategyByUid(trade.su);
  const usesCostBasis = strategy?.uses_cost_basis ?? false;
  const initial = useCallback(
    (): RollValues => ({
      closeDate: defaultCloseDate(trade.ed, today),
      transaction: '',
      premiumToClose: '',
      fee: '',
      newExpirationDate: '',
      newContractSize: String(trade.cs),
      newPrice: String((usesCostBasis ? trade.cb : trade.spo) ?? ''),
      newStrikes: trade.sp.map(String),
      newDelta: String(trade.nd),
      newTransaction: String(trade.ot),
      newPremium: '',
      newFee: '',
      notes: trade.notes,
    }),
    [trade, today, usesCostBasis],
  );
  const form = useTradeForm<RollValues>(initial);
  const restored = useKeptTradeForm('roll', trade, form);
  const [slide, setSlide] = useState(0);
  // Only the server's refusal is kept as state: the validation message follows the fields, so it goes
  // away as soon as every field is right again.
  const [submitError, setSubmitError] = useState<string | null>(null);
  const [leaving, setLeaving] = useState(false);
  const [missingShown, setMissingShown] = useState(false);
  // The new expiration date once the roll went through: the dialog then shows its success panel.
  const [rolledTo, setRolledTo] = useState<string | null>(null);
  const mutation = useRollTrade();
  const once = useOneSubmission();
  const v = form.values;
  const errors = validateRoll(v, trade, strategy, today);
  const valid = Object.keys(errors).length === 0;
  const formError = formBanner(submitError, form.attempted && !valid);
  const blank = [...REQUIRED.filter((k) => v[k].trim() === ''), ...v.newStrikes.flatMap((x, i) => (x.trim() === '' ? [`strike${i}`] : []))];
  const filled = blank.length === 0;
  // Next stays unusable until every field is filled; pressing or hovering it marks the blank ones.
  const markMissing = () => {
    if (filled) return;
    for (const k of blank) form.touch(k);
    setMissingShown(true);
  };
  const newCs = parseNum(v.newContractSize) ?? 0;
  const rollType = newCs === trade.cs ? 'Full Roll' : 'Partial Roll';
  const pl = errors.newContractSize ? null : closeProfitLoss(trade.ot, trade.pao, trade.cs, newCs, Number(v.transaction || 3), parseNum(v.premiumToClose) ?? 0);
  const newPremium = parseNum(v.newPremium);
  const sameType = rollSameTransaction(trade.ot, v.transaction, v.newTransaction);

  const next = () => {
    if (!filled) {
      markMissing();
      focusFirstInvalid();
      return;
    }
    form.setAttempted(true);
    setSubmitError(null);
    if (!valid) {
      focusFirstInvalid();
      return;
    }
    setSlide(1);
  };

  const submit = () => {
    form.setAttempted(true);
    setSubmitError(null);
    if (!valid) {
      setSlide(0);
      return;
    }
    once((settled) =>
      mutation.mutate(
        {
          uid: trade.uid,
          body: {
            trade_roll_data: {
              old_trade: {
                contract_size: newCs,
                trade_close_date: v.closeDate,
                premium_at_close: Number(v.premiumToClose),
                close_transaction: Number(v.transaction) as 1 | 2,
                net_fee_to_close: Number(v.fee),
              },
              new_trade: {
                trade_open_date: v.closeDate,
                expiration_date: v.newExpirationDate,
                contract_size: newCs,
                strike_prices: v.newStrikes.map(Number),
                stock_price_at_open: usesCostBasis ? null : Number(v.newPrice),
                cost_basis: usesCostBasis ? Number(v.newPrice) : null,
                net_delta: Number(v.newDelta),
                open_transaction: Number(v.newTransaction) as 1 | 2,
                premium_at_open: Number(v.newPremium),
                net_fee_to_open: Number(v.newFee),
                notes: v.notes,
              },
            },
            tag_data: [],
            expected: confirmedTerms(trade),
          },
        },
        {
          onSuccess: () => {
            // Part 1 §4, §8: the wizard slides out (300 ms), then the dialog shows "Trade Rolled Successfully"
            // with OK, as the close and split dialogs do, while the lists already show the new trade.
            setLeaving(true);
            const expiration = v.newExpirationDate;
            window.setTimeout(() => {
              setRolledTo(expiration);
              setLeaving(false);
            }, SLIDE_OUT_MS);
          },
          // A roll that went through ends the form: only a refusal lets it be sent again.
          onError: (err) => {
            setSubmitError(errorMessage(err, 'Failed to roll trade. Please try again.'));
            settled();
          },
        },
      ),
    );
  };

  const e = (k: string) => form.shown(errors, k);
  const setStrike = (i: number, x: string) => {
    form.setValues((y) => {
      const newStrikes = [...y.newStrikes];
      newStrikes[i] = x;
      return { ...y, newStrikes };
    });
    form.touch(`strike${i}`);
  };

  // The same Modal stays mounted (same element, same place): only its title and content change, and OK takes focus.
  if (rolledTo)
    return (
      <Modal open onClose={onClose} title="Trade Rolled Successfully" size="lg" closeOnBackdrop={false}>
        <SuccessPanel title="Trade Rolled Successfully" onDone={onClose}>
          The trade for {trade.ticker} has been rolled to {formatDate(rolledTo)}.
        </SuccessPanel>
      </Modal>
    );
  return (
    <Modal open onClose={onClose} title="Roll Trade" size="xl" closeOnBackdrop={false} dismissible={!mutation.isPending && !leaving}>
      <WizardForm className={`trade-wizard${leaving ? ' slide-out' : ''}`} step={slide} onSubmit={slide === 0 ? next : submit}>
        <TradeHeader trade={trade} today={today} />
        <Stepper steps={['Close & Open', 'Review']} current={slide} />
        {restored && <Alert tone="info">{RESTORED_TRADE_ACTION}</Alert>}
        {formError && <Alert tone="danger">{formError}</Alert>}
        {slide === 0 ? (
          <div className="roll-columns">
            <fieldset className="roll-side">
              <legend>Close {trade.ticker}</legend>
              <InputField label="Close Date" data-autofocus required type="date" min={trade.tod} max={latestCloseDate(trade.ed, today)} value={v.closeDate} onValue={(x) => form.set('closeDate', x)} error={e('closeDate')} />
              <SelectField label="Transaction" required value={v.transaction} onValue={(x) => form.set('transaction', x)} placeholder="Select" options={transactionOptions} error={e('transaction')} />
              <NumberField label="Premium to Close (total)" required value={v.premiumToClose} onValue={(x) => form.set('premiumToClose', x)} error={e('premiumToClose')} />
              <NumberField label="Close Fee" required value={v.fee} onValue={(x) => form.set('fee', x)} error={e('fee')} />
              {sameType.close && <Alert tone="warning">{sameTransactionWarning}</Alert>}
            </fieldset>
            <fieldset className="roll-side">
              <legend>Open the new trade</legend>
              <ReadOnlyField label="New Open Date" value={formatDate(v.closeDate)} />
              <InputField label="New Expiration Date" required type="date" value={v.newExpirationDate} onValue={(x) => form.set('newExpirationDate', x)} error={e('newExpirationDate')} />
              <NumberField
                label="Contracts"
                required
                step="1"
                min="1"
                max={String(trade.cs)}
                disabled={trade.cs === 1}
                value={v.newContractSize}
                onValue={(x) => form.set('newContractSize', x)}
                error={e('newContractSize')}
                hint={rollType}
              />
              <NumberField label={usesCostBasis ? 'Cost Basis (per share)' : 'Stock Price'} required value={v.newPrice} onValue={(x) => form.set('newPrice', x)} error={e('newPrice')} />
              <div className="form-strikes">
                {v.newStrikes.map((s, i) => (
                  <NumberField key={i} label={`New Strike ${i + 1}`} required value={s} onValue={(x) => setStrike(i, x)} error={e(`strike${i}`)} />
                ))}
              </div>
              <NumberField label="New Delta" required value={v.newDelta} onValue={(x) => form.set('newDelta', x)} error={e('newDelta')} />
              <SelectField label="New Transaction" required value={v.newTransaction} onValue={(x) => form.set('newTransaction', x)} placeholder="Select" options={transactionOptions} error={e('newTransaction')} />
              {sameType.open && <Alert tone="warning">{sameTransactionWarning}</Alert>}
              <NumberField
                label="New Premium (total)"
                required
                value={v.newPremium}
                onValue={(x) => form.set('newPremium', x)}
                error={e('newPremium')}
                hint={newPremium !== null && newPremium < PREMIUM_HINT_BELOW ? <span className="warning-text">{premiumHint}</span> : undefined}
              />
              <NumberField label="New Fee" required value={v.newFee} onValue={(x) => form.set('newFee', x)} error={e('newFee')} />
              <ReadOnlyField label="Tags" value={trade.tags.length ? trade.tags.join(', ') : '—'} />
              <NotesField value={v.notes} onValue={(x) => form.set('notes', x)} error={e('notes')} />
            </fieldset>
          </div>
        ) : (
          <div className="roll-columns" {...reviewTarget()}>
            <section className="roll-side">
              <h3>Close ({rollType})</h3>
              <Summary
                rows={[
                  ['Close Date', formatDate(v.closeDate)],
                  ['Contracts', `${newCs} of ${trade.cs}`],
                  ['Transaction', transactionLabel(Number(v.transaction))],
                  ['Premium to Close', formatMoney(parseNum(v.premiumToClose))],
                  ['Close Fee', formatMoney(parseNum(v.fee))],
                ]}
              />
              <ProfitLoss value={pl} label="Roll P/L" />
            </section>
            <section className="roll-side">
              <h3>New trade</h3>
              <Summary
                rows={[
                  ['Open Date', formatDate(v.closeDate)],
                  ['Expiration Date', formatDate(v.newExpirationDate)],
                  ['Strikes', formatStrikes(v.newStrikes.map(Number))],
                  ['Contracts', String(newCs)],
                  [usesCostBasis ? 'Cost Basis' : 'Stock Price', formatMoney(parseNum(v.newPrice))],
                  ['Delta', v.newDelta],
                  ['Transaction', transactionLabel(Number(v.newTransaction))],
                  ['Premium', formatMoney(newPremium)],
                  ['Fee', formatMoney(parseNum(v.newFee))],
                  v.notes ? ['Notes', v.notes] : null,
                ]}
              />
            </section>
          </div>
        )}
        <div className="wizard-actions">
          {slide === 0 ? (
            <>
              <Button
                variant="ghost"
                onClick={() => {
                  form.reset();
                  setSubmitError(null);
                  setMissingShown(false);
                }}
              >
                Reset
              </Button>
              {missingShown && !filled && (
                <span className="wizard-hint" id={`roll-next-hint-${trade.uid}`} role="status">
                  Fill in the marked fields to continue.
                </span>
              )}
              <Button
                type="submit"
                onMouseEnter={markMissing}
                aria-disabled={!filled}
                aria-describedby={missingShown && !filled ? `roll-next-hint-${trade.uid}` : undefined}
              >
                Next
              </Button>
            </>
          ) : (
            <>
              <Button variant="secondary" onClick={() => setSlide(0)} disabled={mutation.isPending}>
                Back
              </Button>
              <Button type="submit" loading={mutation.isPending}>
                {mutation.isPending ? 'Submitting...' : 'Submit'}
              </Button>
            </>
          )}
        </div>
      </WizardForm>
    </Modal>
  );
}
