import { useEffect } from 'react';

/** Part 1 §4 and §9: a reset success message (the request's and the new password's) shows for 5 seconds. */
export const RESET_MESSAGE_MS = 5000;

/** Clears a success message `ms` after it shows; an error stays until the next attempt. */
export function useSuccessTimeout(message: { tone: string } | null, clear: () => void, ms = RESET_MESSAGE_MS): void {
  useEffect(() => {
    if (message?.tone !== 'success') return;
    const t = window.setTimeout(clear, ms);
    return () => window.clearTimeout(t);
    // `clear` is a state setter's closure; the timer restarts only with a new message.
  }, [message, ms]);
}
