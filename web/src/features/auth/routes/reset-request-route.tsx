import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { email as emailSchema, RESET_REQUEST_MESSAGE } from '@oj/contracts/users';
import { ApiError } from '@/lib/api-client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { FormField, TextInput } from '@/components/ui/form-field.tsx';
import { usePasswordResetRequest } from '../api/password-reset-request.ts';
import { AuthLayout } from '../components/auth-layout.tsx';
import { useSuccessTimeout } from '../hooks/use-success-timeout.ts';

type Message = { tone: 'success' | 'danger'; text: string } | null;

function failureText(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Something went wrong.';
  if (error.status === 0) return 'Network error. Please try again.';
  if (error.status === 404) return error.message || 'Email not found.';
  return error.message || 'An unexpected error occurred.';
}

export function ResetRequestRoute() {
  const [value, setValue] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const request = usePasswordResetRequest();
  useSuccessTimeout(message, () => setMessage(null));

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = emailSchema.safeParse(value);
    if (!parsed.success) {
      setFieldError(parsed.error.issues[0]?.message ?? null);
      return;
    }
    setMessage(null);
    request.mutate(
      { email: parsed.data },
      {
        onSuccess: () => setMessage({ tone: 'success', text: RESET_REQUEST_MESSAGE }),
        onError: (error) => setMessage({ tone: 'danger', text: failureText(error) }),
      },
    );
  };

  return (
    <AuthLayout
      title="Reset your password"
      subtitle="Enter the e-mail of your account and we will send you a link to set a new password."
      footer={
        <>
          <Link to="/signin">Back to sign in</Link>
          <span aria-hidden="true">·</span>
          <Link to="/signup">Create an account</Link>
        </>
      }
    >
      {message && <Alert tone={message.tone}>{message.text}</Alert>}
      <form className="form" onSubmit={onSubmit} noValidate>
        <FormField label="Email" error={fieldError}>
          {({ id, describedBy }) => (
            <TextInput
              id={id}
              name="email"
              type="email"
              autoComplete="email"
              value={value}
              onChange={(e) => {
                setValue(e.target.value.toLowerCase());
                setFieldError(null);
              }}
              aria-invalid={Boolean(fieldError)}
              aria-describedby={describedBy}
              placeholder="you@example.com"
            />
          )}
        </FormField>
        <Button type="submit" size="lg" block loading={request.isPending}>
          Send Email
        </Button>
      </form>
    </AuthLayout>
  );
}
