import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';
import type { AlertTone } from './alert.tsx';
import './toast.css';

export interface ToastInput {
  tone?: AlertTone;
  title: string;
  message?: string;
  /** Milliseconds before it goes away; 0 keeps it until dismissed. */
  durationMs?: number;
}

interface Toast extends ToastInput {
  id: number;
}

/** The most toasts on screen at once: a new one pushes out the oldest. */
export const MAX_TOASTS = 4;

interface ToastApi {
  show(toast: ToastInput): void;
  success(title: string, message?: string): void;
  error(title: string, message?: string): void;
}

const ToastContext = createContext<ToastApi | null>(null);

/**
 * Short-lived notifications in a live region at the corner of the screen, a landmark named
 * "Notifications". Not Radix Toast, unlike the menus: Radix announces a toast by copying its text into a
 * second, visually hidden element for a second, so a page briefly holds every toast's text twice, and a
 * test (ours or a reader's) that looks for "Trade Account Added." on the page finds two elements.
 */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(1);
  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((t) => t.id !== id)), []);
  const show = useCallback(
    (toast: ToastInput) => {
      const id = nextId.current++;
      setToasts((all) => [...all.slice(-(MAX_TOASTS - 1)), { ...toast, id }]);
      const duration = toast.durationMs ?? (toast.tone === 'danger' ? 6000 : 3500);
      if (duration > 0) window.setTimeout(() => dismiss(id), duration);
    },
    [dismiss],
  );
  const api = useMemo<ToastApi>(
    () => ({
      show,
      success: (title, message) => show({ tone: 'success', title, message }),
      error: (title, message) => show({ tone: 'danger', title, message }),
    }),
    [show],
  );
  return (
    <ToastContext value={api}>
      {children}
      <div className="toast-region" role="region" aria-label="Notifications" aria-live="polite" aria-atomic="false">
        {toasts.map((t) => (
          <div key={t.id} className={`toast toast-${t.tone ?? 'info'}`} role={t.tone === 'danger' ? 'alert' : 'status'}>
            <div className="toast-content">
              <div className="toast-title">{t.title}</div>
              {t.message && <div className="toast-message">{t.message}</div>}
            </div>
            <button type="button" className="icon-button toast-close" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext>
  );
}

export function useToast(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error('useToast must be used inside <ToastProvider>');
  return api;
}
