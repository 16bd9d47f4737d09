import { useEffect, useState, type FormEvent } from 'react';
import {
  profileMessages,
  profileNameProblems,
  usernameProblems,
  websiteProblems,
  type CurrentUser,
  type ProfileField,
  type UpdateProfileRequest,
} from '@oj/contracts/users';
import { ApiError, errorMessage } from '@/lib/api-client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { FormField, TextInput } from '@/components/ui/form-field.tsx';
import { useOneSubmission } from '@/lib/use-one-submission.ts';
import { restoreShape } from '@/lib/session-drafts.ts';
import { useKeptInput } from '@/features/auth/hooks/use-kept-input.ts';
import { useUpdateProfile } from '../api/update-profile.ts';
import { maskEmail } from '../utils/mask-email.ts';
import { useClearAfter } from '../hooks/use-clear-after.ts';

type Values = Record<ProfileField, string>;

const savedValues = (u: CurrentUser): Values => ({ name: u.name, username: u.username ?? '', website: u.website ?? '' });
// The same rule functions the server runs (contracts/users.ts): the form can never accept what the server refuses.
const problemsOf: Record<ProfileField, (v: string) => string[]> = {
  name: profileNameProblems,
  username: usernameProblems,
  website: (v) => websiteProblems(v.trim()),
};

/** The fields that differ from the saved profile: the only ones sent (part 2 §5). */
export function changedFields(saved: Values, values: Values): UpdateProfileRequest {
  const out: UpdateProfileRequest = {};
  if (values.name !== saved.name) out.name = values.name;
  if (values.username !== saved.username) out.username = values.username;
  if (values.website.trim() !== saved.website) out.website = values.website.trim();
  return out;
}

const PROFILE_SUCCESS_MS = 3000;

const PROFILE_RESTORED = 'Your session ended before your profile was updated, so nothing was saved. What you had entered is back: check it, then update.';

/** Profile form: name, username and website; e-mail read-only. Update only when changed and valid; Reset restores. */
export function ProfileForm({ user }: { user: CurrentUser }) {
  const saved = savedValues(user);
  const [values, setValues] = useState<Values>(saved);
  const [serverErrors, setServerErrors] = useState<Partial<Record<ProfileField, string>>>({});
  const [message, setMessage] = useState<{ tone: 'success' | 'danger' | 'info'; text: string } | null>(null);
  const update = useUpdateProfile();

  // A success goes away after 3 seconds, as the password card's does; an error stays until the next change
  // (QA: "Profile updated successfully!" stayed on beside a later failed picture upload).
  useClearAfter(message?.tone === 'success' ? message : null, () => setMessage(null), PROFILE_SUCCESS_MS);

  // A newer saved profile (another tab, a refetch) becomes the form's starting point.
  const savedKey = `${user.name}\u0000${user.username ?? ''}\u0000${user.website ?? ''}`;
  useEffect(() => {
    setValues(savedValues(user));
  }, [savedKey]);
  // Changes typed as the session runs out come back after the sign-in (after the effect above, which
  // starts the form from the saved profile), still to be checked and sent.
  useKeptInput(
    'profile',
    () => (Object.keys(changedFields(saved, values)).length === 0 ? undefined : values),
    (kept) => {
      setValues(restoreShape(saved, kept));
      setMessage({ tone: 'info', text: PROFILE_RESTORED });
    },
  );

  const errors = Object.fromEntries((Object.keys(problemsOf) as ProfileField[]).map((f) => [f, problemsOf[f](values[f])[0] ?? serverErrors[f] ?? null])) as Record<ProfileField, string | null>;
  const changes = changedFields(saved, values);
  const changed = Object.keys(changes).length > 0;
  const valid = Object.values(errors).every((e) => e === null);

  const set = (field: ProfileField, value: string) => {
    setValues((v) => ({ ...v, [field]: value }));
    setServerErrors((e) => ({ ...e, [field]: undefined }));
    setMessage(null);
  };

  const once = useOneSubmission();
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!changed || !valid) return;
    once((settled) => update.mutate(changes, {
      onSettled: settled,
      onSuccess: () => setMessage({ tone: 'success', text: profileMessages.updated }),
      onError: (error) => {
        if (error instanceof ApiError && error.status === 409) setServerErrors({ username: error.message });
        else if (error instanceof ApiError && error.status === 422) {
          const field = (Array.isArray(error.detail) ? (error.detail[0] as { field?: string } | undefined)?.field : undefined)?.split('.').at(-1);
          if (field === 'name' || field === 'username' || field === 'website') setServerErrors({ [field]: error.message });
          else setMessage({ tone: 'danger', text: error.message });
        } else setMessage({ tone: 'danger', text: errorMessage(error, profileMessages.failed) });
      },
    }));
  };

  const reset = () => {
    setValues(saved);
    setServerErrors({});
    setMessage(null);
  };

  const field = (key: ProfileField, label: string, props: { autoComplete: string; placeholder?: string; required?: boolean; hint?: string }) => (
    <FormField label={label} error={errors[key]} required={props.required} hint={props.hint}>
      {({ id, describedBy, invalid }) => (
        <TextInput
          id={id}
          name={key}
          value={values[key]}
          autoComplete={props.autoComplete}
          placeholder={props.placeholder}
          spellCheck={false}
          onChange={(e) => set(key, e.target.value)}
          aria-invalid={invalid}
          aria-describedby={describedBy}
        />
      )}
    </FormField>
  );

  return (
    <section className="card" aria-labelledby="profile-form-title">
      <h2 id="profile-form-title" className="card-title">
        Profile
      </h2>
      {message && <Alert tone={message.tone}>{message.text}</Alert>}
      <form className="form" onSubmit={onSubmit} noValidate aria-label="Profile form">
        {field('name', 'Name', { autoComplete: 'name', required: true })}
        {field('username', 'Username', { autoComplete: 'username', placeholder: 'optional', hint: '2 to 15 lower-case letters, digits, _ or .' })}
        {field('website', 'Website', { autoComplete: 'url', placeholder: 'optional', hint: '4 to 20 characters' })}
        <FormField label="E-mail" hint="Your sign-in address cannot be changed here.">
          {({ id, describedBy }) => <TextInput id={id} name="email" value={maskEmail(user.email)} readOnly aria-readonly="true" aria-describedby={describedBy} />}
        </FormField>
        <div className="form-actions">
          <Button variant="secondary" onClick={reset} disabled={!changed || update.isPending}>
            Reset
          </Button>
          <Button type="submit" disabled={!changed || !valid} loading={update.isPending}>
            Update
          </Button>
        </div>
      </form>
    </section>
  );
}
