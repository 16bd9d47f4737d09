import { useState } from 'react';
import { Link } from 'react-router';
import { LegalDialog } from '@/components/legal/legal-dialog.tsx';
import { todayInNewYork } from '@/lib/format.ts';

export function Footer() {
  const [legal, setLegal] = useState<'terms' | 'privacy' | null>(null);
  return (
    <footer className="app-footer">
      <span className="app-footer-copy">© {todayInNewYork().slice(0, 4)} Options Journal · Record-keeping and education only, not financial advice.</span>
      <nav className="app-footer-links" aria-label="Footer">
        <Link to="/#about">Homepage/About</Link>
        <button type="button" className="link-button" onClick={() => setLegal('terms')}>
          Terms
        </button>
        <button type="button" className="link-button" onClick={() => setLegal('privacy')}>
          Privacy
        </button>
        <Link to="/faq">FAQ</Link>
        <Link to="/contact">Contact</Link>
      </nav>
      <LegalDialog which={legal} onClose={() => setLegal(null)} />
    </footer>
  );
}
