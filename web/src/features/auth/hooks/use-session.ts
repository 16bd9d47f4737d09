import { useSyncExternalStore } from 'react';
import { isSubscriptionActive, logout, sessionStore, type Privilege, type SessionUser } from '../session-store.ts';

export interface Session {
  user: SessionUser | null;
  accessToken: string | null;
  /** Role from the access token, or 7 when there is none. */
  privilege: Privilege;
  /** Subscription status code from the token (1 trial, 2 active, 3 expired, 4 canceled, 5 due, 6 pending, 7 unknown), null without a token. */
  subsStatus: number | null;
  /** Signed in = a stored user id. */
  isSignedIn: boolean;
  /** Verified = the user's uac flag. */
  isVerified: boolean;
  isAdmin: boolean;
  /** Trial or active, or a staff role. */
  subscriptionActive: boolean;
  signIn: typeof sessionStore.signIn;
  updateUser: typeof sessionStore.updateUser;
  logout: typeof logout;
}

export function useSession(): Session {
  const s = useSyncExternalStore(sessionStore.subscribe, sessionStore.getState, sessionStore.getState);
  return {
    user: s.user,
    accessToken: s.accessToken,
    privilege: s.privilege,
    subsStatus: s.subsStatus,
    isSignedIn: Boolean(s.user?.user_uid),
    isVerified: Boolean(s.user?.uac),
    isAdmin: s.privilege === 'Admin',
    subscriptionActive: isSubscriptionActive(s),
    signIn: sessionStore.signIn,
    updateUser: sessionStore.updateUser,
    logout,
  };
}
