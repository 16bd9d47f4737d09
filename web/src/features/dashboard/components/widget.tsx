import type { ReactNode } from 'react';
import { Icon } from '@/components/ui/icons.tsx';

/** A dashboard card: title, optional subtitle, controls on the right (switches, share). */
export function Widget({ title, subtitle, actions, children, className, id }: { title: string; subtitle?: ReactNode; actions?: ReactNode; children: ReactNode; className?: string; id?: string }) {
  const headingId = id ? `${id}-title` : undefined;
  return (
    <section className={`dash-card ${className ?? ''}`} aria-labelledby={headingId} data-widget={id}>
      <header className="dash-card-head">
        <div>
          <h2 className="dash-card-title" id={headingId}>
            {title}
          </h2>
          {subtitle && <p className="dash-card-sub">{subtitle}</p>}
        </div>
        {actions && <div className="dash-card-actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

/** A row of mutually exclusive period buttons (a radio group for keyboard and screen readers). */
export function Segmented<K extends string>({ label, options, value, onChange }: { label: string; options: readonly { key: K; label: string }[]; value: K; onChange: (k: K) => void }) {
  return (
    <div className="dash-seg" role="radiogroup" aria-label={label}>
      {options.map((o) => (
        <button
          key={o.key}
          type="button"
          role="radio"
          aria-checked={o.key === value}
          tabIndex={o.key === value ? 0 : -1}
          className={o.key === value ? 'is-on' : ''}
          onClick={() => onChange(o.key)}
          onKeyDown={(e) => {
            // Arrow keys move within the group, as in a native radio group.
            const i = options.findIndex((x) => x.key === value);
            const step = e.key === 'ArrowRight' || e.key === 'ArrowDown' ? 1 : e.key === 'ArrowLeft' || e.key === 'ArrowUp' ? -1 : 0;
            if (!step) return;
            e.preventDefault();
            const next = options[(i + step + options.length) % options.length]!;
            onChange(next.key);
            (e.currentTarget.parentElement?.querySelector(`[data-key="${next.key}"]`) as HTMLElement | null)?.focus();
          }}
          data-key={o.key}
        >
          {o.label}
        </button>
      ))}
    </div>
  );
}

/** The share button of a widget; disabled where the spec disables it (weekly strip, heat map). */
export function ShareButton({ label, onShare, disabled = false }: { label: string; onShare?: (() => void) | undefined; disabled?: boolean }) {
  return (
    <button type="button" className="dash-icon-btn" aria-label={label} title={label} onClick={onShare} disabled={disabled || !onShare}>
      <Icon name="share" size={16} />
    </button>
  );
}

/** A signed percent change with an arrow, or an em dash when there is none (part 2 §9). */
export function Change({ value, suffix = '' }: { value: number | null; suffix?: string }) {
  if (value === null) return <span className="dash-change is-none">—{suffix}</span>;
  const tone = value > 0 ? 'is-up' : value < 0 ? 'is-down' : 'is-flat';
  const arrow = value > 0 ? '▲' : value < 0 ? '▼' : '•';
  return (
    <span className={`dash-change ${tone}`}>
      <span aria-hidden="true">{arrow}</span> {value > 0 ? '+' : ''}
      {value.toFixed(2)}%{suffix}
    </span>
  );
}

export const SWITCH_OPTIONS = [
  { key: 'm', label: 'M' },
  { key: 'ytd', label: 'YTD' },
  { key: 'y', label: 'Y' },
] as const;
export const SWITCH_LABELS = { m: 'Last 30 days', ytd: 'Year to date', y: 'Last 12 months' } as const;
