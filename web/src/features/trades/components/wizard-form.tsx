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
  // Enter in a field that the next step does not have leaves focus nowhere (the field is gone): move it to
  // the new step's first field, so Tab and Enter go on from there. So does a button pressed from the
  // keyboard (it shows its focus ring, :focus-visible): React keeps the element, and Back pressed twice
  // was Cancel the second time, closing the form with what was typed. A button clicked with the mouse keeps
  // its focus, so mouse and touch users see no change (nor a phone keyboard popping up).
  // A summary is different: focus goes to what is about to be committed (the element marked `data-review`),
  // never to the button that commits it, wherever focus was. Enter pressed twice in a field, or twice on
  // Next (the same element becomes Close Trade), used to commit an action that cannot be undone without a
  // look at it (QA 72); now the second Enter lands on the summary, which a screen reader reads out, and the
  // commit is a deliberate Tab to the button and Enter (or a click).
  useLayoutEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    const form = formRef.current;
    if (!form) return;
    const field = form.querySelector<HTMLElement>('.form-grid :is(input, select, textarea):not([disabled]), .roll-columns :is(input, select, textarea):not([disabled])');
    if (!field) {
      form.querySelector<HTMLElement>('[data-review]')?.focus();
      return;
    }
    const active = document.activeElement;
    if (!form.contains(active) || (active instanceof HTMLButtonElement && active.matches(':focus-visible'))) field.focus();
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
