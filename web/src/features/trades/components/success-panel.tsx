import { useEffect, useRef, type ReactNode } from 'react';
import { Button } from '@/components/ui/button.tsx';

/** The closing view of a dialog after its command succeeded; focus lands on OK. */
export function SuccessPanel({ title, children, onDone }: { title: string; children?: ReactNode; onDone: () => void }) {
  const ok = useRef<HTMLButtonElement>(null);
  useEffect(() => ok.current?.focus(), []);
  return (
    <div className="success-panel" role="status">
      <div className="success-icon" aria-hidden="true">
        ✓
      </div>
      <h3>{title}</h3>
      {children && <p>{children}</p>}
      <Button ref={ok} onClick={onDone}>
        OK
      </Button>
    </div>
  );
}
