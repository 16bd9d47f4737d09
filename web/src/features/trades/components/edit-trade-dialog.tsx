import { useCallback, useState, type ReactNode } from 'react';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { strategyByUid } from '@oj/contracts/strategies';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Modal } from '@/components/ui/modal.tsx';
import { Stepper } from '@/components/ui/stepper.tsx';
import { ApiError, errorMessage } from '@/lib/api-client.ts';
import { formatDate, formatMoney } from '@/lib/format.ts';
import { useBusinessToday } from '@/lib/business-day.ts';
import { RESTORED_TRADE_ACTION, useKeptTradeForm } from '../hooks/use-kept-trade-action.ts';
import { useTradeAccounts } from '../api/get-trade-accounts.ts';
import { shownTerms, structureLock, type TradeExpectations, type UpdateTradeRequest } from '@oj/contracts/trades';
import { useUpdateTrade } from '../api/update-trade.ts';
import { PREMIUM_HINT_BELOW, parseNum, premiumHint, validateEdit, type EditValues } from '../utils/trade-rules.ts';
import { formatStrikes, openActionLabel, transactionLabel } from '../utils/trade-labels.ts';
import { InputField, NotesField, NumberField, ReadOnlyField, SelectField, reviewTarget, useTradeForm } from './form-controls.tsx';
import { SuccessPanel } from './success-panel.tsx';
import { TradeHeader } from './trade-header.tsx';
import { useOneSubmission } from '@/lib/use-one-submission.ts';
import { WizardForm } from './wizard-form.tsx';
import './trade-dialogs.css';

const valuesOf = (t: TradeListItem, usesCostBasis: boolean): EditValues => ({
  account: t.au,
  ticker: t.ticker,
  price: String((usesCostBasis ? t.cb : t.spo) ?? ''),
  openDate: t.tod,
  expirationDate: t.ed,
  strikes: t.sp.map(String),
  delta: String(t.nd),
  contractSize: String(t.cs),
  premium: String(t.pao),
  fee: String(t.nfto),
  notes: t.notes,
});

/** The fields an edit sends: only those that differ from the trade as it is (part 1 §7 PATCH). */
export function changesOf(t: TradeListItem, v: EditValues, usesCostBasis: boolean): UpdateTradeRequest {
  const c: UpdateTradeRequest = {};
  const o = valuesOf(t, usesCostBasis);
  if (v.account !== o.account) c.account_uid = v.account;
  if (v.ticker !== o.ticker) c.ticker = v.ticker;
  if (Number(v.price) !== Number(o.price) || (o.price === '' && v.price !== '')) {
    if (usesCostBasis) c.cost_basis = Number(v.price);
    else c.stock_price_at_open = Number(v.price);
  }
  if (v.openDate !== o.openDate) c.trade_open_date = v.openDate;
  if (v.expirationDate !== o.expirationDate) c.expiration_date = v.expirationDate;
  if (v.strikes.some((s, i) => Number(s) !== t.sp[i])) c.strike_prices = v.strikes.map(Number);
  if (Number(v.delta) !== t.nd) c.net_delta = Number(v.delta);
  if (Number(v.contractSize) !== t.cs) c.contract_size = Number(v.contractSize);
  if (Number(v.premium) !== t.pao) c.premium_at_open = Number(v.premium);
  if (Number(v.fee) !== t.nfto) c.net_fee_to_open = Number(v.fee);
  if (v.notes !== o.notes) c.notes = v.notes;
  return c;
}

/**
 * What the form showed for each field the edit changes (the trade as this tab had it): the server refuses
 * the edit when the trade no longer holds them, so an edit from a tab opened before another tab's edit
 * never overwrites it unseen.
 */
export function expectedOf(t: TradeListItem, changes: UpdateTradeRequest): TradeExpectations {
  const before = shownTerms(t);
  return Object.fromEntries((Object.keys(before) as (keyof TradeExpectations)[]).filter((k) => k in changes).map((k) => [k, before[k]]));
}

