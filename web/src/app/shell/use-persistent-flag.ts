import { useCallback, useState } from 'react';

/** A boolean kept in localStorage (sidebar contracted, settings visible) so it survives reloads. */
export function usePersistentFlag(key: string, initial: boolean): [boolean, (next: boolean | ((v: boolean) => boolean)) => void] {
  const [value, setValue] = useState<boolean>(() => {
    try {
      const raw = localStorage.getItem(key);
      return raw === null ? initial : raw === 'true';
    } catch {
      return initial;
    }
  });
  const set = useCallback(
    (next: boolean | ((v: boolean) => boolean)) => {
      setValue((prev) => {
        const v = typeof next === 'function' ? next(prev) : next;
        try {
          localStorage.setItem(key, String(v));
        } catch {
          // Not persisted; the flag still works for this page.
        }
        return v;
      });
    },
    [key],
  );
  return [value, set];
}
