export interface SpinnerProps {
  size?: 'sm' | 'md' | 'lg';
  /** Accessible text; '' for a decorative spinner inside a labelled control. */
  label?: string;
}

export function Spinner({ size = 'md', label = 'Loading' }: SpinnerProps) {
  return (
    <span className={`spinner spinner-${size}`} role={label ? 'status' : undefined} aria-hidden={label ? undefined : true}>
      {label && <span className="visually-hidden">{label}</span>}
    </span>
  );
}

/** Covers the viewport until the data a whole screen needs has loaded. */
export function FullScreenSpinner({ label = 'Loading' }: { label?: string }) {
  return (
    <div className="fullscreen-spinner" role="status" aria-live="polite">
      <Spinner size="lg" label="" />
      <span className="fullscreen-spinner-label">{label}</span>
    </div>
  );
}
