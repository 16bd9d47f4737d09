import { useLayoutEffect, useRef, type ReactNode } from 'react';

/**
 * One step of a trade dialog as a real <form>. The step's primary button is type="submit", so Enter in
 * a text, number or date field presses it the way browsers, screen readers and phone keyboards ("Go",
 * "Next") all know; the browser's own rules keep what they should: Enter in the notes textarea writes a
 * newline, an open select list takes Enter for itself, and a disabled primary button submits nothing.
 * `noValidate`: the spec's messages come from the trade rules, not from the browser's bubbles.
 */
export function WizardForm({ step, onSubmit, className, children }: { step: number; onSubmit: () => void; className?: string; children: ReactNode }) {
  const formRef = useRef<HTMLFormElement>(null);
  const firstRender = useRef(true);
  // Enter in a field that the next step does not have leaves focus nowhere (the field is gone): move it
  // to the new step's first field, or to its primary button on a summary, so Tab and Enter go on from
  // there. A pressed button stays focused (React keeps the element), so mouse and Tab users see no change.
  useLayoutEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    const form = formRef.current;
    if (!form || form.contains(document.activeElement)) return;
    const target =
      form.querySelector<HTMLElement>('.form-grid :is(input, select, textarea):not([disabled]), .roll-columns :is(input, select, textarea):not([disabled])') ??
      form.querySelector<HTMLElement>('button[type="submit"]:not([disabled])');
    target?.focus();
  }, [step]);
  return (
    <form
      ref={formRef}
      className={className}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        // React's events bubble through portals: a dialog's form must not submit a form the page holds around it.
        e.stopPropagation();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}
