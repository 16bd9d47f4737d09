import { useState, type FormEvent } from 'react';
import { changePasswordForm, INCORRECT_OLD_PASSWORD, PASSWORD_UPDATED_MESSAGE } from '@oj/contracts/users';
import { ApiError, detailMessages } from '@/lib/api-client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { FormField, PasswordInput } from '@/components/ui/form-field.tsx';
import { useOneSubmission } from '@/lib/use-one-submission.ts';
import { useUpdatePassword } from '../api/update-password.ts';
import { useClearAfter } from '../hooks/use-clear-after.ts';

type Field = 'oldPassword' | 'newPassword' | 'confirmPassword';
const empty: Record<Field, string> = { oldPassword: '', newPassword: '', confirmPassword: '' };

function failureText(error: unknown): string {
  if (error instanceof ApiError && error.status === 400) return INCORRECT_OLD_PASSWORD;
  if (error instanceof ApiError && error.status === 422) {
    const list = detailMessages(error);
    return list.length ? list.join(', ') : error.message;
  }
  return 'Failed to update password';
}

/** Change Password (part 2 §5): every unmet rule listed; submit only with all three fields and no errors. */
export function ChangePasswordCard() {
  const [values, setValues] = useState(empty);
  const [message, setMessage] = useState<{ tone: 'success' | 'danger'; text: string } | null>(null);
  const update = useUpdatePassword();

  // The result message goes away after 3 seconds.
  useClearAfter(message, () => setMessage(null), 3000);

  const parsed = changePasswordForm.safeParse(values);
  const errors: Partial<Record<Field, string[]>> = {};
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = issue.path[0] as Field;
      // Only fields the user has typed in show their problems.
      if (values[key] === '' && !(key === 'oldPassword' && values.newPassword !== '')) continue;
      (errors[key] ??= []).push(issue.message);
    }
  }
  const filled = values.oldPassword !== '' && values.newPassword !== '' && values.confirmPassword !== '';
  const set = (field: Field, value: string) => setValues((v) => ({ ...v, [field]: value }));

  const once = useOneSubmission();
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!parsed.success) return;
    once((settled) => update.mutate(
      { old_password: parsed.data.oldPassword, new_password: parsed.data.newPassword },
      {
        onSettled: settled,
        onSuccess: () => {
          setValues(empty);
          setMessage({ tone: 'success', text: PASSWORD_UPDATED_MESSAGE });
        },
        onError: (error) => setMessage({ tone: 'danger', text: failureText(error) }),
      },
    ));
  };

  const field = (key: Field, label: string, autoComplete: string) => (
    <FormField label={label} error={errors[key]?.join(' · ') ?? null}>
      {({ id, describedBy, invalid }) => (
        <PasswordInput
          id={id}
          name={key}
          autoComplete={autoComplete}
          value={values[key]}
          onChange={(e) => set(key, e.target.value)}
          aria-invalid={invalid}
          aria-describedby={describedBy}
        />
      )}
    </FormField>
  );

  return (
    <section className="card" aria-labelledby="change-password-title">
      <h2 id="change-password-title" className="card-title">
        Change Password
      </h2>
      {message && <Alert tone={message.tone}>{message.text}</Alert>}
      <form className="form" onSubmit={onSubmit} noValidate>
        {field('oldPassword', 'Old Password', 'current-password')}
        {field('newPassword', 'New Password', 'new-password')}
        {field('confirmPassword', 'Confirm Password', 'new-password')}
        <div className="form-actions">
          <Button variant="secondary" onClick={() => setValues(empty)} disabled={update.isPending}>
            Reset
          </Button>
          <Button type="submit" disabled={!filled || !parsed.success} loading={update.isPending}>
            Change Password
          </Button>
        </div>
      </form>
    </section>
  );
}
