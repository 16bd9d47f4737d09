import { useRef, type ReactNode } from 'react';
import { Link } from 'react-router';
import { Logo } from '@/components/logo.tsx';
import { useLostFocus } from '@/lib/use-lost-focus.ts';
import '../auth.css';

/** The public card layout of sign-up, sign-in, verification and reset pages. */
export function AuthLayout({ title, subtitle, children, footer }: { title: string; subtitle?: ReactNode; children: ReactNode; footer?: ReactNode }) {
  // Signed out, or sent here by a link: focus goes to the card's page, not the document's top.
  const mainRef = useRef<HTMLElement>(null);
  useLostFocus(mainRef, title);
  return (
    <div className="auth-page">
      <aside className="auth-aside" aria-hidden="true">
        <Link to="/" className="auth-aside-brand" tabIndex={-1}>
          <Logo />
        </Link>
        <div className="auth-aside-copy">
          <h2>Journal every option trade. See what really pays.</h2>
          <p>Record opens, closes, rolls and splits across all your brokerage accounts, and watch your premium income add up.</p>
          <ul>
            <li>Cash-secured puts, covered calls, spreads, condors</li>
            <li>Rolls and partial closes with full history</li>
            <li>Income calendar and performance metrics</li>
          </ul>
        </div>
        <p className="auth-aside-note">Record-keeping and education only, not financial advice.</p>
      </aside>
      <main className="auth-main" tabIndex={-1} ref={mainRef}>
        <div className="auth-card">
          <Link to="/" className="auth-card-brand" aria-label="Options Journal home">
            <Logo />
          </Link>
          <h1 className="auth-title">{title}</h1>
          {subtitle && <p className="auth-subtitle">{subtitle}</p>}
          {children}
        </div>
        {footer && <div className="auth-footer">{footer}</div>}
      </main>
    </div>
  );
}
