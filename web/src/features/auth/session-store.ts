import { roleName, staffRoles, type RoleName, type SessionUser } from '@oj/contracts/users';
import { apiRequest, configureApiClient, refreshAccessToken } from '@/lib/api-client.ts';
import { jwtPayload } from '@/lib/jwt.ts';
import { forgetSessionDrafts, keepSessionDraftsOnlyFor, saveDraftsForSessionEnd } from '@/lib/session-drafts.ts';

export type { SessionUser };

/**
 * The browser session. The stored user (from login) says who is signed in and whether they verified the
 * e-mail; privilege and subscription status are derived from the access token, never stored separately,
 * so a refreshed token (new role, renewed subscription) takes effect at once.
 *
 * Both live in localStorage so every tab of the console shares one session; a logout marker written
 * there signs the other tabs out.
 */
export type Role = RoleName;
/** The role from the token; 7 when there is no token or no user in it (the spec's default). */
export type Privilege = Role | 7;

export interface SessionState {
  user: SessionUser | null;
  accessToken: string | null;
  privilege: Privilege;
  /** Subscription status code from the token: 1 trial, 2 active, 3 expired, 4 canceled, 5 due, 6 pending, 7 unknown; null without a token. */
  subsStatus: number | null;
}

const USER_KEY = 'oj.session.user';
const TOKEN_KEY = 'oj.session.token';
export const LOGOUT_MARKER_KEY = 'oj.session.logout';

interface TokenClaims {
  role?: string;
  subs_status?: number;
}

/** Reads the user claims of a JWT without verifying it (the server verifies; the console only displays). */
export function decodeTokenClaims(token: string | null): TokenClaims | null {
  const payload = token ? (jwtPayload(token) as ({ user?: TokenClaims } & TokenClaims) | null) : null;
  if (!payload) return null;
  return payload.user && typeof payload.user === 'object' ? payload.user : payload;
}

export function derivePrivilege(token: string | null): Privilege {
  const claims = decodeTokenClaims(token);
  if (!claims) return 7;
  const role = claims.role;
  const parsed = roleName.safeParse(role);
  if (parsed.success) return parsed.data;
  return 'User';
}

export function deriveSubsStatus(token: string | null): number | null {
  const claims = decodeTokenClaims(token);
  if (!claims) return null;
  return typeof claims.subs_status === 'number' ? claims.subs_status : 7;
}

/** Staff roles always have access; a User needs status 1 (trial) or 2 (active). */
export function isSubscriptionActive(state: Pick<SessionState, 'privilege' | 'subsStatus'>): boolean {
  if (state.privilege !== 7 && staffRoles.includes(state.privilege)) return true;
  return state.subsStatus === 1 || state.subsStatus === 2;
}

function readStorage(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function writeStorage(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Storage can be unavailable (private mode quotas); the in-memory session still works in this tab.
  }
}

function readUser(): SessionUser | null {
  const raw = readStorage(USER_KEY);
  if (!raw) return null;
  try {
    const u = JSON.parse(raw) as SessionUser;
    return u && typeof u.user_uid === 'string' ? u : null;
  } catch {
    return null;
  }
}

function build(user: SessionUser | null, accessToken: string | null): SessionState {
  return { user, accessToken, privilege: derivePrivilege(accessToken), subsStatus: deriveSubsStatus(accessToken) };
}

let state: SessionState = build(readUser(), readStorage(TOKEN_KEY));
const listeners = new Set<() => void>();

function emit(next: SessionState): void {
  state = next;
  for (const l of listeners) l();
}

/**
 * The logout marker's value for a session that ran out (its refresh failed), not a sign-out: the other
 * tabs end theirs as this one does, keeping what was typed and their page for the next sign-in.
 */
const EXPIRED_MARKER = 'expired';

/** Whether a logout marker's value says the session ran out (rather than a sign-out). */
function markerSaysExpired(value: string | null): boolean {
  return value?.startsWith(`${EXPIRED_MARKER}:`) === true;
}