/** Edit Trade: the form, then original and edited side by side with the changes marked (part 1 §4 "Edit dialog", §5 "Edit trade"). */
export function EditTradeDialog({ trade, onClose }: { trade: TradeListItem; onClose: () => void }) {
  const today = useBusinessToday();
  const strategy = strategyByUid(trade.su);
  const usesCostBasis = strategy?.uses_cost_basis ?? false;
  const accounts = useTradeAccounts();
  const initial = useCallback(() => valuesOf(trade, usesCostBasis), [trade, usesCostBasis]);
  const form = useTradeForm<EditValues>(initial);
  const restored = useKeptTradeForm('edit', trade, form);
  const [step, setStep] = useState(0);
  const [done, setDone] = useState(false);
  const mutation = useUpdateTrade();
  const once = useOneSubmission();
  const v = form.values;
  const errors = validateEdit(v, strategy, today, trade.tod);
  const valid = Object.keys(errors).length === 0;
  const changes = changesOf(trade, v, usesCostBasis);
  const changed = Object.keys(changes).length > 0;
  // Trades derived from a split or a roll, and what stayed open after a partial close or roll, keep their
  // lineage's account, ticker, open date and size (the decider refuses them too).
  const lock = structureLock(trade);
  const structural = lock === null;
  const e = (k: string) => form.shown(errors, k);
  const premium = parseNum(v.premium);
  const accountName = (uid: string) => accounts.data?.find((a) => a.uid === uid)?.name ?? '—';

  const rows: { label: string; before: ReactNode; after: ReactNode; changed: boolean }[] = [
    { label: 'Account', before: accountName(trade.au), after: accountName(v.account), changed: 'account_uid' in changes },
    { label: 'Ticker', before: trade.ticker, after: v.ticker, changed: 'ticker' in changes },
    {
      label: usesCostBasis ? 'Cost Basis' : 'Stock Price',
      before: formatMoney(usesCostBasis ? trade.cb : trade.spo),
      after: formatMoney(parseNum(v.price)),
      changed: 'cost_basis' in changes || 'stock_price_at_open' in changes,
    },
    { label: 'Open Date', before: formatDate(trade.tod), after: formatDate(v.openDate), changed: 'trade_open_date' in changes },
    { label: 'Expiration Date', before: formatDate(trade.ed), after: formatDate(v.expirationDate), changed: 'expiration_date' in changes },
    { label: 'Strikes', before: formatStrikes(trade.sp), after: formatStrikes(v.strikes.map(Number)), changed: 'strike_prices' in changes },
    { label: 'Delta', before: String(trade.nd), after: v.delta, changed: 'net_delta' in changes },
    { label: 'Contracts', before: String(trade.cs), after: v.contractSize, changed: 'contract_size' in changes },
    { label: 'Premium', before: formatMoney(trade.pao), after: formatMoney(premium), changed: 'premium_at_open' in changes },
    { label: 'Fee', before: formatMoney(trade.nfto), after: formatMoney(parseNum(v.fee)), changed: 'net_fee_to_open' in changes },
    { label: 'Notes', before: trade.notes || '—', after: v.notes || '—', changed: 'notes' in changes },
  ];

  // Refused for what the trade is now (changed elsewhere since this form opened, or closed): sending the
  // same edit again would be refused again, so it is not offered; the message says to edit it afresh.
  const refused = mutation.error instanceof ApiError && mutation.error.status === 409;
  const submit = () => once((settled) => mutation.mutate({ uid: trade.uid, changes, expected: expectedOf(trade, changes) }, { onSuccess: () => setDone(true), onError: () => settled() }));
  // Enter presses Next only when Next can be pressed (the browser does not submit through a disabled
  // default button; this covers a press between a change and the render that disables it).
  const next = () => {
    if (valid && changed) setStep(1);
  };

  return (
    <Modal open onClose={onClose} title={done ? 'Trade Updated Successfully' : 'Edit Trade'} size="lg" closeOnBackdrop={false} dismissible={!mutation.isPending}>
      {done ? (
        <SuccessPanel title="Trade Updated Successfully" onDone={onClose} />
      ) : (
        <WizardForm className="trade-wizard" step={step} onSubmit={step === 0 ? next : submit}>
          <TradeHeader trade={trade} today={today} />
          <Stepper steps={['Edit', 'Compare']} current={step} />
          {restored && <Alert tone="info">{RESTORED_TRADE_ACTION}</Alert>}
          {mutation.isError && <Alert tone="danger">{errorMessage(mutation.error, 'Error updating trade')}</Alert>}
          {step === 0 ? (
            <div className="form-grid">
              <SelectField
                label="Account"
                required
                autoFocusHere={structural}
                disabled={!structural}
                value={v.account}
                onValue={(x) => form.set('account', x)}
                error={e('account')}
                placeholder="Select account"
                options={(accounts.data ?? []).map((a) => ({ value: a.uid, label: a.name }))}
              />
              <ReadOnlyField label="Strategy" value={`${strategy?.strategy_group ?? ''} · ${strategy?.name ?? trade.su}`} />
              <InputField
                label="Ticker"
                required
                disabled={!structural}
                value={v.ticker}
                onValue={(x) => form.set('ticker', x.toUpperCase())}
                error={e('ticker')}
                maxLength={6}
                autoComplete="off"
              />
              <NumberField label={usesCostBasis ? 'Cost Basis (per share)' : 'Stock Price'} data-autofocus={!structural || undefined} required value={v.price} onValue={(x) => form.set('price', x)} error={e('price')} />
              <InputField label="Open Date" required type="date" max={today} disabled={!structural} value={v.openDate} onValue={(x) => form.set('openDate', x)} error={e('openDate')} />
              <InputField label="Expiration Date" required type="date" value={v.expirationDate} onValue={(x) => form.set('expirationDate', x)} error={e('expirationDate')} />
              <div className="form-strikes">
                {v.strikes.map((s, i) => (
                  <NumberField
                    key={i}
                    label={`Strike ${i + 1}`}
                    required
                    value={s}
                    onValue={(x) => {
                      form.setValues((y) => ({ ...y, strikes: y.strikes.map((z, j) => (j === i ? x : z)) }));
                      // The strike rules relate the legs: a change to one can break the other's rule, whose
                      // message must show too (QA: Next went disabled with no message).
                      v.strikes.forEach((_, j) => form.touch(`strike${j}`));
                    }}
                    error={e(`strike${i}`)}
                  />
                ))}
              </div>
              <NumberField label="Delta" required value={v.delta} onValue={(x) => form.set('delta', x)} error={e('delta')} />
              <NumberField label="Contracts" required step="1" min="1" disabled={!structural} value={v.contractSize} onValue={(x) => form.set('contractSize', x)} error={e('contractSize')} />
              <NumberField
                label="Premium (total)"
                required
                value={v.premium}
                onValue={(x) => form.set('premium', x)}
                error={e('premium')}
                hint={premium !== null && premium < PREMIUM_HINT_BELOW ? <span className="warning-text">{premiumHint}</span> : undefined}
              />
              <NumberField label="Fee" required value={v.fee} onValue={(x) => form.set('fee', x)} error={e('fee')} />
              <ReadOnlyField label="Transaction" value={`${transactionLabel(trade.ot)} (${openActionLabel(trade.ot)})`} />
              <ReadOnlyField label="Tags" value={trade.tags.length ? trade.tags.join(', ') : '—'} />
              <NotesField value={v.notes} onValue={(x) => form.set('notes', x)} error={e('notes')} />
              {!structural && (
                <p className="muted form-grid-wide">
                  {lock === 'partial'
                    ? 'This trade is what stayed open after a partial close or roll: its account, ticker, open date and contracts stay those of the part that closed.'
                    : `This trade comes from a ${lock}: its account, ticker, open date and contracts stay as they are.`}
                </p>
              )}
            </div>
          ) : (
            <div className="compare-wrap" {...reviewTarget()}>
              <table className="compare-table">
                <caption className="visually-hidden">Original and edited values</caption>
                <thead>
                  <tr>
                    <th scope="col">Field</th>
                    <th scope="col">Original</th>
                    <th scope="col">Edited</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r) => (
                    <tr key={r.label} className={r.changed ? 'compare-changed' : undefined}>
                      <th scope="row">
                        {r.label}
                        {r.changed && <span className="visually-hidden"> (changed)</span>}
                      </th>
                      <td>{r.before}</td>
                      <td>{r.after}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <div className="wizard-actions">
            {step === 0 ? (
              <>
                <Button variant="secondary" onClick={onClose}>
                  Cancel
                </Button>
                <Button type="submit" disabled={!valid || !changed}>
                  Next
                </Button>
              </>
            ) : (
              <>
                <Button variant="secondary" onClick={() => setStep(0)} disabled={mutation.isPending}>
                  Back
                </Button>
                <Button type="submit" loading={mutation.isPending} disabled={refused}>
                  {mutation.isPending ? 'Updating...' : 'Update Trade'}
                </Button>
              </>
            )}
          </div>
        </WizardForm>
      )}
    </Modal>
  );
}
