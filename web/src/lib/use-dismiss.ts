import { useEffect, useRef } from 'react';

export type DismissedBy = 'escape' | 'outside';

/**
 * A disclosure's way out (the bell's list, the display settings): while `open`, a press outside it
 * (`isInside` says what counts as in it, its opening button included) or Escape calls `onDismiss` with
 * how it was dismissed; the caller closes and, on Escape, gives focus back where it belongs. Escape that a
 * dialog on top takes (it stops the key at the document) never reaches here.
 */
export function useDismiss(open: boolean, isInside: (target: Node) => boolean, onDismiss: (by: DismissedBy) => void): void {
  const latest = useRef({ isInside, onDismiss });
  latest.current = { isInside, onDismiss };
  useEffect(() => {
    if (!open) return;
    const onPointerDown = (e: PointerEvent) => {
      if (e.target instanceof Node && !latest.current.isInside(e.target)) latest.current.onDismiss('outside');
    };
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !e.defaultPrevented) latest.current.onDismiss('escape');
    };
    document.addEventListener('pointerdown', onPointerDown, true);
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown, true);
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [open]);
}
