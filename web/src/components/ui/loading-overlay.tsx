import type { ReactNode } from 'react';
import { Spinner } from './spinner.tsx';

export interface LoadingOverlayProps {
  show: boolean;
  label?: string;
  children: ReactNode;
}

/** Dims its content and shows a spinner over it while `show` (lists that reload keep their layout). */
export function LoadingOverlay({ show, label = 'Loading', children }: LoadingOverlayProps) {
  return (
    <div className="loading-overlay-host" aria-busy={show || undefined}>
      {children}
      {show && (
        <div className="loading-overlay" role="status">
          <Spinner size="lg" label="" />
          <span className="visually-hidden">{label}</span>
        </div>
      )}
    </div>
  );
}
