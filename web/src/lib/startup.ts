import { useSyncExternalStore } from 'react';
import { startupProgress, type StartupProgress } from '@oj/contracts/common';

/**
 * The journal's start, as this tab sees it. While the server brings its read models up to date (after an
 * upgrade whose formulas changed, or a journal restored while stopped) every API request is refused with
 * a 503 naming the progress (contracts: `startupProgress`). The API client does not fail such a request:
 * it waits here until the journal answers and sends it again (it was refused before anything ran, so
 * nothing was written), and the StartupScreen shows the progress meanwhile. One poll of readiness serves
 * every waiting request.
 */
let progress: StartupProgress | null = null;
let waiting: Promise<void> | null = null;
const listeners = new Set<() => void>();

const set = (next: StartupProgress | null) => {
  progress = next;
  for (const l of listeners) l();
};

/** The progress named by a 503's detail, or null when the answer is not the start's refusal. */
export function startupProgressOf(detail: unknown): StartupProgress | null {
  const parsed = startupProgress.safeParse(detail);
  return parsed.success ? parsed.data : null;
}

export const STARTUP_POLL_MS = 1000;

/**
 * Resolves once `check` says the journal answers (null), asking it every STARTUP_POLL_MS meanwhile and
 * showing what it says. A failed check (the server restarting) is asked again.
 */
export function waitUntilStarted(seen: StartupProgress, check: () => Promise<StartupProgress | null>): Promise<void> {
  if (!progress) set(seen);
  waiting ??= (async () => {
    try {
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, STARTUP_POLL_MS));
        const now = await check().catch(() => progress);
        if (!now) return;
        set(now);
      }
    } finally {
      waiting = null;
      set(null);
    }
  })();
  return waiting;
}

/** What the journal's start still does, or null while it answers. */
export function useStartupProgress(): StartupProgress | null {
  return useSyncExternalStore(
    (onChange) => (listeners.add(onChange), () => listeners.delete(onChange)),
    () => progress,
    () => null,
  );
}
