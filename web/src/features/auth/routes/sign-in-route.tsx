import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { loginRequest } from '@oj/contracts/users';
import { ApiError, errorMessage } from '@/lib/api-client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Checkbox, FormField, PasswordInput, TextInput } from '@/components/ui/form-field.tsx';
import { useLogin } from '../api/login.ts';
import { AuthLayout } from '../components/auth-layout.tsx';
import { forgetRefreshFailure, refreshFailed, sessionStore } from '../session-store.ts';
import '../sign-in.css';

const REMEMBER_KEY = 'oj.signin.remember';

function readRemembered(): { email: string; remember: boolean } {
  try {
    const raw = localStorage.getItem(REMEMBER_KEY);
    if (raw) {
      const v = JSON.parse(raw) as { email?: unknown; remember?: unknown };
      if (v.remember === true && typeof v.email === 'string') return { email: v.email, remember: true };
    }
  } catch {
    // nothing remembered
  }
  return { email: '', remember: false };
}

function writeRemembered(email: string, remember: boolean): void {
  try {
    if (remember) localStorage.setItem(REMEMBER_KEY, JSON.stringify({ email, remember: true }));
    else localStorage.removeItem(REMEMBER_KEY);
  } catch {
    // not remembered
  }
}

export function SignInRoute() {
  const navigate = useNavigate();
  const [initial] = useState(readRemembered);
  const [email, setEmail] = useState(initial.email);
  const [password, setPassword] = useState('');
  const [remember, setRemember] = useState(initial.remember);
  const [error, setError] = useState<string | null>(() => (refreshFailed() ? 'Failed to refresh token.' : null));
  const login = useLogin();
  // Forgotten once shown (after the first commit: a render React throws away must not use it up).
  useEffect(forgetRefreshFailure, []);


  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = loginRequest.safeParse({ email, password });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? 'Please enter both fields.');
      return;
    }
    setError(null);
    login.mutate(parsed.data, {
      onSuccess: (res) => {
        writeRemembered(parsed.data.email, remember);
        sessionStore.signIn(res.user, res.access_token);
        // A verified user is sent on by the guest-only guard (to the remembered page or the dashboard).
        if (!res.user.uac) navigate('/users/account-not-verified', { replace: true });
      },
      onError: (err) => {
        if (err instanceof ApiError && err.status > 0) setError(errorMessage(err, 'Failed SignIn'));
        else if (err instanceof ApiError) setError('Something went wrong, please try later.');
        else setError('Failed to login. Please try again.');
      },
    });
  };

  return (
    <AuthLayout
      title="Sign in"
      subtitle="Welcome back. Sign in to your journal."
      footer={
        <>
          <Link to="/">Homepage</Link>
          <span aria-hidden="true">·</span>
          <span>
            Not registered? <Link to="/signup">Create an account</Link>
          </span>
        </>
      }
    >
      {error && (
        <Alert tone="danger" onClose={() => setError(null)}>
          {error}
        </Alert>
      )}
      <form className="form" onSubmit={onSubmit} noValidate>
        <FormField label="Email">
          {({ id }) => (
            <TextInput
              id={id}
              name="email"
              type="email"
              inputMode="email"
              autoComplete="username"
              value={email}
              onChange={(e) => setEmail(e.target.value.toLowerCase())}
              placeholder="you@example.com"
            />
          )}
        </FormField>
        {/* The link follows the password field, not its label: Tab goes Email, Password, then the link
            (QA: beside the label it took the Tab meant for Password). */}
        <FormField label="Password">
          {({ id }) => (
            <>
              <PasswordInput id={id} name="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
              <Link to="/users/reset-password-request" className="signin-forgot-link">
                Forgot password?
              </Link>
            </>
          )}
        </FormField>
        <Checkbox name="remember" label="Remember me" checked={remember} onChange={(e) => setRemember(e.target.checked)} />
        <Button type="submit" size="lg" block loading={login.isPending}>
          {login.isPending ? 'Signing in...' : 'Sign in'}
        </Button>
      </form>
    </AuthLayout>
  );
}
