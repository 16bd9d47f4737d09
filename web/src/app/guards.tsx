import { Navigate, Outlet, useLocation } from 'react-router';
import { useSession } from '@/features/auth/hooks/use-session.ts';
import { returnPathOf } from '@/features/auth/session-store.ts';

export const NOT_VERIFIED_PATH = '/users/account-not-verified';

/** Where the user was going when the guard sent them to /signin (read by the sign-in page). */
export interface FromState {
  from?: { pathname: string; search: string; hash: string };
}

/** Signed in (a stored user id) is enough: the not-verified page. */
export function RequireSignedIn() {
  const session = useSession();
  const location = useLocation();
  if (!session.isSignedIn) return <Navigate to="/signin" replace state={{ from: location } satisfies FromState} />;
  return <Outlet />;
}

/** Private pages: signed in and verified (uac). */
export function RequireVerified() {
  const session = useSession();
  const location = useLocation();
  if (!session.isSignedIn) return <Navigate to="/signin" replace state={{ from: location } satisfies FromState} />;
  if (!session.isVerified && location.pathname !== NOT_VERIFIED_PATH) return <Navigate to={NOT_VERIFIED_PATH} replace />;
  return <Outlet />;
}

/** Sign-up and sign-in: a signed-in verified user goes to the page the guard remembered, else the dashboard. */
export function GuestOnly() {
  const session = useSession();
  const location = useLocation();
  if (session.isSignedIn && session.isVerified) {
    const from = (location.state as FromState | null)?.from;
    // The guard's remembered page, else the page a session that ran out was on (`/signin?next=`).
    const to = from?.pathname && from.pathname !== '/signin' && from.pathname !== '/signup' ? `${from.pathname}${from.search}${from.hash}` : (returnPathOf(location.search) ?? '/dashboard');
    return <Navigate to={to} replace />;
  }
  return <Outlet />;
}
