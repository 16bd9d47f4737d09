/**
 * After a refused submit or step, focus (and so scroll to) the first field whose message is now shown, in
 * the open dialog or the trade wizard: keyboard and screen-reader users land on the problem.
 */
export function focusFirstInvalid(): void {
  window.setTimeout(() => {
    document.querySelector<HTMLElement>('[role="dialog"] [aria-invalid="true"], .trade-wizard [aria-invalid="true"]')?.focus();
  }, 0);
}
