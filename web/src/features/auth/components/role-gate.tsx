import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { RoleName } from '@oj/contracts/users';
import { EmptyState } from '@/components/ui/empty-state.tsx';
import { Icon } from '@/components/ui/icons.tsx';
import { useSession } from '../hooks/use-session.ts';

/**
 * What a staff screen shows a role it is not for: a lock, who the screen is for, and the way back. The
 * server refuses those roles anyway (403); this says so before anything is typed or asked.
 */
export function RestrictedArea({ title, description }: { title: string; description: string }) {
  return (
    <div className="card">
      <EmptyState
        icon={<Icon name="lock" size={26} />}
        title={title}
        description={<p>{description}</p>}
        action={
          <Link to="/dashboard" className="btn btn-secondary btn-md">
            Back to dashboard
          </Link>
        }
      />
    </div>
  );
}

/** The children for the given roles; `RestrictedArea` for everyone else. */
export function RoleGate({ roles, title, description, children }: { roles: readonly RoleName[]; title: string; description: string; children: ReactNode }) {
  const { privilege } = useSession();
  if (privilege === 7 || !roles.includes(privilege)) return <RestrictedArea title={title} description={description} />;
  return <>{children}</>;
}
