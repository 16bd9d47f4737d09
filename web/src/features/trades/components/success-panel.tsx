import { useEffect, useRef, type KeyboardEvent, type ReactNode } from 'react';
import { Button } from '@/components/ui/button.tsx';

/**
 * How long OK ignores Enter after the panel shows. Focus lands on OK, so the last of a few quick Enters
 * that submitted the dialog (or a held one) would otherwise close the confirmation before it is read.
 */
export const SUCCESS_SETTLE_MS = 500;

/** The closing view of a dialog after its command succeeded; focus lands on OK. */
export function SuccessPanel({ title, children, onDone }: { title: string; children?: ReactNode; onDone: () => void }) {
  const ok = useRef<HTMLButtonElement>(null);
  const shownAt = useRef(Date.now());
  useEffect(() => ok.current?.focus(), []);
  const settle = (e: KeyboardEvent<HTMLButtonElement>) => {
    if (e.key === 'Enter' && (e.repeat || Date.now() - shownAt.current < SUCCESS_SETTLE_MS)) e.preventDefault();
  };
  return (
    <div className="success-panel" role="status">
      <div className="success-icon" aria-hidden="true">
        ✓
      </div>
      <h3>{title}</h3>
      {children && <p>{children}</p>}
      <Button ref={ok} onClick={onDone} onKeyDown={settle}>
        OK
      </Button>
    </div>
  );
}
