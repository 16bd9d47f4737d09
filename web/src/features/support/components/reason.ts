/**
 * The reason support gave for opening a user's history, kept for the browser tab's session only
 * (sessionStorage): every call carries it and the server logs it with each read. Closing the tab forgets
 * it, so a later visit asks again.
 */
const key = (uid: string) => `oj.audit.reason.${uid}`;

export function savedReason(uid: string): string | null {
  try {
    return sessionStorage.getItem(key(uid));
  } catch {
    return null;
  }
}

export function saveReason(uid: string, reason: string): void {
  try {
    sessionStorage.setItem(key(uid), reason);
  } catch {
    // Private mode without storage: the reason lives in the page's state only.
  }
}

