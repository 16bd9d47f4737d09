import { useRef } from 'react';

/**
 * An operator dialog's action is sent once per opening of the dialog. A pending mutation disables the
 * dialog's button only once React re-renders after TanStack Query's notification (a later task), so both
 * clicks of a double click, or Enter twice, reached the handler and the action went twice (QA: two
 * switches, the second refused with 409 and logged; two rebuilds of one user). Each opening of a dialog is
 * a new object: `claim` is true once for it, and again only after `release` (a failure: the dialog stays
 * open with the error). A success closes the dialog, so no late click sends it again.
 */
export function useSendOnce<Opening extends object>() {
  const sentFor = useRef<Opening | null>(null);
  return {
    claim(opening: Opening): boolean {
      if (sentFor.current === opening) return false;
      sentFor.current = opening;
      return true;
    },
    release(opening: Opening | null): void {
      if (sentFor.current === opening) sentFor.current = null;
    },
  };
}
