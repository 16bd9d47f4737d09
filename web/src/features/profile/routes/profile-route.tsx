import { useState } from 'react';
import { Link } from 'react-router';
import { formatDate } from '@/lib/format.ts';
import { PageHeader } from '@/components/layout/page-header.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Avatar } from '@/components/ui/avatar.tsx';
import { Badge } from '@/components/ui/badge.tsx';
import { Icon } from '@/components/ui/icons.tsx';
import { Button } from '@/components/ui/button.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { useCurrentUser } from '../api/get-current-user.ts';
import { ChangePasswordCard } from '../components/change-password-card.tsx';
import { JournalAccessCard } from '../components/journal-access-card.tsx';
import { ProfileForm } from '../components/profile-form.tsx';
import { ProfileImageButton } from '../components/profile-image-button.tsx';
import { maskEmail } from '../utils/mask-email.ts';
import '../components/profile.css';

const statusLabels: Record<number, string> = { 1: 'Free trial', 2: 'Active', 3: 'Expired', 4: 'Canceled', 5: 'Grace period', 6: 'Pending', 7: 'Unknown' };

export function ProfileRoute() {
  const profile = useCurrentUser();
  const [showEmail, setShowEmail] = useState(false);
  const [imageError, setImageError] = useState<string | null>(null);

  if (profile.isPending) return <p className="muted">Loading user profile...</p>;
  if (profile.isError)
    return (
      <>
        <PageHeader title="Profile" breadcrumb={[{ label: 'Home', to: '/dashboard' }, { label: 'Profile' }]} />
        <Alert tone="danger" title={errorMessage(profile.error, 'Failed to fetch profile.')}>
          <Button variant="secondary" size="sm" onClick={() => void profile.refetch()} loading={profile.isFetching}>
            Try again
          </Button>
        </Alert>
      </>
    );
  const u = profile.data;
  const staff = u.role !== 'User';

  return (
    <>
      <PageHeader title="Profile" breadcrumb={[{ label: 'Home', to: '/dashboard' }, { label: 'Profile' }]} />
      <div className="profile-grid">
        <section className="card profile-card" aria-label="Profile">
          <div className="profile-cover" style={u.bg_image ? { backgroundImage: `url(${u.bg_image})` } : undefined} />
          <div className="profile-card-body">
            <div className="profile-avatar">
              <Avatar src={u.avatar} name={u.name} size={88} />
            </div>
            <h2 className="profile-name">{u.name}</h2>
            <div className="profile-email">
              <span>{showEmail ? u.email : maskEmail(u.email)}</span>
              <button type="button" className="icon-button" aria-label={showEmail ? 'Hide e-mail' : 'Show e-mail'} aria-pressed={showEmail} onClick={() => setShowEmail((s) => !s)}>
                <Icon name={showEmail ? 'eyeOff' : 'eye'} size={16} />
              </button>
            </div>
            {u.username && <div className="muted profile-username">@{u.username}</div>}
            <div className="profile-image-actions">
              <ProfileImageButton imageFor="avatar" onError={setImageError} />
              <ProfileImageButton imageFor="cover" onError={setImageError} />
            </div>
            {imageError && (
              <Alert tone="danger" onClose={() => setImageError(null)}>
                {imageError}
              </Alert>
            )}
          </div>
        </section>
        <section className="card" aria-labelledby="account-status-title">
          <h2 id="account-status-title" className="card-title">
            Account Status
          </h2>
          <dl className="details-grid">
            <dt>E-mail verified</dt>
            <dd>{u.account_confirmed ? <Badge tone="success">Verified</Badge> : <Badge tone="warning">Not verified</Badge>}</dd>
            <dt>Subscription</dt>
            <dd>
              {staff ? <Badge tone="primary">{u.role === 'Admin' ? 'Admin Subscription' : 'Superuser Subscription'}</Badge> : <Badge tone={u.subs_status <= 2 ? 'success' : 'danger'}>{statusLabels[u.subs_status] ?? 'Unknown'}</Badge>}{' '}
              <Link to="/subscription">Manage</Link>
            </dd>
            <dt>Trade account</dt>
            <dd>{u.has_trade_account ? 'Yes' : <Link to="/accounts">Add your first trade account</Link>}</dd>
            <dt>Member since</dt>
            <dd>{formatDate(u.user_since)}</dd>
          </dl>
        </section>
        <ProfileForm user={u} />
        <ChangePasswordCard />
        <JournalAccessCard />
      </div>
    </>
  );
}
