import { useEffect, useRef } from 'react';
import { createPortal } from 'react-dom';
import { startupMessage, startupPercent } from '@oj/contracts/common';
import { Logo } from '@/components/logo.tsx';
import { useStartupProgress } from '@/lib/startup.ts';
import { Spinner } from './spinner.tsx';

/**
 * Covers the console while the journal's start brings its read models up to date (lib/startup.ts): what
 * it does and how far it got, updated each second. The requests behind it wait and go out again on their
 * own, so the page carries on where it was; nothing the trader typed is lost.
 */
export function StartupScreen() {
  const progress = useStartupProgress();
  const card = useRef<HTMLDivElement>(null);
  const shown = progress !== null;
  // Keyboard and screen-reader users are taken to it, and the page behind (#root; this screen is drawn
  // beside it) is inert while it waits: QA 78 tabbed into the blurred sign-in form behind. Back where
  // they were after.
  useEffect(() => {
    if (!shown) return;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const page = document.getElementById('root');
    page?.setAttribute('inert', '');
    card.current?.focus();
    return () => {
      page?.removeAttribute('inert');
      before?.focus();
    };
  }, [shown]);
  if (!progress) return null;
  const percent = startupPercent(progress);
  return createPortal(
    <div className="startup-screen" role="dialog" aria-modal="true" aria-labelledby="startup-title" aria-describedby="startup-message">
      <div className="startup-card" ref={card} tabIndex={-1}>
        <Logo />
        <h1 id="startup-title" className="startup-title">
          Getting your journal ready
        </h1>
        <p id="startup-message" className="startup-message" role="status" aria-live="polite">
          {startupMessage(progress)}
        </p>
        {percent === null ? (
          <Spinner size="lg" label="" />
        ) : (
          <div className="startup-bar" role="progressbar" aria-label="Journal start-up" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
            <span style={{ width: `${percent}%` }} />
          </div>
        )}
        <p className="startup-note">
          This happens when the journal starts after an upgrade, a restore or an import of records. Your records are safe, and this page carries on by itself when the
          journal is ready.
        </p>
      </div>
    </div>,
    document.body,
  );
}
