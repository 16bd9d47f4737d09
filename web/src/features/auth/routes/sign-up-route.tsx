import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import {
  email as emailSchema,
  nameProblems,
  passwordChecklist,
  passwordMessages,
  SIGNUP_PASSWORD_MIN,
  SIGNUP_SUCCESS_MESSAGE,
  signupForm,
} from '@oj/contracts/users';
import { ApiError, errorMessage } from '@/lib/api-client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Checkbox, FormField, PasswordInput, TextInput } from '@/components/ui/form-field.tsx';
import { LegalDialog } from '@/components/legal/legal-dialog.tsx';
import { useSignUp } from '../api/sign-up.ts';
import { AuthLayout } from '../components/auth-layout.tsx';
import { RequirementList } from '../components/requirement-list.tsx';
import { useBilling } from '@/lib/console-config.ts';

const empty = { name: '', email: '', password: '', confirmPassword: '', termsAccepted: false };
const untouched = { name: false, email: false, password: false, confirmPassword: false, terms: false };
type Message = { tone: 'success' | 'danger'; text: string } | null;

export function SignUpRoute() {
  const billing = useBilling();
  const [values, setValues] = useState(empty);
  const [touched, setTouched] = useState(untouched);
  const [message, setMessage] = useState<Message>(null);
  const [legal, setLegal] = useState<'terms' | 'privacy' | null>(null);
  const signUp = useSignUp();
  const termsErrorId = useId();

  const nameIssues = touched.name ? nameProblems(values.name) : [];
  const emailCheck = emailSchema.safeParse(values.email);
  const emailIssues = touched.email && !emailCheck.success ? emailCheck.error.issues.map((i) => i.message) : [];
  const passwordIssues =
    values.password === ''
      ? touched.password
        ? [passwordMessages.required]
        : []
      : passwordChecklist(values.password, SIGNUP_PASSWORD_MIN)
          .filter((r) => !r.ok)
          .map((r) => r.label);
  // Part 1 §5: the summary message over the live checklist, once something has been typed.
  const passwordWeak = values.password !== '' && passwordIssues.length > 0;
  const confirmIssue = values.confirmPassword !== '' && values.confirmPassword !== values.password ? passwordMessages.mismatch : null;
  const parsed = signupForm.safeParse(values);
  // The terms message shows once the box was unchecked, or once it is all that keeps Sign up disabled.
  const onlyTermsMissing = !values.termsAccepted && signupForm.safeParse({ ...values, termsAccepted: true }).success;
  const termsIssue = !values.termsAccepted && (touched.terms || onlyTermsMissing) ? passwordMessages.terms : null;

  const set = <K extends keyof typeof empty>(key: K, value: (typeof empty)[K]) => {
    setValues((v) => ({ ...v, [key]: value }));
    if (message?.tone === 'danger') setMessage(null);
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    setTouched({ name: true, email: true, password: true, confirmPassword: true, terms: true });
    if (!parsed.success) {
      setMessage({ tone: 'danger', text: parsed.error.issues[0]?.message ?? 'An unexpected error occurred.' });
      return;
    }
    const f = parsed.data;
    signUp.mutate(
      { name: f.name, email: f.email, password: f.password, agreed_to_terms: true },
      {
        onSuccess: () => {
          setValues(empty);
          setTouched(untouched);
          setMessage({ tone: 'success', text: SIGNUP_SUCCESS_MESSAGE });
        },
        onError: (error) => {
          // errorMessage gives a network failure's own text (status 0) as it is.
          const text = error instanceof ApiError ? errorMessage(error, 'Failed to create an account.') : 'An unexpected error occurred.';
          setMessage({ tone: 'danger', text });
        },
      },
    );
  };

  return (
    <AuthLayout
      title="Create an account"
      subtitle={billing ? 'Start your 30-day free trial. No card needed.' : 'Every feature, free on this installation. No card needed.'}
      footer={
        <>
          <Link to="/">Homepage</Link>
          <span aria-hidden="true">·</span>
          <span>
            Already have an account? <Link to="/signin">Sign in</Link>
          </span>
        </>
      }
    >
      {message && (
        <Alert tone={message.tone} onClose={() => setMessage(null)}>
          {message.text}
        </Alert>
      )}
      <form className="form" onSubmit={onSubmit} noValidate>
        <FormField label="Full Name">
          {({ id }) => (
            <>
              <TextInput
                id={id}
                name="name"
                autoComplete="name"
                value={values.name}
                onChange={(e) => set('name', e.target.value)}
                onBlur={() => setTouched((t) => ({ ...t, name: true }))}
                aria-invalid={nameIssues.length > 0}
                aria-describedby={nameIssues.length ? `${id}-rules` : undefined}
                placeholder="Jane Doe"
              />
              <RequirementList id={`${id}-rules`} label="Name requirements" items={nameIssues} />
            </>
          )}
        </FormField>
        <FormField label="Your Email">
          {({ id }) => (
            <>
              <TextInput
                id={id}
                name="email"
                type="email"
                autoComplete="email"
                inputMode="email"
                value={values.email}
                onChange={(e) => set('email', e.target.value.toLowerCase())}
                onBlur={() => setTouched((t) => ({ ...t, email: true }))}
                aria-invalid={emailIssues.length > 0}
                aria-describedby={emailIssues.length ? `${id}-rules` : undefined}
                placeholder="you@example.com"
              />
              <RequirementList id={`${id}-rules`} label="Email requirements" items={emailIssues} />
            </>
          )}
        </FormField>
        <FormField label="Your Password">
          {({ id }) => (
            <>
              <PasswordInput
                id={id}
                name="password"
                autoComplete="new-password"
                value={values.password}
                onChange={(e) => set('password', e.target.value)}
                onBlur={() => setTouched((t) => ({ ...t, password: true }))}
                aria-invalid={passwordIssues.length > 0}
                aria-describedby={passwordIssues.length ? (passwordWeak ? `${id}-error ${id}-rules` : `${id}-rules`) : undefined}
              />
              {passwordWeak && (
                <div id={`${id}-error`} className="field-error" role="alert">
                  {passwordMessages.weak}
                </div>
              )}
              <RequirementList id={`${id}-rules`} label="Password requirements" items={passwordIssues} />
            </>
          )}
        </FormField>
        <FormField label="Confirm Password" error={confirmIssue}>
          {({ id, describedBy }) => (
            <PasswordInput
              id={id}
              name="confirmPassword"
              autoComplete="new-password"
              value={values.confirmPassword}
              onChange={(e) => set('confirmPassword', e.target.value)}
              aria-invalid={Boolean(confirmIssue)}
              aria-describedby={describedBy}
            />
          )}
        </FormField>
        <div className={`field${termsIssue ? ' field-invalid' : ''}`}>
          <Checkbox
            name="termsAccepted"
            checked={values.termsAccepted}
            onChange={(e) => {
              set('termsAccepted', e.target.checked);
              setTouched((t) => ({ ...t, terms: true }));
            }}
            aria-invalid={Boolean(termsIssue)}
            aria-describedby={termsIssue ? termsErrorId : undefined}
            label={
              <>
                I agree to the{' '}
                <button type="button" className="link-button" onClick={() => setLegal('terms')}>
                  Terms of Service
                </button>{' '}
                and the{' '}
                <span className="nowrap">
                  <button type="button" className="link-button" onClick={() => setLegal('privacy')}>
                    Privacy Policy
                  </button>
                  ,
                </span>{' '}
                and I am 18 or older.
              </>
            }
          />
          {termsIssue && (
            <div id={termsErrorId} className="field-error" role="alert">
              {termsIssue}
            </div>
          )}
        </div>
        <Button type="submit" size="lg" block disabled={!parsed.success} loading={signUp.isPending}>
          {signUp.isPending ? 'Signing up...' : 'Sign up'}
        </Button>
      </form>
      <LegalDialog which={legal} onClose={() => setLegal(null)} />
    </AuthLayout>
  );
}
