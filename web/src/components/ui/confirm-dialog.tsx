import type { ReactNode } from 'react';
import { Button } from './button.tsx';
import { Modal } from './modal.tsx';

export interface ConfirmDialogProps {
  open: boolean;
  title: ReactNode;
  message?: ReactNode;
  confirmLabel?: string;
  cancelLabel?: string;
  /** Label while busy, e.g. "Sending...". */
  busyLabel?: string;
  busy?: boolean;
  tone?: 'primary' | 'danger';
  onConfirm: () => void;
  onCancel: () => void;
  /** An error to show under the message (the dialog stays open). */
  error?: string | null;
  /** The confirm cannot be sent (e.g. what it would do no longer applies); Cancel still closes. */
  confirmDisabled?: boolean;
}

export function ConfirmDialog({ open, title, message, confirmLabel = 'Yes', cancelLabel = 'Cancel', busyLabel, busy = false, tone = 'primary', onConfirm, onCancel, error, confirmDisabled = false }: ConfirmDialogProps) {
  return (
    <Modal
      open={open}
      onClose={onCancel}
      title={title}
      size="sm"
      dismissible={!busy}
      footer={
        <>
          {/* A danger confirm opens on Cancel: Enter pressed twice must not delete anything. */}
          <Button variant="secondary" onClick={onCancel} disabled={busy} data-autofocus={tone === 'danger' || undefined}>
            {cancelLabel}
          </Button>
          <Button variant={tone === 'danger' ? 'danger' : 'primary'} onClick={onConfirm} loading={busy} disabled={confirmDisabled} data-autofocus={tone !== 'danger' || undefined}>
            {busy && busyLabel ? busyLabel : confirmLabel}
          </Button>
        </>
      }
    >
      {message && <div className="confirm-message">{message}</div>}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </Modal>
  );
}
