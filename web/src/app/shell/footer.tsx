import { useState } from 'react';
import { Link } from 'react-router';
import { LegalDialog } from '@/components/legal/legal-dialog.tsx';
import { useBusinessToday } from '@/lib/business-day.ts';

export function Footer() {
  const [legal, setLegal] = useState<'terms' | 'privacy' | null>(null);
  const year = useBusinessToday().slice(0, 4);
  return (
    <footer className="app-footer">
      <span className="app-footer-copy">© {year} Options Journal · Record-keeping and education only, not financial advice.</span>
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
