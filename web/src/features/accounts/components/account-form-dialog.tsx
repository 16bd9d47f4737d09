import { useEffect, useState, type FormEvent } from 'react';
import {
  accountForm,
  accountPayloadOf,
  accountTypes,
  brokerages,
  DEFAULT_COMMISSION,
  DEFAULT_FEE,
  type Account,
  type UpdateAccountRequest,
} from '@oj/contracts/accounts';
import { errorMessage } from '@/lib/api-client.ts';
import { focusFirstInvalid } from '@/lib/focus-first-invalid.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { FormField, SelectInput, TextInput } from '@/components/ui/form-field.tsx';
import { Modal } from '@/components/ui/modal.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { sessionStore } from '@/features/auth/session-store.ts';
import { useOneSubmission } from '@/lib/use-one-submission.ts';
import { useAddAccount } from '../api/add-account.ts';
import { useUpdateAccount } from '../api/update-account.ts';

export interface AccountFormDialogProps {
  open: boolean;
  onClose: () => void;
  /** Edit this account; absent to add a new one. */
  account?: Account;
}

interface Values {
  accountName: string;
  accountType: string;
  brokerage: string;
  commission: string;
  fee: string;
}
type Field = keyof Values;

const blank: Values = { accountName: '', accountType: '', brokerage: '', commission: String(DEFAULT_COMMISSION), fee: String(DEFAULT_FEE) };
const valuesOf = (a: Account): Values => ({
  accountName: a.name,
  accountType: String(a.ac_type),
  brokerage: a.broker,
  commission: String(a.broker_commission),
  fee: String(a.broker_fee),
});

