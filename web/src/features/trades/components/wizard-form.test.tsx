// @vitest-environment jsdom
import '@/test/dom.ts';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/react';
import { Summary } from './form-controls.tsx';
import { WizardForm } from './wizard-form.tsx';

/** A close dialog's shape: a step of fields, then a summary whose primary button commits. */
function TwoSteps({ commit }: { commit: () => void }) {
  const [step, setStep] = useState(0);
  return (
    <WizardForm step={step} onSubmit={step === 0 ? () => setStep(1) : commit}>
      {step === 0 ? (
        <div className="form-grid">
          <label>
            Close Fee
            <input defaultValue="0.65" />
          </label>
        </div>
      ) : (
        <Summary review rows={[['Close Fee', '$0.65']]} />
      )}
      <div className="wizard-actions">
        <button type="submit">{step === 0 ? 'Next' : 'Close Trade'}</button>
      </div>
    </WizardForm>
  );
}

const form = () => document.querySelector('form')!;

describe('WizardForm', () => {
  it('on a summary, focuses what is about to be committed, not the button that commits it (Enter in a field)', () => {
    const commit = vi.fn();
    render(<TwoSteps commit={commit} />);
    const field = screen.getByLabelText('Close Fee');
    field.focus();
    // Enter in the field submits the step; the field goes with it.
    fireEvent.submit(form());
    const summary = document.querySelector('dl[data-review]');
    expect(summary).not.toBeNull();
    expect(document.activeElement).toBe(summary);
    expect(document.activeElement).not.toBe(screen.getByRole('button', { name: 'Close Trade' }));
    expect(commit).not.toHaveBeenCalled();
  });

  it('moves focus off Next onto the summary too, though React keeps the button (it becomes Close Trade)', () => {
    render(<TwoSteps commit={vi.fn()} />);
    const next = screen.getByRole('button', { name: 'Next' });
    next.focus();
    fireEvent.submit(form());
    // The same element, now the commit button: a second Enter on it would have committed.
    expect(next.textContent).toBe('Close Trade');
    expect(document.activeElement).toBe(document.querySelector('dl[data-review]'));
  });

  it('on a step of fields, puts focus on the first field when it was lost, or when a button was pressed from the keyboard (Back would be Cancel)', () => {
    function FieldsThenFields() {
      const [step, setStep] = useState(0);
      return (
        <WizardForm step={step} onSubmit={() => setStep((s) => s + 1)}>
          <div className="form-grid">{step === 0 ? <input key="a" aria-label="First" /> : <input key="b" aria-label="Second" />}</div>
          <button type="submit">{step === 0 ? 'Next' : 'Cancel'}</button>
        </WizardForm>
      );
    }
    render(<FieldsThenFields />);
    screen.getByLabelText('First').focus();
    fireEvent.submit(form());
    expect(document.activeElement).toBe(screen.getByLabelText('Second'));
    // jsdom counts every focus as :focus-visible, as Chromium does for a keyboard's (a click's stays on the
    // button: the browser test in trades.e2e.ts).
    const button = screen.getByRole('button', { name: 'Cancel' });
    button.focus();
    fireEvent.submit(form());
    expect(document.activeElement).toBe(screen.getByLabelText('Second'));
  });
});
