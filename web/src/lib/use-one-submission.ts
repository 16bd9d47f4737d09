import { useCallback, useRef } from 'react';

/**
 * One submission at a time, for any form that sends a command (a trade dialog, an account, a message, a
 * profile, a password). A mutation reads as pending only once React re-renders after TanStack Query's
 * notification (a later task), so a double click or two quick Enters could both reach `mutate` and send
 * the command twice (QA: two accounts, two messages). `start` gets a `settled` to call when
 * the form may be sent again, and is not called again until then: on every outcome (onSettled) where a
 * success leaves the form in place for the next trade (the add-trade wizard), on a failure only
 * (onError) where a success ends the form (close, roll, split, edit). There a success keeps the form shut
 * through what follows it: the roll wizard's 300 ms slide-out, or the render that brings the success panel,
 * during which another Enter would otherwise send the command again and flash the server's refusal.
 */
export function useOneSubmission() {
  const running = useRef(false);
  return useCallback((start: (settled: () => void) => void) => {
    if (running.current) return;
    running.current = true;
    start(() => {
      running.current = false;
    });
  }, []);
}
