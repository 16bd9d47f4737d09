import { useEffect, type RefObject } from 'react';

/**
 * Gives focus to `target` (a page's main region, `tabIndex={-1}`) when it has fallen to the page's body:
 * the control that held it left the page with the route (the Sign in button, the Sign out item, a
 * form's submit). Without this the next Tab starts again from the top of the document, and a screen
 * reader says nothing of the new page. Focus held anywhere else (a sidebar link that stays on the page,
 * a field with autofocus) is left where it is. Checked on mount and each time `key` changes (the route).
 */
export function useLostFocus(target: RefObject<HTMLElement | null>, key: unknown): void {
  useEffect(() => {
    const el = target.current;
    if (!el) return;
    const active = document.activeElement;
    if (active === null || active === document.body) el.focus({ preventScroll: true });
  }, [target, key]);
}
