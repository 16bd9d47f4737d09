import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { adminSearchForm } from '@oj/contracts/users';
import { ApiError } from '@/lib/api-client.ts';
import { formatDate } from '@/lib/format.ts';
import { PageHeader } from '@/components/layout/page-header.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Badge } from '@/components/ui/badge.tsx';
import { Button } from '@/components/ui/button.tsx';
import { FormField, TextInput } from '@/components/ui/form-field.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { RestrictedArea } from '@/features/auth/components/role-gate.tsx';
import { useSession } from '@/features/auth/hooks/use-session.ts';
import { adminUserQueryOptions, useAdminUser } from '../api/get-admin-user.ts';
import '../admin.css';

function failureText(error: unknown): string {
  if (error instanceof ApiError) {
    if (typeof error.detail === 'string' && error.detail) return error.detail;
    if (error.message) return error.message;
  }
  return 'Failed to fetch user data';
}

const yesNo = (v: boolean) => <Badge tone={v ? 'success' : 'neutral'}>{v ? 'Yes' : 'No'}</Badge>;

/** /admin/users/user: look a user up by e-mail. Only privilege Admin sees it. */
export function AdminUserRoute() {
  const session = useSession();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [input, setInput] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [searched, setSearched] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const user = useAdminUser(error ? null : searched);

  if (!session.isAdmin) {
    return <RestrictedArea title="Administrators only" description="This area is reserved for administrators." />;
  }

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = adminSearchForm.safeParse({ email: input });
    if (!parsed.success) {
      setFieldError(parsed.error.issues[0]?.message ?? 'Email is required.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await queryClient.fetchQuery(adminUserQueryOptions(parsed.data.email));
      setSearched(parsed.data.email);
      toast.success('User found successfully!');
    } catch (err) {
      setSearched(null);
      setError(failureText(err));
    } finally {
      setBusy(false);
    }
  };

  const u = user.data;
  return (
    <>
      <PageHeader title="User Profile" breadcrumb={[{ label: 'Admin' }, { label: 'User Profile' }]} />
      <div className="card admin-search">
        <form className="admin-search-form" onSubmit={(e) => void onSubmit(e)} noValidate>
          <FormField label="User e-mail" error={fieldError}>
            {({ id, describedBy, invalid }) => (
              <TextInput
                id={id}
                type="email"
                value={input}
                onChange={(e) => {
                  setInput(e.target.value);
                  setFieldError(null);
                }}
                aria-invalid={invalid}
                aria-describedby={describedBy}
                placeholder="user@example.com"
              />
            )}
          </FormField>
          <Button type="submit" loading={busy}>
            Search
          </Button>
        </form>
        {error && <Alert tone="danger">{error}</Alert>}
      </div>
      {u && (
        <section className="card admin-user" aria-label="User details">
          <h2>{u.name}</h2>
          <dl className="details-grid">
            <dt>E-mail</dt>
            <dd>{u.email}</dd>
            <dt>User id</dt>
            <dd className="mono">{u.uid}</dd>
            <dt>Username</dt>
            <dd>{u.username ?? '—'}</dd>
            <dt>Role</dt>
            <dd>{u.role_uid}</dd>
            <dt>User since</dt>
            <dd>{formatDate(u.user_since)}</dd>
            <dt>Website</dt>
            <dd>{u.website ?? '—'}</dd>
            <dt>Bio</dt>
            <dd>{u.bio ?? '—'}</dd>
            <dt>Account confirmed</dt>
            <dd>{yesNo(u.account_confirmed)}</dd>
            <dt>Has trade account</dt>
            <dd>{yesNo(u.has_trade_account)}</dd>
            <dt>Agreed to terms</dt>
            <dd>{yesNo(u.agreed_to_terms)}</dd>
          </dl>
        </section>
      )}
    </>
  );
}