/**
 * Removes the stored session; `broadcast` also tells the other tabs to end theirs (the logout marker),
 * as a sign-out or, `expired`, as a session that ran out. The marker goes first: each tab ends its
 * session on it while its forms are still on screen, before the user's removal re-renders anything.
 */
function forgetStoredSession(broadcast: boolean, expired = false): void {
  if (broadcast) writeStorage(LOGOUT_MARKER_KEY, expired ? `${EXPIRED_MARKER}:${Date.now()}` : String(Date.now()));
  writeStorage(USER_KEY, null);
  writeStorage(TOKEN_KEY, null);
}

export const sessionStore = {
  getState: (): SessionState => state,
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  /** After a successful login. */
  signIn(user: SessionUser, accessToken: string): void {
    keepSessionDraftsOnlyFor(user.user_uid);
    writeStorage(USER_KEY, JSON.stringify(user));
    writeStorage(TOKEN_KEY, accessToken);
    emit(build(user, accessToken));
  },
  /** After a refresh: the token's user claim is the newest truth (verified flag, name, avatar). */
  setAccessToken(accessToken: string): void {
    writeStorage(TOKEN_KEY, accessToken);
    const claims = decodeTokenClaims(accessToken) as Partial<SessionUser> | null;
    let user = state.user;
    if (user && claims && claims.user_uid === user.user_uid) {
      user = { ...user, ...claims };
      writeStorage(USER_KEY, JSON.stringify(user));
    }
    emit(build(user, accessToken));
  },
  updateUser(patch: Partial<SessionUser>): void {
    if (!state.user) return;
    const user = { ...state.user, ...patch };
    writeStorage(USER_KEY, JSON.stringify(user));
    emit(build(user, state.accessToken));
  },
  /** Forgets the session in this tab and tells the other tabs (marker) unless they told us. */
  clear(options: { broadcast?: boolean } = {}): void {
    forgetStoredSession(options.broadcast !== false);
    emit(build(null, null));
  },
  /** Re-reads storage (another tab signed in or refreshed the token). */
  reload(): void {
    emit(build(readUser(), readStorage(TOKEN_KEY)));
  },
};

/** Calls the logout endpoint (errors are logged, logout proceeds) and clears the session everywhere. */
export async function logout(): Promise<void> {
  try {
    await apiRequest('/users/logout', { method: 'POST', auth: false, headers: state.accessToken ? { Authorization: `Bearer ${state.accessToken}` } : {} });
  } catch (error) {
    console.warn('logout call failed', error);
  }
  forgetSessionDrafts();
  sessionStore.clear();
}

const SESSION_ENDED_KEY = 'oj.session.refresh-failed';

/** Whether the last session of this tab ended because its token could not be refreshed. */
export function refreshFailed(): boolean {
  try {
    return sessionStorage.getItem(SESSION_ENDED_KEY) !== null;
  } catch {
    return false;
  }
}

/** Forgets the failed refresh once the sign-in page has said so. */
export function forgetRefreshFailure(): void {
  try {
    sessionStorage.removeItem(SESSION_ENDED_KEY);
  } catch {
    // storage unavailable: nothing to forget
  }
}

let ending = false;

/**
 * Ends this tab's session with a full navigation to /signin, which drops every cached query and all
 * in-memory state along with it. Storage is cleared without a re-render: a re-render would send the
 * route guard to /signin by itself, a client-side navigation racing the full one (and a page that
 * navigates twice is one a test or a user sees flicker). Requests still in flight that fail meanwhile
 * find the session already ending.
 */