/** Add Account / Edit Account (part 2 §5 messages; an error clears when its field is edited). */
export function AccountFormDialog({ open, onClose, account }: AccountFormDialogProps) {
  const editing = account !== undefined;
  const [values, setValues] = useState<Values>(blank);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [message, setMessage] = useState<{ tone: 'success' | 'danger'; text: string } | null>(null);
  const add = useAddAccount();
  const update = useUpdateAccount();
  const toast = useToast();
  const busy = add.isPending || update.isPending;

  // Reset when the dialog opens (or switches account), not when a refetch hands us a new object.
  const accountUid = account?.uid;
  useEffect(() => {
    if (!open) return;
    setValues(account ? valuesOf(account) : blank);
    setErrors({});
    setMessage(null);
  }, [open, accountUid]);

  // Edit closes one second after success.
  useEffect(() => {
    if (!editing || message?.tone !== 'success') return;
    const t = window.setTimeout(onClose, 1000);
    return () => window.clearTimeout(t);
  }, [editing, message, onClose]);

  const set = (field: Field, value: string) => {
    setValues((v) => ({ ...v, [field]: value }));
    setErrors((e) => ({ ...e, [field]: undefined }));
    setMessage((m) => (m?.tone === 'danger' ? null : m));
  };

  const once = useOneSubmission();
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = accountForm.safeParse(values);
    if (!parsed.success) {
      const next: Partial<Record<Field, string>> = {};
      for (const issue of parsed.error.issues) {
        const key = issue.path[0] as Field | undefined;
        if (key && !next[key]) next[key] = issue.message;
      }
      setErrors(next);
      focusFirstInvalid();
      return;
    }
    const payload = accountPayloadOf(parsed.data);
    if (!editing) {
      once((settled) =>
        add.mutate(payload, {
          onSuccess: () => {
            setValues(blank);
            setMessage({ tone: 'success', text: 'Trade Account Added.' });
            toast.success('Trade Account Added.');
            sessionStore.updateUser({ tac: true, has_trade_account: true });
          },
          onError: (error) => setMessage({ tone: 'danger', text: errorMessage(error, 'Failed to add a trade account.') }),
          onSettled: settled,
        }),
      );
      return;
    }
    const changes: UpdateAccountRequest = {};
    if (payload.name !== account.name) changes.name = payload.name;
    if (payload.broker !== account.broker) changes.broker = payload.broker;
    if (payload.ac_type !== account.ac_type) changes.ac_type = payload.ac_type;
    if (payload.broker_commission !== account.broker_commission) changes.broker_commission = payload.broker_commission;
    if (payload.broker_fee !== account.broker_fee) changes.broker_fee = payload.broker_fee;
    if (Object.keys(changes).length === 0) {
      setMessage({ tone: 'success', text: 'Account updated successfully.' });
      return;
    }
    once((settled) =>
      update.mutate(
        { uid: account.uid, changes },
        {
          onSuccess: () => {
            setMessage({ tone: 'success', text: 'Account updated successfully.' });
            toast.success('Account updated successfully.');
          },
          onError: (error) => setMessage({ tone: 'danger', text: errorMessage(error, 'Failed to update the account.') }),
          onSettled: settled,
        },
      ),
    );
  };

  const formId = editing ? 'edit-account-form' : 'add-account-form';
  return (
    <Modal
      open={open}
      onClose={onClose}
      dismissible={!busy}
      title={editing ? 'Edit Account' : 'Add Account'}
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={busy}>
            {message?.tone === 'success' && !editing ? 'Close' : 'Cancel'}
          </Button>
          <Button type="submit" form={formId} loading={busy}>
            {editing ? (busy ? 'Saving...' : 'Save Changes') : busy ? 'Adding...' : 'Add Account'}
          </Button>
        </>
      }
    >
      {message && <Alert tone={message.tone}>{message.text}</Alert>}
      <form id={formId} className="form" onSubmit={onSubmit} noValidate>
        <FormField label="Account Name" error={errors.accountName} required>
          {({ id, describedBy, invalid }) => (
            <TextInput
              id={id}
              name="accountName"
              value={values.accountName}
              onChange={(e) => set('accountName', e.target.value)}
              aria-invalid={invalid}
              aria-describedby={describedBy}
              placeholder="e.g. Income portfolio"
              maxLength={60}
              data-autofocus
            />
          )}
        </FormField>
        <div className="form-row">
          <FormField label="Account Type" error={errors.accountType} required>
            {({ id, describedBy, invalid }) => (
              <SelectInput id={id} name="accountType" value={values.accountType} onChange={(e) => set('accountType', e.target.value)} aria-invalid={invalid} aria-describedby={describedBy}>
                <option value="">Select account type</option>
                {accountTypes.map((t) => (
                  <option key={t.code} value={t.code}>
                    {t.label}
                  </option>
                ))}
              </SelectInput>
            )}
          </FormField>
          <FormField label="Brokerage" error={errors.brokerage} required>
            {({ id, describedBy, invalid }) => (
              <SelectInput id={id} name="brokerage" value={values.brokerage} onChange={(e) => set('brokerage', e.target.value)} aria-invalid={invalid} aria-describedby={describedBy}>
                <option value="">Select brokerage</option>
                {brokerages.map((b) => (
                  <option key={b.key} value={b.key}>
                    {b.name}
                  </option>
                ))}
              </SelectInput>
            )}
          </FormField>
        </div>
        <div className="form-row">
          <FormField label="Commission (per contract)" error={errors.commission} hint="Charged by the broker per contract.">
            {({ id, describedBy, invalid }) => (
              <TextInput
                id={id}
                name="commission"
                type="number"
                inputMode="decimal"
                step="0.01"
                min="0"
                value={values.commission}
                onChange={(e) => set('commission', e.target.value)}
                aria-invalid={invalid}
                aria-describedby={describedBy}
              />
            )}
          </FormField>
          <FormField label="Fee (per contract)" error={errors.fee} hint="Regulatory and exchange fees per contract.">
            {({ id, describedBy, invalid }) => (
              <TextInput
                id={id}
                name="fee"
                type="number"
                inputMode="decimal"
                step="0.01"
                min="0"
                value={values.fee}
                onChange={(e) => set('fee', e.target.value)}
                aria-invalid={invalid}
                aria-describedby={describedBy}
              />
            )}
          </FormField>
        </div>
      </form>
    </Modal>
  );
}
