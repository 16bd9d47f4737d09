import { useEffect, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { Logo } from '@/components/logo.tsx';
import { Icon, type IconName } from '@/components/ui/icons.tsx';
import { LegalDialog } from '@/components/legal/legal-dialog.tsx';
import { useSession } from '@/features/auth/hooks/use-session.ts';
import { useBilling } from '@/lib/console-config.ts';
import '../landing.css';
import { todayInNewYork } from '@/lib/format.ts';

const features: { icon: IconName; title: string; text: string }[] = [
  { icon: 'layers', title: 'Every strategy, every leg', text: 'Cash-secured puts, covered calls, spreads, straddles, strangles, iron condors and butterflies, with one, two or four legs.' },
  { icon: 'rolled', title: 'Rolls, closes and splits', text: 'Close fully or partly, roll to a new expiration, break a two-leg trade into its legs. Every step keeps its history.' },
  { icon: 'clock', title: 'Never miss an expiration', text: 'Trades expiring within 7 days are flagged in the bell and the sidebar, with days left in colour.' },
  { icon: 'dashboard', title: 'Dynamic dashboard', text: 'Premium income by week, month and year, win rate, return on risk, annualised return and hold days.' },
  { icon: 'calendar', title: 'Interactive income calendar', text: 'See what each day earned at a glance, and open the trades behind it with one click.' },
  { icon: 'accounts', title: 'Multiple trade accounts', text: 'Keep up to 10 brokerage accounts with their own commission and fee, and a default for new trades.' },
];

/** `billing`: only where this installation charges for Premium (true) or only where it does not (false). */
const faqs: { q: string; a: string; billing?: boolean }[] = [
  { q: 'Is this financial advice?', a: 'No. Options Journal is a record-keeping and education tool. It never recommends trades.' },
  { q: 'Do you connect to my broker?', a: 'No. You record trades yourself, so no broker credentials are ever shared. Each account links to its broker’s login page for convenience.' },
  { q: 'Which dates are used?', a: 'Business dates use US Eastern time (New York). If you trade from overseas, a date may count as "in the future" until New York reaches it.' },
  { q: 'Can I record trades I already closed?', a: 'Yes. Add a closed trade with its opening and closing details in one go, up to two years back.' },
  { q: 'What happens when my trial ends?', a: 'You keep all your data. Premium pages are locked until you subscribe; you can subscribe at any time.', billing: true },
  { q: 'Can I cancel any time?', a: 'Yes. Access stays until the end of the billing period; unused time is not refunded.', billing: true },
  { q: 'Does this installation charge anything?', a: 'No. It is self-hosted without billing: every account has Premium without end, and no card is ever asked for.', billing: false },
];

const planFeatures = ['Dynamic Extensive Dashboard', 'Interactive Income Calendar', 'Sharable Cards', 'Multiple Trade Accounts', 'Old and New Trades'];

/** The public presentation page with the about, features, faq and pricing anchors. */
export function LandingRoute() {
  const session = useSession();
  const { hash } = useLocation();
  const [legal, setLegal] = useState<'terms' | 'privacy' | null>(null);
  const [menuOpen, setMenuOpen] = useState(false);
  const signedIn = session.isSignedIn && session.isVerified;
  // A self-hosted installation (no billing) has no trial and no price to offer.
  const billing = useBilling();
  const signUpLabel = billing ? 'Start free trial' : 'Create your journal';

  // The phone menu closes on Escape, as every other pop-over of the console does.
  useEffect(() => {
    if (!menuOpen) return;
    const close = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setMenuOpen(false);
    };
    document.addEventListener('keydown', close);
    return () => document.removeEventListener('keydown', close);
  }, [menuOpen]);

  useEffect(() => {
    if (!hash) return;
    document.getElementById(hash.slice(1))?.scrollIntoView();
  }, [hash]);

  return (
    <div className="landing">
      <header className="landing-nav">
        <div className="landing-container landing-nav-inner">
          <Link to="/" className="landing-brand" aria-label="Options Journal home">
            <Logo />
          </Link>
          <button type="button" className="icon-button landing-menu-toggle" aria-label="Menu" aria-expanded={menuOpen} onClick={() => setMenuOpen((o) => !o)}>
            <Icon name="menu" size={22} />
          </button>
          <nav className={`landing-links${menuOpen ? ' open' : ''}`} aria-label="Sections" onClick={() => setMenuOpen(false)}>
            <a href="#about">About</a>
            <a href="#features">Features</a>
            <a href="#pricing">Pricing</a>
            <a href="#faq">FAQ</a>
            {signedIn ? (
              <Link to="/dashboard" className="btn btn-primary btn-md">
                Go to dashboard
              </Link>
            ) : (
              <>
                <Link to="/signin" className="btn btn-ghost btn-md">
                  Sign in
                </Link>
                <Link to="/signup" className="btn btn-primary btn-md">
                  {signUpLabel}
                </Link>
              </>
            )}
          </nav>
        </div>
      </header>

      <main>
        <section className="landing-hero" id="about">
          <div className="landing-container landing-hero-inner">
            <div className="landing-hero-text">
              <span className="landing-eyebrow">Options trade journal</span>
              <h1>Know exactly what your option trades earn.</h1>
              <p className="landing-lead">
                Options Journal is a trade journal for sellers and buyers of options. Record every open, close, roll and split across your brokerage accounts, and
                see your premium income, win rate and returns add up over time.
              </p>
              <div className="landing-cta">
                <Link to={signedIn ? '/dashboard' : '/signup'} className="btn btn-primary btn-lg">
                  {signedIn ? 'Go to dashboard' : billing ? 'Start your 30-day free trial' : 'Create your journal'}
                </Link>
                <a href="#features" className="btn btn-secondary btn-lg">
                  See features
                </a>
              </div>
              <p className="landing-fine">
                {billing ? 'No card needed for the trial.' : 'Free on this installation, no card needed.'} For adults 18 or older. Record-keeping and education only, not financial advice.
              </p>
            </div>
            <div className="landing-hero-art" aria-hidden="true">
              <div className="hero-card">
                <div className="hero-card-row">
                  <span className="hero-ticker">AAPL</span>
                  <span className="badge badge-success">STO</span>
                </div>
                <div className="hero-card-sub">Example · Cash-Secured Put · 1 contract</div>
                <div className="hero-bars">
                  {[38, 52, 44, 61, 58, 72, 66, 80, 74, 90].map((h, i) => (
                    <span key={i} style={{ height: `${h}%` }} />
                  ))}
                </div>
                <div className="hero-card-row hero-card-foot">
                  <span>Premium income, last 10 days</span>
                  <span className="hero-up">
                    <Icon name="trend" size={16} />
                  </span>
                </div>
              </div>
            </div>
          </div>
        </section>

        <section className="landing-section" id="features">
          <div className="landing-container">
            <h2 className="landing-h2">Features</h2>
            <p className="landing-section-lead">Everything an options trader needs to keep an honest record, and nothing to distract from it.</p>
            <div className="feature-grid">
              {features.map((f) => (
                <div key={f.title} className="feature">
                  <span className="feature-icon" aria-hidden="true">
                    <Icon name={f.icon} size={22} />
                  </span>
                  <h3>{f.title}</h3>
                  <p>{f.text}</p>
                </div>
              ))}
            </div>
          </div>
        </section>

        <section className="landing-section landing-section-alt" id="pricing">
          <div className="landing-container">
            <h2 className="landing-h2">Pricing</h2>
            <p className="landing-section-lead">{billing ? 'One all-inclusive plan. Try it free for 30 days.' : 'One all-inclusive plan, free on this installation.'}</p>
            <div className="price-card">
              <div className="price-card-head">
                <h3>Premium</h3>
                {billing ? (
                  <>
                    <div className="price">
                      <span className="price-amount price-usd">4.99</span>
                      <span className="price-unit">USD / month</span>
                    </div>
                    <p className="muted">30-day free trial, no card needed. Cancel any time.</p>
                  </>
                ) : (
                  <>
                    <div className="price">
                      <span className="price-amount">Free</span>
                    </div>
                    <p className="muted">This installation is self-hosted and has no billing: every user has Premium without end.</p>
                  </>
                )}
              </div>
              <ul className="price-features">
                {planFeatures.map((p) => (
                  <li key={p}>
                    <Icon name="check" size={16} />
                    {p}
                  </li>
                ))}
              </ul>
              <Link to={signedIn ? '/subscription' : '/signup'} className="btn btn-primary btn-lg btn-block">
                {signedIn ? 'Manage subscription' : signUpLabel}
              </Link>
              {billing && <p className="price-fine">Access stays to the end of the billing period after cancelling; no refunds for unused time.</p>}
            </div>
          </div>
        </section>

        <section className="landing-section" id="faq">
          <div className="landing-container landing-faq">
            <h2 className="landing-h2">FAQ</h2>
            {faqs
              .filter((f) => f.billing === undefined || f.billing === billing)
              .map((f) => (
              <details key={f.q} className="faq-item">
                <summary>{f.q}</summary>
                <p>{f.a}</p>
              </details>
            ))}
          </div>
        </section>
      </main>

      <footer className="landing-footer">
        <div className="landing-container landing-footer-inner">
          <Logo />
          <nav aria-label="Legal" className="landing-footer-links">
            <button type="button" className="link-button" onClick={() => setLegal('terms')}>
              Terms
            </button>
            <button type="button" className="link-button" onClick={() => setLegal('privacy')}>
              Privacy
            </button>
            <a href="#faq">FAQ</a>
          </nav>
          <span className="muted">© {todayInNewYork().slice(0, 4)} Options Journal. Not financial advice.</span>
        </div>
      </footer>
      <LegalDialog which={legal} onClose={() => setLegal(null)} />
    </div>
  );
}
