export interface StepperProps {
  steps: string[];
  /** 0-based index of the current step. */
  current: number;
}

/** The step indicator of the multi-step dialogs (form, summary...). */
export function Stepper({ steps, current }: StepperProps) {
  return (
    <ol className="stepper" aria-label="Progress">
      {steps.map((label, i) => {
        const state = i < current ? 'done' : i === current ? 'current' : 'todo';
        return (
          <li key={label} className={`stepper-step stepper-${state}`} aria-current={i === current ? 'step' : undefined}>
            <span className="stepper-dot" aria-hidden="true">
              {state === 'done' ? '✓' : i + 1}
            </span>
            <span className="stepper-label">{label}</span>
          </li>
        );
      })}
    </ol>
  );
}
