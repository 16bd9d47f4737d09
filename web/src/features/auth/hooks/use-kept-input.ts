import { useEffect, useRef, useState } from 'react';
import { dropSessionDraft, keepOnSessionEnd, peekSessionDraft } from '@/lib/session-drafts.ts';
import { useSession } from './use-session.ts';

/**
 * A form's typed input outlives a session that runs out (lib/session-drafts.ts). While the form is on
 * screen, `snapshot()` is what to keep should the session run out now (undefined while nothing was typed).
 * Shown again to the same user after the sign-in, the form gets that back through `restore`, once (read
 * back from storage, so `restore` trusts nothing of its shape: `restoreShape` reads it as the form's), and
 * the hook answers true from then on so the form can say why its fields are filled. A key that several
 * forms share (the one-trade dialogs') gives it back only where `accepts` says it belongs, and leaves it
 * for that form otherwise.
 *
 * Passwords are never given to it: what it keeps sits in the tab's sessionStorage until the sign-in.
 */
export function useKeptInput(key: string, snapshot: () => unknown, restore: (kept: unknown) => void, accepts: (kept: unknown) => boolean = () => true): boolean {
  const userId = useSession().user?.user_uid;
  const latest = useRef({ snapshot, restore, accepts });
  latest.current = { snapshot, restore, accepts };
  const [restored, setRestored] = useState(false);
  useEffect(() => keepOnSessionEnd(key, () => latest.current.snapshot()), [key]);
  useEffect(() => {
    const kept = peekSessionDraft(key, userId);
    if (kept === undefined || !latest.current.accepts(kept)) return;
    dropSessionDraft(key);
    latest.current.restore(kept);
    setRestored(true);
  }, [key, userId]);
  return restored;
}
