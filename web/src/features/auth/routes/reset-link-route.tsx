import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { passwordChecklist, passwordMessages, passwordResetForm, RESET_SUCCESS_MESSAGE, SIGNUP_PASSWORD_MIN } from '@oj/contracts/users';
import { ApiError } from '@/lib/api-client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { FormField, PasswordInput, TextInput } from '@/components/ui/form-field.tsx';
import { usePasswordReset } from '../api/password-reset.ts';
import { AuthLayout } from '../components/auth-layout.tsx';
import { useSuccessTimeout } from '../hooks/use-success-timeout.ts';
import { RequirementList } from '../components/requirement-list.tsx';

type Message = { tone: 'success' | 'danger'; text: string } | null;

/** /users/password-reset-link?token=…&email=…: set a new password. */
export function ResetLinkRoute() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const email = (params.get('email') ?? '').toLowerCase();
  const [newPassword, setNewPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [message, setMessage] = useState<Message>(null);
  const reset = usePasswordReset();

  useSuccessTimeout(message, () => setMessage(null));

  const unmet = newPassword === '' ? [] : passwordChecklist(newPassword, SIGNUP_PASSWORD_MIN).filter((r) => !r.ok).map((r) => r.label);
  const mismatch = confirmPassword !== '' && confirmPassword !== newPassword ? passwordMessages.mismatchChange : null;
  const parsed = passwordResetForm.safeParse({ email, newPassword, confirmPassword });
  const canSubmit = Boolean(token) && newPassword !== '' && confirmPassword !== '' && parsed.success;

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!parsed.success || !token) return;
    setMessage(null);
    reset.mutate(
      { token, email: parsed.data.email, new_password: parsed.data.newPassword },
      {
        onSuccess: () => {
          setNewPassword('');
          setConfirmPassword('');
          setMessage({ tone: 'success', text: RESET_SUCCESS_MESSAGE });
        },
        onError: (error) => {
          const msg = error instanceof ApiError && error.fromApi && error.message ? error.message : 'Password reset failed';
          const resolution = error instanceof ApiError && error.resolution ? error.resolution : 'Please try again later';
          setMessage({ tone: 'danger', text: `${msg} ${resolution}` });
        },
      },
    );
  };

  return (
    <AuthLayout
      title="Set a new password"
      footer={
        <>
          <Link to="/signin">Back to sign in</Link>
          <span aria-hidden="true">·</span>
          <Link to="/users/reset-password-request">Request a new link</Link>
        </>
      }
    >
      {!token && <Alert tone="danger">This reset link is incomplete. Request a new link.</Alert>}
      {message && (
        <Alert tone={message.tone}>
          {message.text}
          {message.tone === 'success' && (
            <>
              {' '}
              <Link to="/signin">Sign in</Link>
            </>
          )}
        </Alert>
      )}
      <form className="form" onSubmit={onSubmit} noValidate>
        <FormField label="Email">{({ id }) => <TextInput id={id} name="email" type="email" value={email} readOnly autoComplete="username" />}</FormField>
        <FormField label="New Password">
          {({ id }) => (
            <>
              <PasswordInput
                id={id}
                name="newPassword"
                autoComplete="new-password"
                value={newPassword}
                onChange={(e) => setNewPassword(e.target.value)}
                aria-invalid={unmet.length > 0}
                aria-describedby={unmet.length ? `${id}-rules` : undefined}
              />
              <RequirementList id={`${id}-rules`} label="Password requirements" items={unmet} />
            </>
          )}
        </FormField>
        <FormField label="Confirm Password" error={mismatch}>
          {({ id, describedBy }) => (
            <PasswordInput
              id={id}
              name="confirmPassword"
              autoComplete="new-password"
              value={confirmPassword}
              onChange={(e) => setConfirmPassword(e.target.value)}
              aria-invalid={Boolean(mismatch)}
              aria-describedby={describedBy}
            />
          )}
        </FormField>
        <div className="form-actions">
          <Button
            variant="secondary"
            onClick={() => {
              setNewPassword('');
              setConfirmPassword('');
              setMessage(null);
            }}
            disabled={reset.isPending}
          >
            Reset
          </Button>
          <Button type="submit" disabled={!canSubmit} loading={reset.isPending}>
            {reset.isPending ? 'Resetting...' : 'Reset password'}
          </Button>
        </div>
      </form>
    </AuthLayout>
  );
}
