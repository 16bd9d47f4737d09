import { useState } from 'react';
import { Link, Navigate, useNavigate } from 'react-router';
import { refreshAccessToken } from '@/lib/api-client.ts';
import { Button } from '@/components/ui/button.tsx';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import { Icon } from '@/components/ui/icons.tsx';
import { Modal } from '@/components/ui/modal.tsx';
import { useRequestVerificationLink } from '../api/request-verification-link.ts';
import { AuthLayout } from '../components/auth-layout.tsx';
import { useSession } from '../hooks/use-session.ts';
import { sessionStore } from '../session-store.ts';

/** A signed-in user who has not confirmed the e-mail yet. */
export function NotVerifiedRoute() {
  const session = useSession();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const [sent, setSent] = useState(false);
  const [checking, setChecking] = useState(false);
  const [stillUnverified, setStillUnverified] = useState(false);
  const request = useRequestVerificationLink();
  const emailAddress = session.user?.email ?? '';

  if (session.isVerified) return <Navigate to="/" replace />;

  const send = () => {
    request.mutate(undefined, {
      onSuccess: () => {
        setConfirming(false);
        setSent(true);
      },
      onError: (error) => {
        // The spec logs these; the user still sees the dialog close.
        console.error('request-verification-link failed', error);
        setConfirming(false);
      },
    });
  };

  const checkAgain = async () => {
    setChecking(true);
    // A fresh token carries the current verified flag (the user may have verified in another tab).
    await refreshAccessToken(session.accessToken);
    setChecking(false);
    if (sessionStore.getState().user?.uac) navigate('/dashboard');
    else setStillUnverified(true);
  };

  return (
    <AuthLayout
      title="Verify your e-mail"
      footer={
        <>
          <Link to="/">Homepage</Link>
          <span aria-hidden="true">·</span>
          <Link to="/logout">Sign out</Link>
        </>
      }
    >
      <div className="verify-state">
        <div className="verify-icon verify-icon-info" aria-hidden="true">
          <Icon name="mail" size={30} />
        </div>
        <p>
          We sent a verification e-mail to <strong>{emailAddress}</strong>. Open the link in it to activate your account.
        </p>
        <p className="muted">Did not get it? Check your spam folder, or send a new link.</p>
        {stillUnverified && <p className="form-error">Your e-mail is not verified yet.</p>}
        <Button size="lg" block onClick={() => setConfirming(true)}>
          Send New Link
        </Button>
        <Button variant="secondary" block onClick={() => void checkAgain()} loading={checking}>
          I have verified my e-mail
        </Button>
      </div>
      <ConfirmDialog
        open={confirming}
        title={`Send New Account verification Email To ${emailAddress}`}
        message="A new verification link is mailed to this address. It works for 24 hours, and so do the links already sent."
        confirmLabel="Send"
        busyLabel="Sending..."
        busy={request.isPending}
        onConfirm={send}
        onCancel={() => setConfirming(false)}
      />
      <Modal open={sent} onClose={() => setSent(false)} title="Email Sent!" size="sm" footer={<Button onClick={() => setSent(false)}>OK</Button>}>
        <p>
          A new verification link is on its way to <strong>{emailAddress}</strong>. If it is not in your inbox within a few minutes, check your spam folder.
        </p>
      </Modal>
    </AuthLayout>
  );
}
