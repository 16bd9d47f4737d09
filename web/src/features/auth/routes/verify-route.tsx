import { useEffect, useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { email as emailSchema, RESEND_VERIFICATION_MESSAGE, VERIFY_FAILED_MESSAGE, VERIFY_SUCCESS_MESSAGE } from '@oj/contracts/users';
import { refreshAccessToken } from '@/lib/api-client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { FormField, TextInput } from '@/components/ui/form-field.tsx';
import { Icon } from '@/components/ui/icons.tsx';
import { Modal } from '@/components/ui/modal.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { useResendVerificationLink } from '../api/resend-verification-link.ts';
import { useVerifyEmail } from '../api/verify-email.ts';
import { AuthLayout } from '../components/auth-layout.tsx';
import { useSession } from '../hooks/use-session.ts';

/** /users/account-verify?token=…: loading, then "Account Verified" or "Verification Failed". */
export function VerifyRoute() {
  const [params] = useSearchParams();
  const token = params.get('token');
  const session = useSession();
  const navigate = useNavigate();
  const [verifiedHere] = useState(() => session.isVerified);
  // Signed in and already verified when the page opened: the route goes home, and the single-use token
  // (most likely already used) is never sent (QA: a used link logged a 400 before the redirect).
  const goHome = verifiedHere && session.isSignedIn;
  const verify = useVerifyEmail(goHome ? null : token);
  const [askEmail, setAskEmail] = useState(false);

  const state: 'loading' | 'success' | 'failed' = !token ? 'failed' : verify.isPending ? 'loading' : verify.isSuccess ? 'success' : 'failed';

  useEffect(() => {
    // A user signed in on this browser gets the verified flag without signing in again.
    if (state === 'success' && session.isSignedIn && !session.isVerified) void refreshAccessToken(session.accessToken);
  }, [state, session.isSignedIn, session.isVerified, session.accessToken]);

  if (goHome) return <Navigate to="/" replace />;

  return (
    <AuthLayout title={state === 'loading' ? 'Verifying your e-mail' : state === 'success' ? VERIFY_SUCCESS_MESSAGE : 'Verification Failed'}>
      <div className="verify-state" aria-live="polite">
        {state === 'loading' && (
          <div className="verify-icon">
            <Spinner size="lg" label="Verifying" />
          </div>
        )}
        {state === 'success' && (
          <>
            <div className="verify-icon verify-icon-success" aria-hidden="true">
              <Icon name="check" size={32} />
            </div>
            <p className="muted">Your e-mail address is confirmed. You can now sign in to your journal.</p>
            <Button size="lg" block onClick={() => void navigate('/signin')}>
              Go to Login
            </Button>
          </>
        )}
        {state === 'failed' && (
          <>
            <div className="verify-icon verify-icon-danger" aria-hidden="true">
              <Icon name="x" size={32} />
            </div>
            <p className="muted">{VERIFY_FAILED_MESSAGE}</p>
            <Button size="lg" block onClick={() => setAskEmail(true)}>
              Send New Link
            </Button>
          </>
        )}
      </div>
      <SendNewLinkDialog open={askEmail} onClose={() => setAskEmail(false)} />
    </AuthLayout>
  );
}

function SendNewLinkDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState(false);
  const resend = useResendVerificationLink();
  const close = () => {
    onClose();
    setSent(false);
    setError(null);
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = emailSchema.safeParse(value);
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? null);
      return;
    }
    // The answer is the same whether or not the address has an account, and errors are not shown.
    resend.mutate(parsed.data, { onSettled: () => setSent(true) });
  };
  return (
    <Modal open={open} onClose={close} title="Send New Link" size="sm">
      {sent ? (
        <>
          <Alert tone="success">{RESEND_VERIFICATION_MESSAGE}</Alert>
          <p className="muted">Check your spam folder if it does not arrive within a few minutes.</p>
          <Button block onClick={close}>
            Close
          </Button>
        </>
      ) : (
        <form className="form" onSubmit={onSubmit} noValidate>
          <FormField label="Your Email" error={error}>
            {({ id, describedBy }) => (
              <TextInput
                id={id}
                type="email"
                autoComplete="email"
                value={value}
                onChange={(e) => {
                  setValue(e.target.value.toLowerCase());
                  setError(null);
                }}
                aria-describedby={describedBy}
                aria-invalid={Boolean(error)}
              />
            )}
          </FormField>
          <Button type="submit" block loading={resend.isPending}>
            Send New Link
          </Button>
        </form>
      )}
    </Modal>
  );
}
