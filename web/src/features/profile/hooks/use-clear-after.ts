import { useEffect } from 'react';

/**
 * Calls `clear` `ms` after `value` is set, again from the start for each new value, and not while it is
 * null: the profile cards' result messages that go away by themselves (part 2: the password message after
 * 3 s). `clear` is expected to be stable (a state setter's call).
 */
export function useClearAfter(value: unknown, clear: () => void, ms: number): void {
  useEffect(() => {
    if (value === null || value === undefined) return;
    const t = window.setTimeout(clear, ms);
    return () => window.clearTimeout(t);
  }, [value]);
}
