/**
 * What a trader had typed into a form when the session ran out. A session that cannot be refreshed ends
 * with a full navigation to the sign-in page (features/auth/session-store.ts), which drops every
 * component's state: a trade typed in and submitted at that moment was neither saved nor kept. Forms that
 * hold typed input register a snapshot here while they are open; when the session runs out (not on a
 * sign-out) the snapshots are written to this tab's sessionStorage with the user's id, and the form takes
 * its own back once the same user has signed in again, within the hour. Another user signing in on the
 * tab, a sign-out, or the hour passing discards them unread.
 */
const STORAGE_KEY = 'oj.session.drafts';
/** A draft older than this is not offered back: the trader has moved on. */
export const DRAFT_MAX_AGE_MS = 60 * 60_000;

interface StoredDrafts {
  userId: string;
  at: number;
  drafts: Record<string, unknown>;
}

/** Returns the form's input to keep, or undefined when there is nothing worth keeping (nothing typed). */
type Snapshot = () => unknown;
const open = new Map<string, Snapshot>();

/** While the form `key` is open: `snapshot` is what to keep of it if the session runs out. */
export function keepOnSessionEnd(key: string, snapshot: Snapshot): () => void {
  open.set(key, snapshot);
  return () => {
    if (open.get(key) === snapshot) open.delete(key);
  };
}

/** The session of `userId` ran out: keeps every open form's input for the next sign-in of that user. */
export function saveDraftsForSessionEnd(userId: string | null | undefined, now = Date.now()): void {
  if (!userId) return;
  const drafts: Record<string, unknown> = {};
  for (const [key, snapshot] of open) {
    const value = snapshot();
    if (value !== undefined) drafts[key] = value;
  }
  if (Object.keys(drafts).length === 0) return;
  try {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ userId, at: now, drafts } satisfies StoredDrafts));
  } catch {
    // storage unavailable or full: the input is lost, as it was before
  }
}

function read(): StoredDrafts | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const parsed = JSON.parse(raw) as Partial<StoredDrafts> | null;
    if (!parsed || typeof parsed.userId !== 'string' || typeof parsed.at !== 'number' || typeof parsed.drafts !== 'object' || parsed.drafts === null) return null;
    return parsed as StoredDrafts;
  } catch {
    return null;
  }
}

/**
 * The input kept for the form `key` of `userId`, if any and fresh; unread otherwise. Reading does not
 * remove it (a render may be repeated): `dropSessionDraft` does, once the form shows it.
 */
export function peekSessionDraft(key: string, userId: string | null | undefined, now = Date.now()): unknown {
  const stored = read();
  if (!stored) return undefined;
  if (stored.userId !== userId || now - stored.at > DRAFT_MAX_AGE_MS) {
    forgetSessionDrafts();
    return undefined;
  }
  return stored.drafts[key];
}

/** `userId` signed in on this tab: input kept for anybody else is dropped unread. */
export function keepSessionDraftsOnlyFor(userId: string): void {
  const stored = read();
  if (stored && stored.userId !== userId) forgetSessionDrafts();
}

/** The form `key` has its input back: it is not offered again. */
export function dropSessionDraft(key: string): void {
  const stored = read();
  if (!stored || !(key in stored.drafts)) return;
  delete stored.drafts[key];
  try {
    if (Object.keys(stored.drafts).length === 0) sessionStorage.removeItem(STORAGE_KEY);
    else sessionStorage.setItem(STORAGE_KEY, JSON.stringify(stored));
  } catch {
    // storage unavailable: nothing to drop
  }
}

/** A sign-out: nothing typed before it is offered to whoever signs in next on this tab. */
export function forgetSessionDrafts(): void {
  try {
    sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // storage unavailable: nothing kept
  }
}

/**
 * `saved` read as `base`'s shape: each of `base`'s fields that `saved` has with the same type (a string,
 * or an array of strings), the rest from `base`. What comes back from storage is never trusted further.
 */
export function restoreShape<T extends object>(base: T, saved: unknown): T {
  if (!saved || typeof saved !== 'object') return base;
  const out = { ...base } as Record<string, unknown>;
  for (const [key, value] of Object.entries(base)) {
    const candidate = (saved as Record<string, unknown>)[key];
    if (typeof value === 'string' && typeof candidate === 'string') out[key] = candidate;
    else if (Array.isArray(value) && Array.isArray(candidate) && candidate.every((c) => typeof c === 'string')) out[key] = candidate;
  }
  return out as T;
}