function endSession(options: { broadcast: boolean; returnHere?: boolean }): void {
  if (window.location.pathname === '/signin') {
    sessionStore.clear(options);
    return;
  }
  if (ending) return;
  ending = true;
  forgetStoredSession(options.broadcast, options.returnHere === true);
  // A session that ran out (not a sign-out) comes back where it was after signing in again (part 1: the
  // sign-in page remembers the page the user came from): a full navigation carries no router state, so
  // the page goes in the URL, where the guest-only guard reads it.
  const here = `${window.location.pathname}${window.location.search}${window.location.hash}`;
  window.location.assign(options.returnHere ? `/signin?${NEXT_PARAM}=${encodeURIComponent(here)}` : '/signin');
}

/** The query parameter of /signin that holds the page to come back to after a session ran out. */
export const NEXT_PARAM = 'next';

/** `next` when it is a page of this console (a path of this origin), else null: never an open redirect. */
export function returnPathOf(search: string): string | null {
  const next = new URLSearchParams(search).get(NEXT_PARAM);
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return null;
  const url = new URL(next, 'http://console.invalid');
  if (url.origin !== 'http://console.invalid' || url.pathname === '/signin' || url.pathname === '/signup') return null;
  return `${url.pathname}${url.search}${url.hash}`;
}

/**
 * The session could not be refreshed (here, or in another tab: `broadcast` false). The sign-in page says
 * why (part 1 §8: "Failed to refresh token."), what was typed is kept for the same user's next sign-in
 * on this tab (lib/session-drafts.ts), and the sign-in comes back to this page.
 */
function sessionRanOut(broadcast: boolean): void {
  // Told by another tab while signed out here (the sign-in page): nothing to end.
  if (ending || (!broadcast && !state.user)) return;
  try {
    sessionStorage.setItem(SESSION_ENDED_KEY, '1');
  } catch {
    // storage unavailable: the sign-in page just shows no notice
  }
  saveDraftsForSessionEnd(state.user?.user_uid);
  endSession({ broadcast, returnHere: true });
}

let installed = false;
/** The token a subscription refusal last refreshed (see `onSubscriptionRefused`). */
let subscriptionRefreshedFor: string | null = null;

/** Wires the session into the API client and listens for other tabs and back-forward cache restores. */
export function installSession(): void {
  if (installed) return;
  installed = true;
  configureApiClient({
    getAccessToken: () => readStorage(TOKEN_KEY) ?? state.accessToken,
    setAccessToken: (token) => sessionStore.setAccessToken(token),
    onSessionExpired: () => sessionRanOut(true),
    onSubscriptionRefused: (token) => {
      // The server found no active plan while this session's token still says active (QA: a renewal that
      // failed mid-session left the lists with an error banner and New Record enabled for up to 15
      // minutes). A fresh token carries the plan's status as it is now, and the locked screens follow.
      // Once per token: a fresh token that still says active is not refreshed again on every refusal.
      if (!token || token === subscriptionRefreshedFor || !isSubscriptionActive(state)) return;
      subscriptionRefreshedFor = token;
      void refreshAccessToken(token);
    },
  });
  window.addEventListener('storage', (event) => {
    if (event.key === LOGOUT_MARKER_KEY && event.newValue) {
      if (markerSaysExpired(event.newValue)) {
        // Another tab found the session ran out: it has for this tab too (before, this tab went to the
        // sign-in page as on a sign-out, and what was typed in it was lost).
        sessionRanOut(false);
      } else {
        // Another tab logged out: end this tab's session too (the server call is idempotent).
        void apiRequest('/users/logout', { method: 'POST', auth: false }).catch(() => undefined);
        endSession({ broadcast: false });
      }
    } else if ((event.key === USER_KEY || event.key === TOKEN_KEY) && !ending) {
      sessionStore.reload();
    }
  });
  window.addEventListener('pageshow', (event) => {
    // A page restored from the back-forward cache may show a signed-out user's data: start over.
    if (event.persisted && state.user) {
      // This page may have been cached while it was ending a session: end this one afresh.
      ending = false;
      endSession({ broadcast: false });
    }
  });
}
