import type { ReactNode } from 'react';

export type AlertTone = 'info' | 'success' | 'warning' | 'danger';

export interface AlertProps {
  tone?: AlertTone;
  title?: ReactNode;
  children?: ReactNode;
  onClose?: () => void;
  className?: string;
}

/** An inline message: errors are announced assertively, the rest politely. */
export function Alert({ tone = 'info', title, children, onClose, className }: AlertProps) {
  return (
    <div className={`alert alert-${tone}${className ? ` ${className}` : ''}`} role={tone === 'danger' ? 'alert' : 'status'}>
      <div className="alert-content">
        {title && <div className="alert-title">{title}</div>}
        {children && <div className="alert-body">{children}</div>}
      </div>
      {onClose && (
        <button type="button" className="icon-button alert-close" aria-label="Dismiss" onClick={onClose}>
          ×
        </button>
      )}
    </div>
  );
}
