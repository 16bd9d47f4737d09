import { useCallback, useState, type InputHTMLAttributes, type ReactNode } from 'react';
import { FormField, SelectInput, TextArea, TextInput } from '@/components/ui/form-field.tsx';
import { NOTES_MAX, notesTone } from '../utils/trade-rules.ts';
import './trade-dialogs.css';

/**
 * Form state for the trade dialogs: values as typed, which fields were visited, and whether a submit
 * was tried. Errors are computed from the values on every render (the rules are pure), and a field
 * shows its error once visited or after a submit attempt, so messages appear live but not on arrival.
 */
export function useTradeForm<V extends object>(initial: () => V) {
  const [values, setValues] = useState<V>(initial);
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [attempted, setAttempted] = useState(false);
  const set = useCallback(<K extends keyof V>(key: K, value: V[K]) => {
    setValues((v) => ({ ...v, [key]: value }));
    setTouched((t) => ({ ...t, [key as string]: true }));
  }, []);
  const touch = useCallback((key: string) => setTouched((t) => (t[key] ? t : { ...t, [key]: true })), []);
  const reset = useCallback(() => {
    setValues(initial());
    setTouched({});
    setAttempted(false);
  }, [initial]);
  const shown = useCallback((errors: Record<string, string>, key: string) => (attempted || touched[key] ? errors[key] : undefined), [attempted, touched]);
  return { values, setValues, set, touch, touched, attempted, setAttempted, reset, shown };
}

/** The validation banner of the close, roll and split dialogs (part 1 §8). */
export const correctTheErrors = 'Please correct the errors in the form.';

/**
 * The red banner over a trade form. A refusal from the server is state (kept until the next try); the
 * validation message is derived from the fields on every render, so it leaves as soon as the last error
 * is fixed and comes back if a field goes wrong again, without another press of Next.
 */
export function formBanner(serverError: string | null, invalidShown: boolean, message: string = correctTheErrors): string | null {
  return serverError ?? (invalidShown ? message : null);
}

interface InputFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'> {
  label: ReactNode;
  value: string;
  onValue: (v: string) => void;
  error?: string | undefined;
  hint?: ReactNode;
  className?: string;
}

export function InputField({ label, value, onValue, error, hint, className, required, ...rest }: InputFieldProps) {
  return (
    <FormField label={label} error={error ?? null} hint={hint} required={required} className={className}>
      {({ id, describedBy, invalid }) => (
        <TextInput id={id} aria-describedby={describedBy} aria-invalid={invalid || undefined} value={value} onChange={(e) => onValue(e.target.value)} {...rest} />
      )}
    </FormField>
  );
}

/** A money or count input: decimal keyboard on phones, cents step. */
export function NumberField(props: InputFieldProps & { step?: string }) {
  return <InputField inputMode="decimal" type="number" step={props.step ?? '0.01'} min="0" {...props} />;
}

interface SelectFieldProps {
  label: ReactNode;
  value: string;
  onValue: (v: string) => void;
  error?: string | undefined;
  options: readonly { value: string; label: string }[];
  placeholder?: string;
  disabled?: boolean;
  required?: boolean;
  onBlur?: () => void;
  className?: string;
  /** The control the dialog focuses when it opens (the Modal looks for `data-autofocus`). */
  autoFocusHere?: boolean;
}

export function SelectField({ label, value, onValue, error, options, placeholder, disabled, required, onBlur, className, autoFocusHere }: SelectFieldProps) {
  return (
    <FormField label={label} error={error ?? null} required={required} className={className}>
      {({ id, describedBy, invalid }) => (
        <SelectInput
          id={id}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          data-autofocus={autoFocusHere || undefined}
          value={value}
          disabled={disabled}
          onBlur={onBlur}
          onChange={(e) => onValue(e.target.value)}
        >
          {placeholder !== undefined && <option value="">{placeholder}</option>}
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </SelectInput>
      )}
    </FormField>
  );
}

/** Notes with the live counter: green above 20 left, amber up to 20, red at none (part 1 §5). */
export function NotesField({ value, onValue, error, label = 'Notes' }: { value: string; onValue: (v: string) => void; error?: string | undefined; label?: string }) {
  const left = NOTES_MAX - value.length;
  return (
    <FormField
      label={label}
      error={error ?? null}
      className="field-notes"
      aside={
        <span className={`notes-counter notes-${notesTone(value.length)}`} aria-live="polite">
          {left} characters left
        </span>
      }
    >
      {({ id, describedBy, invalid }) => (
        <TextArea id={id} aria-describedby={describedBy} aria-invalid={invalid || undefined} rows={2} maxLength={NOTES_MAX} value={value} onChange={(e) => onValue(e.target.value)} />
      )}
    </FormField>
  );
}

export const transactionOptions = [
  { value: '1', label: 'Credit' },
  { value: '2', label: 'Debit' },
] as const;

/** A read-only value laid out like a field (derived values: credit/debit, tags, open date of a roll). */
export function ReadOnlyField({ label, value }: { label: ReactNode; value: ReactNode }) {
  return (
    <div className="field field-readonly">
      <div className="field-label-row">
        <span className="field-label">{label}</span>
      </div>
      <div className="readonly-value">{value}</div>
    </div>
  );
}

/** Marks the element a wizard's summary step focuses (WizardForm): out of the Tab order, focusable by script. */
export const reviewTarget = (review = true) => (review ? { 'data-review': '', tabIndex: -1 } : {});

/**
 * Label/value rows for summaries and the detail panels. `review`: this is what a wizard's summary step is
 * about to commit, so the step gives it focus (see WizardForm), instead of the button that commits it.
 */
export function Summary({ rows, className, review = false }: { rows: readonly (readonly [ReactNode, ReactNode] | null | false)[]; className?: string; review?: boolean }) {
  return (
    <dl className={`trade-summary${className ? ` ${className}` : ''}`} {...reviewTarget(review)}>
      {rows.filter((r): r is readonly [ReactNode, ReactNode] => Boolean(r)).map(([k, v], i) => (
        <div key={i} className="trade-summary-row">
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

export { focusFirstInvalid } from '@/lib/focus-first-invalid.ts';
